// The run store's tables by column name (store-internal; row_columns.h): each column named once,
// beside the member of its typed row (run_rows.h).
#pragma once
#include "store/row_columns.h"
#include "store/run_rows.h"

namespace ptxbench::store_detail {

// A model call as stored: its request and response bytes live in blobs, keyed by sha256.
struct StoredModelCall : ModelCallRow {
  std::string request_sha256, response_sha256;
};

const Columns<RunInfo>& run_columns();                 // runs
const Columns<TrajectoryRow>& trajectory_columns();    // trajectories
const Columns<StoredModelCall>& model_call_columns();  // model_calls
const Columns<TurnRow>& turn_columns();                // turns
const Columns<RunEvent>& run_event_columns();          // run_events

}  // namespace ptxbench::store_detail
