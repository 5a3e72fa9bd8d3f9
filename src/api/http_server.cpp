// The reward API over HTTP (cpp-httplib): routes onto RewardApi, JSON in and out, Retry-After on refusals.
#include "api/http_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <thread>

#include "core/error.h"

namespace ptxbench::api {
namespace {

constexpr const char* kJson = "application/json";
const char* const kKey = "([^/]+)";  // checked by RewardApi, so a bad key gets a JSON 400, not a 404

void reply(httplib::Response& res, const ApiResponse& r) {
  res.status = r.status;
  if (r.retry_after_seconds > 0) res.set_header("Retry-After", std::to_string(r.retry_after_seconds));
  res.set_content(r.body.dump(), kJson);
}

std::string reason_phrase(int status) {
  switch (status) {
    case 404:
      return "no such route (the API: POST /v1/submissions, GET /v1/submissions/{key}, "
             "GET /v1/results/{key}, GET /v1/health)";
    case 405: return "method not allowed on this route";
    case 413: return "the request body is too large";
    default: return "HTTP " + std::to_string(status);
  }
}

}  // namespace

struct HttpServer::Impl {
  httplib::Server server;
  std::thread listener;
  std::atomic<bool> listen_returned{false};
};

HttpServer::HttpServer(RewardApi& api, const ListenAddress& address, HttpServerOptions options)
    : impl_(std::make_unique<Impl>()), host_(address.host) {
  auto& s = impl_->server;
  const int threads = options.threads;
  s.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  s.set_payload_max_length(options.max_body_bytes);
  // httplib's default adds SO_REUSEPORT, which lets a second server bind the same port and take a
  // share of its connections: only SO_REUSEADDR (a restarted server binds past TIME_WAIT).
  s.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  s.Post("/v1/submissions",
         [&api](const httplib::Request& req, httplib::Response& res) { reply(res, api.submit(req.body)); });
  s.Get(std::string("/v1/submissions/") + kKey, [&api](const httplib::Request& req, httplib::Response& res) {
    double wait = 0;
    if (req.has_param("wait")) {
      const std::string w = req.get_param_value("wait");
      try {
        size_t used = 0;
        wait = std::stod(w, &used);
        if (used != w.size() || !(wait >= 0)) throw std::invalid_argument(w);
      } catch (const std::exception&) {
        return reply(res,
                     error_response(400, "invalid query", {{"wait", "'" + w + "' is not a number of seconds >= 0"}}));
      }
    }
    reply(res, api.status(req.matches[1].str(), wait));
  });
  s.Get(std::string("/v1/results/") + kKey,
        [&api](const httplib::Request& req, httplib::Response& res) { reply(res, api.result(req.matches[1].str())); });
  s.Get("/v1/health", [&api](const httplib::Request&, httplib::Response& res) { reply(res, api.health()); });
  // Refusals httplib makes itself (no route, a body over the limit) get the same JSON error body.
  s.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    reply(res, error_response(res.status, reason_phrase(res.status)));
  });
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    reply(res, error_response(500, "the server failed on this request: " + what));
  });
  port_ = address.port == 0 ? s.bind_to_any_port(address.host)
                            : (s.bind_to_port(address.host, address.port) ? address.port : -1);
  if (port_ <= 0)
    throw Error("the reward API cannot listen on " + address.host + ":" + std::to_string(address.port) +
                " (address in use, or not an address of this host)");
  impl_->listener = std::thread([this] {
    impl_->server.listen_after_bind();
    impl_->listen_returned = true;
  });
  // httplib's stop() does nothing before its loop runs (and join would then wait forever): the
  // server is only handed out once it is listening.
  while (!impl_->server.is_running() && !impl_->listen_returned)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

HttpServer::~HttpServer() { stop(); }

std::string HttpServer::url() const {
  const bool v6 = host_.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host_ + "]" : host_) + ":" + std::to_string(port_);
}

void HttpServer::stop() {
  impl_->server.stop();
  if (impl_->listener.joinable()) impl_->listener.join();
}

}  // namespace ptxbench::api
