// Verifies the worker's signed, numbered result lines (HMAC, sequence, known events) before any is used.
#include "judge/result_lines.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "core/error.h"
#include "core/worker_protocol.h"

namespace ptxbench {
namespace {

std::string hex(const unsigned char* p, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) out += digits[p[i] >> 4], out += digits[p[i] & 15];
  return out;
}

bool unhex(std::string_view h, std::string& out) {
  if (h.size() % 2) return false;
  auto v = [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
  };
  for (size_t i = 0; i < h.size(); i += 2) {
    const int hi = v(h[i]), lo = v(h[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out += static_cast<char>(hi << 4 | lo);
  }
  return true;
}

}  // namespace

std::string new_channel_key() {
  unsigned char k[32];
  if (RAND_bytes(k, sizeof k) != 1) fail("RAND_bytes failed: no random bytes for the result channel's key");
  return hex(k, sizeof k);
}

std::string hmac_sha256_hex(std::string_view key_hex, std::string_view data) {
  std::string key;
  if (!unhex(key_hex, key)) return "";
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
            data.size(), md, &len))
    return "";
  return hex(md, len);
}

ChannelReport read_result_lines(std::string_view bytes, std::string_view key_hex, const std::set<std::string>& stages,
                                bool killed) {
  ChannelReport r;
  std::set<std::string> seen_stages;
  bool done = false;
  unsigned long long expected = 0;
  size_t pos = 0, line_no = 0;
  auto tamper = [&](const std::string& why) {
    r.tampered = "line " + std::to_string(line_no) + " of the result channel " + why;
  };
  while (pos < bytes.size() && !r.tampered) {
    ++line_no;
    const size_t nl = bytes.find('\n', pos);
    if (nl == std::string_view::npos) {
      if (killed) r.unfinished_line = true;
      else tamper("is unfinished although the worker ended on its own");
      break;
    }
    const std::string_view line = bytes.substr(pos, nl - pos);
    pos = nl + 1;
    const size_t sp = line.find(' ');
    if (sp != 64) {
      tamper("does not start with an HMAC");
      break;
    }
    const std::string_view mac = line.substr(0, 64), payload = line.substr(65);
    const std::string want = hmac_sha256_hex(key_hex, payload);
    if (want.size() != 64 || CRYPTO_memcmp(want.data(), mac.data(), 64) != 0) {
      tamper("fails authentication: it was not written by the worker (candidate code wrote to the channel?)");
      break;
    }
    const size_t sp2 = payload.find(' ');
    const std::string_view seq_text = payload.substr(0, sp2);
    unsigned long long seq = 0;
    bool digits = !seq_text.empty() && seq_text.size() <= 19 && sp2 != std::string_view::npos;
    for (char c : seq_text)
      digits = digits && std::isdigit(static_cast<unsigned char>(c)), seq = seq * 10 + unsigned(c - '0');
    if (!digits) {
      tamper("has no sequence number");
      break;
    }
    if (seq != expected) {
      tamper("has sequence number " + std::to_string(seq) + " where " + std::to_string(expected) +
             " was due (a repeated, dropped or reordered line)");
      break;
    }
    ++expected;
    if (done) {
      tamper("follows the worker's `done`");
      break;
    }
    json e = json::parse(payload.substr(sp2 + 1), nullptr, false);
    if (e.is_discarded() || !e.is_object() || !e.contains("type") || !e["type"].is_string()) {
      tamper("is not a JSON event");
      break;
    }
    const std::string type = e["type"];
    if (const auto& types = worker_event_types(); std::find(types.begin(), types.end(), type) == types.end()) {
      tamper("has an unknown event type '" + type + "'");
      break;
    }
    if (type == "stage") {
      const std::string name = e.value("name", "");
      if (!stages.count(name)) {
        tamper("reports a stage '" + name + "' this job did not ask for");
        break;
      }
      if (!seen_stages.insert(name).second) {
        tamper("reports the stage '" + name + "' a second time");
        break;
      }
    }
    if (type == "done") done = true;
    r.events.push_back(std::move(e));
  }
  return r;
}

}  // namespace ptxbench
