// The Fixit record's target message and its check (the fields: store/fixit_record.h).
#include "fixit_core/record_format.h"

#include "core/code_fence.h"
#include "core/error.h"

namespace ptxbench::fixit {

std::string target_message(const std::string& explanation, const std::string& kernel) {
  const std::string fence = code_fence_for(kernel);
  std::string m = explanation;
  if (!m.empty()) m += "\n\n";
  return m + fence + "cuda\n" + kernel + (kernel.ends_with("\n") ? "" : "\n") + fence + "\n";
}

FixitRecord check_record(const json& r, const std::string& where) { return fixit_record_from_json(r, where); }

}  // namespace ptxbench::fixit
