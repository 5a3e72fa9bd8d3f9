// A finished (or cut-short) worker run made from the stage events it reported, for the judge's
// stage-logic tests.
#pragma once
#include <vector>

#include "judge/worker_client.h"

namespace ptxbench::test {

inline WorkerRun run_with(std::vector<json> stages, bool done = true) {
  WorkerRun r;
  r.done = done;
  for (auto& s : stages) {
    s["type"] = "stage";
    r.events.push_back(s);
  }
  return r;
}

}  // namespace ptxbench::test
