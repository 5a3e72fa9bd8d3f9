// A scripted in-process model client for tests and the pipeline benchmark: each request is
// answered by a function after a fixed latency; every request is kept, and the number of calls
// in flight at once is measured (to see pipelining).
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "agent/clients/model_client.h"

namespace ptxbench::test {

class ScriptedClient : public ModelClient {
 public:
  using Script = std::function<ChatReply(const ChatRequest&)>;
  explicit ScriptedClient(Script script, std::chrono::milliseconds latency = std::chrono::milliseconds(0))
      : script_(std::move(script)), latency_(latency) {}

  std::string provider() const override { return "scripted"; }
  std::string model() const override { return "scripted"; }
  ChatReply complete(const ChatRequest& request, const StatusFn&) override {
    const int now = ++in_flight_;
    {
      std::lock_guard lock(mutex_);
      max_in_flight_ = std::max(max_in_flight_, now);
      requests_.push_back(request);
    }
    if (latency_.count() > 0) std::this_thread::sleep_for(latency_);
    ChatReply reply = script_(request);
    --in_flight_;
    return reply;
  }
  ValidateResult validate() override { return {true, "scripted"}; }

  std::vector<ChatRequest> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  int max_in_flight() const {
    std::lock_guard lock(mutex_);
    return max_in_flight_;
  }

 private:
  Script script_;
  std::chrono::milliseconds latency_;
  std::atomic<int> in_flight_{0};
  mutable std::mutex mutex_;
  int max_in_flight_ = 0;
  std::vector<ChatRequest> requests_;
};

// An answer holding `code` in one ```cuda block.
inline ChatReply cuda_reply(const std::string& code, ProviderOutcome outcome = ProviderOutcome::ok) {
  ChatReply r;
  r.outcome = outcome;
  r.content = "Here is the kernel.\n\n```cuda\n" + code + "\n```\n";
  r.finish_reason = outcome == ProviderOutcome::truncated ? "length" : "stop";
  r.model = "scripted";
  r.usage = {1000, 200, 50};
  r.usage.cached_input_tokens = 400;
  r.reasoning = "thinking about tiles";
  r.attempts = 1;
  return r;
}

}  // namespace ptxbench::test
