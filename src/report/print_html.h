// The HTML report: one self-contained file that opens offline. plotly.min.js is inlined; the
// report's tables (the JSON format's) are embedded once, and each trajectory's turn details
// (code, feedback, verdict reason, per-shape timings) in its own JSON script element that the page
// parses only when the trajectory is opened, so a run of thousands of turns stays fast.
#pragma once
#include <string>

#include "metrics/turn_model.h"
#include "report/result_schema.h"

namespace ptxbench::report {

// `set`: the turns the report was built from (loaded with detail for the drill-down).
std::string print_html(const Report& r, const metrics::TurnSet& set, const std::string& plotly_js);

}  // namespace ptxbench::report
