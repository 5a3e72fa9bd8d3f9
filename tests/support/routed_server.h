// An OpenAI-compatible model server on 127.0.0.1 whose answer to each request is computed by a
// function of the request's JSON body (a teacher that answers by what it is asked, unlike
// ScriptedServer's fixed sequence). Every request is recorded with when its answer was sent.
#pragma once
#include <httplib.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/json.h"

namespace ptxbench::test {

struct RoutedAnswer {
  std::string content;  // the assistant's message
  int delay_ms = 0;     // wait before answering (a slow teacher, or one past the client's timeout)
  int status = 200;
};

struct RoutedRequest {
  json body;
  std::chrono::steady_clock::time_point received, answered;  // answered: default until the answer is sent
};

class RoutedServer {
 public:
  using Route = std::function<RoutedAnswer(const json& body)>;
  explicit RoutedServer(Route route) : route_(std::move(route)) {
    server_.Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
      const json body = json::parse(req.body, nullptr, false);
      size_t index = 0;
      {
        std::lock_guard lock(mutex_);
        index = requests_.size();
        requests_.push_back({body, std::chrono::steady_clock::now(), {}});  // recorded on receipt
      }
      const RoutedAnswer a = route_(body);
      if (a.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(a.delay_ms));
      const json reply = {{"id", "chatcmpl-test"},
                          {"object", "chat.completion"},
                          {"model", "teacher"},
                          {"choices", json::array({{{"index", 0},
                                                    {"message", {{"role", "assistant"}, {"content", a.content}}},
                                                    {"finish_reason", "stop"}}})},
                          {"usage", {{"prompt_tokens", 1200}, {"completion_tokens", 300}, {"total_tokens", 1500}}}};
      res.status = a.status;
      res.set_content(reply.dump(), "application/json");
      std::lock_guard lock(mutex_);
      requests_[index].answered = std::chrono::steady_clock::now();
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) throw std::runtime_error("routed server: cannot bind 127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 500 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ~RoutedServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<RoutedRequest> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  Route route_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::vector<RoutedRequest> requests_;
};

}  // namespace ptxbench::test
