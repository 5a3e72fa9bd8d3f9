// replay:PATH re-plays the replies of a recorded run, so anyone can re-score a published run on
// their own GPU: for each (problem, trajectory, turn) it returns the recorded answer text,
// reasoning, finish reason, usage, outcome and response bytes. PATH is a JSONL export
// (`ptxbench runs export RUN --jsonl`), a workspace folder or its ptxbench.db; --model-arg run=ID
// picks the run when PATH holds several. A turn that was not recorded is an error that stops the
// run (resumable), naming the turn.
// Arguments: run=ID, latency_ms=N (wait before answering, to replay at a model's pace).
#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include "agent/clients/client_args.h"
#include "store/recorded_replies.h"

namespace ptxbench {
namespace {

class ReplayClient final : public ModelClient {
 public:
  explicit ReplayClient(const ClientConfig& c) : path_(c.model) {
    require_known_args(c, {"run", "latency_ms"});
    latency_ms_ = millis_arg(c, "latency_ms");
    const std::string run = c.args.contains("run") && c.args["run"].is_string() ? c.args["run"].get<std::string>() : "";
    if (auto s = read_recorded_run(path_, run, &recorded_); !s.ok) throw InputError("replay:" + path_ + ": " + s.error);
  }

  std::string provider() const override { return "replay"; }
  std::string model() const override { return path_; }

  ChatReply complete(const ChatRequest& request, const StatusFn&) override {
    if (latency_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(latency_ms_));
    const TurnKey key{request.at.problem, request.at.trajectory, request.at.turn};
    auto it = recorded_.replies.find(key);
    if (it == recorded_.replies.end())
      throw InputError("replay:" + path_ + ": run " + recorded_.run_id + " has no recorded turn " + request.at.problem +
                       "/" + std::to_string(request.at.trajectory) + "/" + std::to_string(request.at.turn) + " (" +
                       extent() + "); run with at most the recorded --trajectories and --turns");
    const RecordedReply& r = it->second;
    ChatReply reply;
    auto outcome = provider_outcome_from_string(r.outcome);
    if (!outcome)
      throw InputError("replay:" + path_ + ": turn " + request.at.problem + "/" +
                       std::to_string(request.at.trajectory) + "/" + std::to_string(request.at.turn) +
                       " has an unknown outcome '" + r.outcome + "'");
    reply.outcome = *outcome;
    reply.content = r.content;
    reply.reasoning = r.reasoning;
    reply.finish_reason = r.finish_reason;
    reply.model = r.model;
    reply.usage = {r.input_tokens, r.output_tokens, r.reasoning_tokens};
    reply.error = r.error;
    reply.attempts = 1;
    reply.response_body = r.response_body;
    return reply;
  }

  ValidateResult validate() override {
    return {true, "replay: " + std::to_string(recorded_.replies.size()) + " recorded turns of run " + recorded_.run_id +
                      " from " + path_ + " (" + extent() + ")"};
  }

 private:
  // "gemm: trajectories 0-0, turns 0-1; mha_fwd: ..."
  std::string extent() const {
    std::map<std::string, std::pair<int, int>> max;
    for (const auto& [k, v] : recorded_.replies) {
      auto& m = max.try_emplace(std::get<0>(k), -1, -1).first->second;
      m.first = std::max(m.first, std::get<1>(k));
      m.second = std::max(m.second, std::get<2>(k));
    }
    std::string s;
    for (const auto& [p, m] : max)
      s += (s.empty() ? "" : "; ") + p + ": trajectories 0-" + std::to_string(m.first) + ", turns 0-" +
           std::to_string(m.second);
    return s.empty() ? "nothing recorded" : "recorded: " + s;
  }

  std::string path_;
  long long latency_ms_ = 0;
  RecordedRun recorded_;
};

std::unique_ptr<ModelClient> make_replay_client(const ClientConfig& c) { return std::make_unique<ReplayClient>(c); }

}  // namespace

PTXBENCH_REGISTER_CLIENT("replay", make_replay_client);

}  // namespace ptxbench
