// libFuzzer target: the parent's reader of the worker's result channel. Raw input exercises the
// framing and authentication; with the first byte odd, every line is signed with the key first,
// so the JSON, sequence and stage rules behind the HMAC are explored too. Never throws.
#include <cstdint>
#include <string>

#include "judge/result_lines.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string key(64, 'c');
  if (size == 0) return 0;
  const bool sign = data[0] & 1, killed = data[0] & 2;
  std::string input(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (sign) {
    std::string signed_text;
    size_t pos = 0;
    while (pos < input.size()) {
      size_t nl = input.find('\n', pos);
      const std::string payload = input.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      signed_text += ptxbench::hmac_sha256_hex(key, payload) + " " + payload;
      if (nl == std::string::npos) break;
      signed_text += "\n";
      pos = nl + 1;
    }
    input = signed_text;
  }
  const auto r = ptxbench::read_result_lines(input, key, {"correctness", "timing", "stream_discipline"}, killed);
  for (const auto& e : r.events) (void)e.dump();
  return 0;
}
