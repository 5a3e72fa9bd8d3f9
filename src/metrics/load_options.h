// What a loader keeps: the drill-down texts (code, feedback, verdict reason, per-shape timings)
// are read only when a report shows them (the HTML format).
#pragma once
#include <string>
#include <vector>

namespace ptxbench::metrics {

struct LoadOptions {
  bool with_detail = false;
  std::vector<std::string> runs;  // only these run ids; empty: every run
  bool wanted(const std::string& run_id) const;
};

}  // namespace ptxbench::metrics
