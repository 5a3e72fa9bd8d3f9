// libFuzzer target: the evaluation record reader. Any bytes either parse into a record (which
// then serializes as valid UTF-8 and reads back equal) or are rejected as an InputError.
#include <cstdint>
#include <string>

#include "core/bytes.h"
#include "core/error.h"
#include "core/record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const ptxbench::json j = ptxbench::json::parse(text, nullptr, false);
  if (j.is_discarded()) return 0;
  try {
    const ptxbench::EvaluationRecord r = ptxbench::record_from_json(j);
    const std::string out = ptxbench::to_json(r).dump();
    if (!ptxbench::is_valid_utf8(out)) __builtin_trap();
    const ptxbench::EvaluationRecord back = ptxbench::record_from_json(ptxbench::json::parse(out));
    if (ptxbench::to_json(back).dump() != out) __builtin_trap();
  } catch (const ptxbench::InputError&) {
  }
  return 0;
}
