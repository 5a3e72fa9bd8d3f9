// The reward API over HTTP (cpp-httplib): routes onto RewardApi, JSON in and out, Retry-After on
// refusals. Listens from construction until stop() or destruction, on its own threads.
//   POST /v1/submissions              one candidate or {"candidates": [...]}: 202, 400, 409, 413, 429, 503
//   GET  /v1/submissions/{key}[?wait=S]  the state, long-polled up to S seconds: 200, 400, 404, 503
//   GET  /v1/results/{key}            the record and the reward view: 200, 202 (not yet), 404, 503
//   GET  /v1/health                   200, or 503 while draining
// Anything else is 404, with a JSON error body as every refusal has.
#pragma once
#include <memory>

#include "api/listen_address.h"
#include "api/reward_api.h"

namespace ptxbench::api {

struct HttpServerOptions {
  int threads = 64;  // concurrent requests (each long-poll holds one)
  size_t max_body_bytes = 64 << 20;
};

class HttpServer {
 public:
  // Binds (throws Error when it cannot) and starts serving.
  HttpServer(RewardApi& api, const ListenAddress& address, HttpServerOptions options = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }
  std::string url() const;
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string host_;
  int port_ = 0;
};

}  // namespace ptxbench::api
