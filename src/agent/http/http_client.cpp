// One HTTP request over libcurl (a JSON POST or a GET), its network failures a typed result, never thrown.
#include "agent/http/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>

#include "core/error.h"

namespace ptxbench::http {
namespace {

void global_init_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) fail("curl_global_init failed");
  });
}

struct EasyDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using Easy = std::unique_ptr<CURL, EasyDeleter>;
using Slist = std::unique_ptr<curl_slist, SlistDeleter>;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

struct Sink {
  Response* response;
  size_t limit;
  bool over_limit = false;
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const size_t bytes = size * n;
  if (sink->response->body.size() + bytes > sink->limit) {
    sink->over_limit = true;
    return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
  }
  sink->response->body.append(data, bytes);
  return bytes;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* response = static_cast<Response*>(user);
  const std::string_view line(data, size * n);
  if (line.starts_with("HTTP/")) {
    response->headers.clear();  // a new response (after 100 Continue): keep the last one's only
    return size * n;
  }
  const auto colon = line.find(':');
  if (colon != std::string_view::npos)
    response->headers.emplace_back(lower(trim(line.substr(0, colon))), trim(line.substr(colon + 1)));
  return size * n;
}

Transport classify(CURLcode code) {
  switch (code) {
    case CURLE_OK: return Transport::ok;
    case CURLE_OPERATION_TIMEDOUT: return Transport::timeout;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return Transport::connect_failed;
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: return Transport::dropped;
    default: return Transport::other;
  }
}

void set(CURL* c, CURLoption opt, auto value) {
  if (curl_easy_setopt(c, opt, value) != CURLE_OK) fail("curl_easy_setopt(" + std::to_string(int(opt)) + ") failed");
}

}  // namespace

std::string_view to_string(Transport t) {
  switch (t) {
    case Transport::ok: return "ok";
    case Transport::timeout: return "timeout";
    case Transport::connect_failed: return "connection failed";
    case Transport::dropped: return "connection dropped";
    case Transport::too_large: return "response too large";
    case Transport::other: return "transfer failed";
  }
  return "transfer failed";
}

std::optional<std::string> Response::header(std::string_view name) const {
  const std::string want = lower(std::string(name));
  for (const auto& [k, v] : headers)
    if (k == want) return v;
  return std::nullopt;
}

Response perform(const Request& request) {
  global_init_once();
  Response response;
  Easy easy(curl_easy_init());
  if (!easy) {
    response.error = "curl_easy_init failed";
    return response;
  }
  CURL* c = easy.get();
  Slist headers;
  const auto add_header = [&headers](const std::string& line) {
    curl_slist* head = curl_slist_append(headers.get(), line.c_str());
    if (!head) fail("curl_slist_append failed");
    (void)headers.release();  // `head` is the same list, one entry longer
    headers.reset(head);
  };
  for (const auto& [k, v] : request.headers) add_header(k + ": " + v);
  add_header("Expect:");  // no "100-continue" round trip for large bodies
  char errbuf[CURL_ERROR_SIZE] = {0};
  Sink sink{&response, request.max_response_bytes};
  set(c, CURLOPT_URL, request.url.c_str());
  set(c, CURLOPT_NOSIGNAL, 1L);  // thread-safe timeouts
  set(c, CURLOPT_HTTPHEADER, headers.get());
  set(c, CURLOPT_ERRORBUFFER, errbuf);
  set(c, CURLOPT_WRITEFUNCTION, on_body);
  set(c, CURLOPT_WRITEDATA, &sink);
  set(c, CURLOPT_HEADERFUNCTION, on_header);
  set(c, CURLOPT_HEADERDATA, &response);
  set(c, CURLOPT_TIMEOUT_MS, long(request.timeout.count()));
  set(c, CURLOPT_CONNECTTIMEOUT_MS, long(request.connect_timeout.count()));
  set(c, CURLOPT_FOLLOWLOCATION, 0L);  // a redirect would resend the key to another host
  // gzip, decoded by libcurl (brotli costs servers far more CPU); a libcurl without zlib just asks
  // for identity, so a refusal of this option is not an error.
  (void)curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "gzip");
  if (request.method == "POST") {
    set(c, CURLOPT_POST, 1L);
    set(c, CURLOPT_POSTFIELDS, request.body.data());
    set(c, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.size()));
  } else if (request.method == "GET") {
    set(c, CURLOPT_HTTPGET, 1L);
  } else {
    fail("http::perform: unsupported method " + request.method);
  }

  const CURLcode code = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  curl_off_t micros = 0;
  curl_easy_getinfo(c, CURLINFO_TOTAL_TIME_T, &micros);
  response.status = int(status);
  response.seconds = double(micros) / 1e6;
  response.transport = sink.over_limit ? Transport::too_large : classify(code);
  if (response.transport != Transport::ok) {
    response.error = errbuf[0] ? std::string(errbuf) : std::string(curl_easy_strerror(code));
    if (sink.over_limit) response.error = "response body over " + std::to_string(request.max_response_bytes) + " bytes";
    while (!response.error.empty() && (response.error.back() == '\n' || response.error.back() == '\r'))
      response.error.pop_back();
  }
  return response;
}

}  // namespace ptxbench::http
