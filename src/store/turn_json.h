// A turn's declared fields (store/turn_row.h) as JSON, both ways: under their run-export keys
// (ptxbench.turn/1; "a.b" nests the value in the object "a") or, for the fields a report shows,
// under their column names (the metrics input ptxbench.metrics/1 and the reports' per-turn data).
// What is not a declared field of the turn (the run, the reply, the evaluation) is the caller's.
#pragma once
#include "core/json.h"
#include "store/turn_row.h"

namespace ptxbench {

enum class TurnKeys {
  export_keys,     // every field with an export key, under it
  report_columns,  // the report's fields (report 1), under their column names
};

// Sets each field's key in `out` (an object), in declaration order.
void put_turn_fields(const TurnRow& turn, TurnKeys keys, json& out);

// Reads each field that `in` holds (an absent or null one is left as it is). Throws InputError "field 'KEY' must be
// ..." on a value of the wrong type; integers must not be negative.
void get_turn_fields(const json& in, TurnKeys keys, TurnRow* turn);

}  // namespace ptxbench
