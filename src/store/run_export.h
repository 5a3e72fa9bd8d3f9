// `ptxbench runs export RUN --jsonl`: one JSON object per turn, self-contained (the run's config
// and provenance, the request, the exact reply, the extracted candidate and its source, the
// feedback the model saw, the evaluation record, tokens, cost and timings), so a turn can be
// replayed (replay: client) and every metric computed from the file alone. Format name and
// fields: docs/store.md, "Cost and the run export".
#pragma once
#include <ostream>
#include <string>

#include "store/run_store.h"

namespace ptxbench {

inline constexpr const char* kTurnExportFormat = "ptxbench.turn/1";

struct ExportOptions {
  bool request_bodies = false;  // add each request's exact bytes (large: the knowledge pack every time)
};

json turn_export_object(const RunInfo& run, const TurnRow& turn, const ModelCallRow& call, const std::string* source,
                        const EvaluationRecord* record, int uncounted_calls, const ExportOptions& options);

// Writes every stored turn of the run (phase done or judging), by problem, trajectory and turn.
DbStatus export_run_jsonl(RunStore& store, const std::string& run_id, std::ostream& out, const ExportOptions& options,
                          size_t* lines_written);

}  // namespace ptxbench
