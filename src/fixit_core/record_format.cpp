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

void check_record(const json& r, const std::string& where) {
  auto need_string = [&](const json& obj, const char* path, const char* key) {
    if (!obj.is_object() || !obj.contains(key) || !obj[key].is_string())
      throw InputError(where + ": field '" + std::string(path) + key + "' must be a string");
  };
  if (!r.is_object() || r.value("format", "") != kRecordFormat)
    throw InputError(where + ": not a " + std::string(kRecordFormat) + " record");
  for (const char* k : {"id", "template", "problem", "split"}) need_string(r, "", k);
  const json& c = r.contains("context") ? r["context"] : json();
  for (const char* k : {"system", "problem_prompt", "failed_reply", "feedback"}) need_string(c, "context.", k);
  const json& t = r.contains("target") ? r["target"] : json();
  for (const char* k : {"explanation", "kernel", "message"}) need_string(t, "target.", k);
}

}  // namespace ptxbench::fixit
