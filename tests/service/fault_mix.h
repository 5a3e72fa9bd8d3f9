// The fault-injection tests' job mix: job i of a batch does what its index says, so a test knows
// for every job what should have happened to it.
#pragma once
#include <string>

#include "core/json.h"

namespace ptxbench::test {

inline std::string fault_of(int i) {
  switch (i % 100) {
    case 0: return "killed";    // the worker is SIGKILLed mid-stage (first attempt)
    case 1: return "sticky";    // a sticky CUDA error; the GPU then fails its health probes
    case 2: return "oom";       // device out of memory in the harness
    case 3: return "hang";      // a hung kernel: the stage's deadline ends it
    case 4: return "throttle";  // the GPU throttles during the timed sample
    case 5: return "wrong";     // an incorrect candidate (a verdict, not a fault)
    case 6:
    case 7:
    case 8:
    case 9:
    case 10: return "compile_error";
    case 11: return "oom_always";  // a persistent harness fault: infra_error after the bound
    default: return "";
  }
}

inline json payload_of(int i, int ms = 2) {
  const std::string f = fault_of(i);
  json p = {{"index", i}, {"ms", ms}};
  if (f == "compile_error") p["build"] = "compile_error";
  else if (f == "oom_always") p["fault"] = "oom", p["fault_attempts"] = 99;
  else if (!f.empty()) p["fault"] = f;
  return p;
}

}  // namespace ptxbench::test
