// Parses the --queue argument: empty for SQLite, redis://HOST:PORT/[DB][?stream=NAME] for Redis.
#include "service/queue/redis_url.h"

#include <cctype>
#include <charconv>

#include "core/error.h"

namespace ptxbench {
namespace {

constexpr std::string_view kScheme = "redis://";

[[noreturn]] void bad(const std::string& url, const std::string& why) {
  throw InputError("--queue '" + url + "': " + why + " (expected redis://HOST:PORT/[DB][?stream=NAME])");
}

int parse_int(const std::string& url, std::string_view s, const char* what, int lo, int hi) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < lo || v > hi)
    bad(url, std::string(what) + " '" + std::string(s) + "' is not a number in " + std::to_string(lo) + ".." +
                 std::to_string(hi));
  return v;
}

bool valid_stream_name(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  return true;
}

}  // namespace

std::string RedisEndpoint::url() const {
  return "redis://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port) +
         "/" + std::to_string(db) + "?stream=" + stream;
}

bool is_redis_url(const std::string& spec) { return spec.rfind(kScheme, 0) == 0; }

RedisEndpoint parse_redis_url(const std::string& url) {
  if (!is_redis_url(url)) bad(url, "not a redis:// URL");
  std::string_view rest(url);
  rest.remove_prefix(kScheme.size());
  RedisEndpoint e;
  const size_t q = rest.find('?');
  std::string_view query = q == std::string_view::npos ? std::string_view() : rest.substr(q + 1);
  rest = rest.substr(0, q);
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  if (authority.find('@') != std::string_view::npos)
    bad(url, "credentials in the URL are not supported (keep Redis on a private network)");
  std::string_view port;
  bool has_port = false;
  if (!authority.empty() && authority.front() == '[') {  // [IPv6]:port
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) bad(url, "an unclosed '[' in the host");
    e.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') bad(url, "junk after the IPv6 host");
      port = after.substr(1), has_port = true;
    }
  } else {
    const size_t colon = authority.find(':');
    e.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1), has_port = true;
  }
  if (e.host.empty()) bad(url, "no host");
  if (has_port) e.port = parse_int(url, port, "port", 1, 65535);
  if (!path.empty()) e.db = parse_int(url, path, "database number", 0, 15);
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view kv = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const size_t eq = kv.find('=');
    if (eq == std::string_view::npos || kv.substr(0, eq) != "stream")
      bad(url, "unknown parameter '" + std::string(kv.substr(0, eq)) + "' (only stream=NAME)");
    const std::string_view name = kv.substr(eq + 1);
    if (!valid_stream_name(name))
      bad(url, "stream name '" + std::string(name) + "' must be 1-64 letters, digits, '-', '_' or '.'");
    e.stream = std::string(name);
  }
  return e;
}

}  // namespace ptxbench
