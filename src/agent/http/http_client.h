// One HTTP request over libcurl: a JSON POST (or a GET) with headers and timeouts. Network
// failures are a typed result, never an exception: the caller decides what to retry.
#pragma once
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ptxbench::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Request {
  std::string method = "POST";  // "POST" or "GET"
  std::string url;
  Headers headers;                                              // sent as given; keys belong here and nowhere else
  std::string body;                                             // POST only
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  // the whole transfer
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(10)};
  size_t max_response_bytes = size_t(256) << 20;  // a larger body fails as `too_large`
};

// What happened on the wire. Anything but `ok` means no complete HTTP response arrived.
enum class Transport {
  ok,              // a complete response (any HTTP status)
  timeout,         // connect or transfer timeout
  connect_failed,  // refused, unreachable, DNS
  dropped,         // the connection closed or broke before the response was complete
  too_large,       // the body passed max_response_bytes
  other,           // any other libcurl failure (bad URL, TLS, ...)
};
std::string_view to_string(Transport t);

struct Response {
  Transport transport = Transport::other;
  int status = 0;     // HTTP status when a status line arrived (also for a dropped body)
  Headers headers;    // names lower-cased, of the last response (no interim 100 Continue)
  std::string body;   // the exact bytes received (partial when the transfer failed)
  std::string error;  // libcurl's message when transport != ok
  double seconds = 0;
  std::optional<std::string> header(std::string_view name) const;  // case-insensitive
};

// Thread-safe: every call has its own libcurl handle.
Response perform(const Request& request);

}  // namespace ptxbench::http
