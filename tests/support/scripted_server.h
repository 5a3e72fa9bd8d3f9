// A scripted HTTP model server on 127.0.0.1 (an ephemeral port) for client tests: each request gets
// the next scripted step (a response, a connection dropped mid-body, or a body that stalls), and
// every request is recorded. Started by the constructor, stopped by the destructor.
#pragma once
#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/json.h"

namespace ptxbench::test {

struct Step {
  enum class Kind { respond, drop, stall };
  Kind kind = Kind::respond;
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string content_type = "application/json";

  static Step json_reply(const json& body, int status = 200) {
    return {Kind::respond, status, body.dump(), {}, "application/json"};
  }
  static Step raw(int status, std::string body, std::string type = "application/json") {
    return {Kind::respond, status, std::move(body), {}, std::move(type)};
  }
  // Sends the status line, the headers and half of `body`, then closes the connection.
  static Step dropped(std::string body = R"({"choices": [{"message": {"content": "cut"}}]})") {
    return {Kind::drop, 200, std::move(body), {}, "application/json"};
  }
  // Sends the headers and half of `body`, then sends nothing more until the server stops.
  static Step stalled(std::string body = R"({"choices": [{"message": {"content": "slow"}}]})") {
    return {Kind::stall, 200, std::move(body), {}, "application/json"};
  }
  Step& header(std::string name, std::string value) {
    headers.emplace_back(std::move(name), std::move(value));
    return *this;
  }
};

struct Received {
  std::string method, path, body;
  httplib::Headers headers;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
  json body_json() const { return json::parse(body, nullptr, false); }
};

class ScriptedServer {
 public:
  explicit ScriptedServer(std::vector<Step> script = {}) : script_(script.begin(), script.end()) {
    server_.set_keep_alive_max_count(1);
    const auto handler = [this](const httplib::Request& req, httplib::Response& res) { answer(req, res); };
    server_.Post(".*", handler);
    server_.Get(".*", handler);
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) throw std::runtime_error("scripted server: cannot bind 127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 500 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (!server_.is_running()) throw std::runtime_error("scripted server: did not start");
  }
  ~ScriptedServer() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    release_.notify_all();
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  void push(Step step) {
    std::lock_guard lock(mutex_);
    script_.push_back(std::move(step));
  }
  std::vector<Received> received() const {
    std::lock_guard lock(mutex_);
    return received_;
  }
  size_t requests() const { return received().size(); }

 private:
  void answer(const httplib::Request& req, httplib::Response& res) {
    Step step;
    {
      std::lock_guard lock(mutex_);
      received_.push_back({req.method, req.path, req.body, req.headers});
      if (script_.empty()) {
        res.status = 418;  // a test that sends more requests than it scripted fails visibly
        res.set_content(R"({"error": {"message": "scripted server: script exhausted"}})", "application/json");
        return;
      }
      step = std::move(script_.front());
      script_.pop_front();
    }
    res.status = step.status;
    for (const auto& [k, v] : step.headers) res.set_header(k.c_str(), v.c_str());
    if (step.kind == Step::Kind::respond) {
      res.set_content(step.body, step.content_type.c_str());
      return;
    }
    const auto body = std::make_shared<std::string>(std::move(step.body));
    const bool stall = step.kind == Step::Kind::stall;
    res.set_content_provider(body->size(), step.content_type.c_str(),
                             [this, body, stall](size_t offset, size_t, httplib::DataSink& sink) {
                               if (offset == 0) {
                                 sink.write(body->data(), body->size() / 2);
                                 return true;
                               }
                               if (stall) {
                                 std::unique_lock lock(mutex_);
                                 release_.wait_for(lock, std::chrono::seconds(30), [this] { return stopping_; });
                               }
                               return false;  // closes the connection with the body incomplete
                             });
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable release_;
  bool stopping_ = false;
  std::deque<Step> script_;
  std::vector<Received> received_;
};

}  // namespace ptxbench::test
