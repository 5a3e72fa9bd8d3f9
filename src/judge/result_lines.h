// Reads the worker's result channel (runner/result_channel.h: `<hmac> <seq> <json>` lines) and
// accepts it only when every line verifies with the job's key, the sequence numbers run 0, 1, 2,
// ... with none missing or repeated, every event is of a known type, every stage is one the
// parent asked for and comes once, and nothing follows `done`. Anything else means code other
// than the worker's wrote to the channel (candidate code in the worker process: `forbidden`).
#pragma once
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"

namespace ptxbench {

struct ChannelReport {
  std::vector<json> events;
  std::optional<std::string> tampered;  // why the channel cannot be trusted (events then stop before it)
  bool unfinished_line = false;         // the worker was killed while writing its last line
};

// `stages`: the stage names this job may report, each at most once. `killed`: the worker did
// not end on its own (an unfinished last line is then no tampering). Never throws.
ChannelReport read_result_lines(std::string_view bytes, std::string_view key_hex, const std::set<std::string>& stages,
                                bool killed);

// 32 fresh random bytes (OpenSSL RAND_bytes), as 64 hex digits. Throws Error when none are available.
std::string new_channel_key();
// HMAC-SHA256 (OpenSSL) as 64 lowercase hex digits; an empty string for a key that is not hex.
std::string hmac_sha256_hex(std::string_view key_hex, std::string_view data);

}  // namespace ptxbench
