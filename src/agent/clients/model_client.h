// The one interface every model client implements (OpenAI-compatible, Anthropic, replay, files).
// A client turns one chat request into one reply; every provider outcome is a typed value in the
// reply (never an exception, never a "wrong kernel"). Each client is one file in this folder that
// registers itself by provider name; the agent never knows which provider it talks to.
#pragma once
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"

namespace ptxbench {

class RetryClock;  // agent/http/retry.h

struct ChatMessage {
  std::string role;  // "user" or "assistant" (the system text is ChatRequest::system)
  std::string content;
};

// Where in a run a request belongs; replay and files clients answer from it, HTTP clients log it.
struct TurnAddress {
  std::string run;      // run id
  std::string problem;  // problem name
  int trajectory = 0;   // 0-based
  int turn = 0;         // 0-based
};

struct ChatRequest {
  TurnAddress at;
  std::string system;
  std::vector<ChatMessage> messages;  // oldest first; the last one is the user's
  json options = json::object();      // resolved provider options (temperature, max_tokens, ...)
};

// What the provider did with the request. Only `ok` carries a usable answer for sure; the agent
// still extracts code from `truncated` content. Every value except infra_error and
// quota_exhausted is a turn the model spent (it produced no kernel unless ok/truncated).
enum class ProviderOutcome {
  ok,                 // an answer
  truncated,          // finish_reason "length" / stop_reason "max_tokens"
  refused,            // refusal or content filter
  reasoning_only,     // no answer text: the token budget went to reasoning
  empty,              // no answer text and no reasoning
  request_too_large,  // HTTP 413 or a context-length error: not retried
  provider_error,     // an error the request caused (400, an error object inside a 200 body): not retried
  quota_exhausted,    // billing/quota: the run stops, nothing is retried
  infra_error,        // network, timeout, 429/5xx/529 beyond the retry deadline: retried later, never counted
};
std::string_view to_string(ProviderOutcome o);
std::optional<ProviderOutcome> provider_outcome_from_string(std::string_view s);

struct Usage {
  std::optional<long long> input_tokens, output_tokens, reasoning_tokens;  // nullopt: not reported
  std::optional<long long> cached_input_tokens = std::nullopt;  // of input_tokens, read from the prompt cache
};

struct ChatReply {
  ProviderOutcome outcome = ProviderOutcome::infra_error;
  std::string content;        // the answer text (may be partial when truncated)
  std::string reasoning;      // reasoning text when the provider returns it
  std::string finish_reason;  // the provider's own value ("stop", "length", "end_turn", ...)
  std::string model;          // the model the provider says answered
  Usage usage;
  std::string error;    // one line: what went wrong (empty when ok)
  int http_status = 0;  // of the last attempt (0: none, e.g. replay)
  int attempts = 0;
  double seconds = 0;                // wall time of the whole call, retries included
  std::vector<std::string> retries;  // one line per retry: "retrying (429, 12 s): attempt 1 of at most 10 failed: ..."
  std::string request_body;          // the exact bytes sent (no key: keys travel in headers only)
  std::string response_body;         // the exact bytes of the last response received
};

// Called from complete() with a visible line (retries, waits): never a silent stall.
using StatusFn = std::function<void(const std::string& line)>;

struct ValidateResult {
  bool ok = false;
  std::string message;  // what was checked, or what is wrong (missing key variable, endpoint down)
};

class ModelClient {
 public:
  virtual ~ModelClient() = default;
  virtual std::string provider() const = 0;  // "openai", "anthropic", "replay", "files", ...
  virtual std::string model() const = 0;
  // Thread-safe: the agent calls it from several trajectories at once.
  virtual ChatReply complete(const ChatRequest& request, const StatusFn& status) = 0;
  // --validate: keys present, endpoint reachable, model known; generates nothing.
  virtual ValidateResult validate() = 0;
};

// Options every client is made from: the part of `--model PROVIDER:MODEL` after the colon, the
// `--model-arg k=v` pairs (and the run config's [model] table), merged.
struct ClientConfig {
  std::string provider;
  std::string model;  // for replay: PATH; for files: DIR
  json args = json::object();
  // The time source of the HTTP clients' retry waits; nullptr: the real clock. Tests pass a clock
  // that skips its sleeps (agent/http/retry.h: SkippingClock). Other clients ignore it.
  std::shared_ptr<RetryClock> clock = nullptr;
};

using ClientFactory = std::function<std::unique_ptr<ModelClient>(const ClientConfig&)>;
// Throws InputError for an unknown provider, naming the known ones.
std::unique_ptr<ModelClient> make_client(const ClientConfig& config);
// "openai:gpt-5" -> {openai, gpt-5}; "replay:runs/x" -> {replay, runs/x}. Throws InputError.
ClientConfig parse_model_spec(const std::string& spec);
std::vector<std::string> known_providers();

struct ClientRegistrar {
  ClientRegistrar(const std::string& provider, ClientFactory factory);
};

}  // namespace ptxbench

#define PTXBENCH_REGISTER_CLIENT(provider, factory) \
  static ::ptxbench::ClientRegistrar ptxbench_client_registrar_##factory(provider, factory)
