// A failed CUPTI call as an Error that names the part of the tool, the call and CUPTI's own message.
#pragma once
#include <cupti.h>

#include <string>

#include "core/error.h"

namespace ptxbench {

inline std::string cupti_message(CUptiResult r) {
  const char* msg = nullptr;
  cuptiGetResultString(r, &msg);
  return msg ? msg : "CUPTI error " + std::to_string(int(r));
}

// `part`: e.g. "CUPTI range profiler"; `what`: the call or step that failed.
inline void cupti_check(CUptiResult r, const char* part, const char* what) {
  if (r != CUPTI_SUCCESS) fail(std::string(part) + ": " + what + ": " + cupti_message(r));
}

}  // namespace ptxbench
