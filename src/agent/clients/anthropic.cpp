// Anthropic Messages API (POST {base_url}/v1/messages): the system text as a top-level field,
// max_tokens always sent, optional extended thinking whose text becomes ChatReply::reasoning, and
// stop_reason and error types mapped to provider outcomes. 429 and 529 (overloaded) are retried.
#include <algorithm>
#include <cctype>

#include "agent/clients/model_client.h"
#include "agent/http/chat_transport.h"
#include "agent/http/json_fields.h"
#include "core/error.h"

namespace ptxbench {
namespace {

const HttpDefaults kDefaults{"https://api.anthropic.com", "ANTHROPIC_API_KEY", 8};
constexpr long long kDefaultMaxTokens = 16384;
constexpr const char* kDefaultVersion = "2023-06-01";

std::vector<std::string> known_options() {
  std::vector<std::string> keys = kHttpOptionKeys;
  for (const char* k :
       {"max_tokens", "temperature", "top_p", "top_k", "thinking_budget", "anthropic_version", "extra_body"})
    keys.emplace_back(k);
  return keys;
}

// The HTTP status each error type is documented with.
int status_of_type(const std::string& type) {
  static const std::pair<const char*, int> kTypes[] = {{"invalid_request_error", 400}, {"authentication_error", 401},
                                                       {"billing_error", 402},         {"permission_error", 403},
                                                       {"not_found_error", 404},       {"request_too_large", 413},
                                                       {"rate_limit_error", 429},      {"api_error", 500},
                                                       {"timeout_error", 504},         {"overloaded_error", 529}};
  for (const auto& [name, status] : kTypes)
    if (type == name) return status;
  return 0;
}

// {"type": "error", "error": {"type": ..., "message": ...}} under HTTP `status` (2xx when the error
// came inside a successful response).
AttemptResult read_error_object(int status, const json& error) {
  const std::string type = text_field(error, "type");
  const std::string message = text_field(error, "message");
  const std::string what = "HTTP " + std::to_string(status) + (type.empty() ? "" : " " + type) + ": " +
                           one_line(message.empty() ? error.dump() : message);
  std::string lowered = message;
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  if (type == "billing_error" || status == 402 || lowered.find("credit balance") != std::string::npos)
    return AttemptResult::done(ProviderOutcome::quota_exhausted, what);
  if (type == "request_too_large" || mentions_context_limit(message))
    return AttemptResult::done(ProviderOutcome::request_too_large, what);
  int effective = status / 100 == 2 || status == 0 ? status_of_type(type) : status;
  if (effective == 0) effective = 400;
  return read_error_status(effective, what);
}

class AnthropicClient : public ModelClient {
 public:
  explicit AnthropicClient(const ClientConfig& config)
      : model_(config.model),
        options_(config.args, config.provider, known_options()),
        transport_(config.provider, HttpSettings::from(options_, kDefaults), config.clock) {
    const std::string& base = transport_.settings().base_url;
    api_root_ = base.ends_with("/v1") ? base : base + "/v1";
    version_ = options_.text_or("anthropic_version", kDefaultVersion);
    const ChatRequest probe;
    (void)build_body(probe, options_);  // an option error shows when the client is made
  }

  std::string provider() const override { return transport_.provider(); }
  std::string model() const override { return model_; }

  ChatReply complete(const ChatRequest& request, const StatusFn& status) override {
    const auto body = [this](const ChatRequest& r, const Options& o) { return build_body(r, o); };
    return transport_.complete(api_root_ + "/messages", headers(), request, options_, body, interpret, status);
  }

  // A cheap authenticated GET of the model itself: checks the key and that the model exists.
  ValidateResult validate() override {
    if (auto problem = transport_.key_problem(); !problem.empty()) return {false, problem};
    const std::string url = api_root_ + "/models/" + model_;
    const http::Response r = transport_.get(url, headers(), Millis(15000));
    if (r.transport != http::Transport::ok)
      return {false, "GET " + url + ": " + std::string(http::to_string(r.transport)) + ": " + r.error};
    if (r.status == 404) return {false, "GET " + url + ": the API does not know model '" + model_ + "'"};
    if (r.status != 200)
      return {false, "GET " + url + " answered HTTP " + std::to_string(r.status) + ": " + one_line(r.body)};
    return {true, "anthropic endpoint " + api_root_ + " answers and knows model " + model_ + "; key from " +
                      transport_.settings().api_key_env};
  }

 private:
  http::Headers headers() const {
    http::Headers h{{"Content-Type", "application/json"},
                    {"Accept", "application/json"},
                    {"User-Agent", "ptxbench"},
                    {"anthropic-version", version_}};
    if (!transport_.key().empty()) h.emplace_back("x-api-key", transport_.key());
    return h;
  }

  json build_body(const ChatRequest& request, const Options& o) const {
    json body = json::object();
    body["model"] = model_;
    const auto budget = o.integer("thinking_budget");
    if (budget && *budget < 1024)
      throw InputError("option 'thinking_budget' must be at least 1024 tokens (the API's minimum)");
    long long max_tokens = o.integer("max_tokens").value_or(budget ? *budget + kDefaultMaxTokens : kDefaultMaxTokens);
    if (max_tokens < 1) throw InputError("option 'max_tokens' must be at least 1");
    if (budget && max_tokens <= *budget)
      throw InputError("option 'max_tokens' (" + std::to_string(max_tokens) + ") must exceed 'thinking_budget' (" +
                       std::to_string(*budget) + ")");
    body["max_tokens"] = max_tokens;
    if (!request.system.empty()) body["system"] = request.system;
    json messages = json::array();
    for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
    body["messages"] = std::move(messages);
    if (budget) body["thinking"] = {{"type", "enabled"}, {"budget_tokens", *budget}};
    if (auto t = o.number("temperature")) body["temperature"] = *t;
    if (auto p = o.number("top_p")) body["top_p"] = *p;
    if (auto k = o.integer("top_k")) body["top_k"] = *k;
    if (auto extra = o.object("extra_body"))
      for (const auto& [k, v] : extra->items()) body[k] = v;
    return body;
  }

  static AttemptResult interpret(const http::Response& r, ChatReply& reply) {
    const json body = json::parse(r.body, nullptr, false);
    const bool parsed = !body.is_discarded() && body.is_object();
    if (r.status / 100 != 2) {
      if (parsed && field(body, "error")) return read_error_object(r.status, body.at("error"));
      return read_error_status(r.status, "HTTP " + std::to_string(r.status) + ": " + one_line(r.body, 200));
    }
    if (!parsed)
      return AttemptResult::again("malformed JSON",
                                  "HTTP " + std::to_string(r.status) + " with a body that is not JSON (" +
                                      std::to_string(r.body.size()) + " bytes): " + one_line(r.body, 120));
    if (text_field(body, "type") == "error" || field(body, "error"))
      return read_error_object(r.status, field(body, "error") ? body.at("error") : body);
    reply.model = text_field(body, "model");
    if (const json* usage = field(body, "usage")) {
      // input_tokens excludes what was read from or written to the prompt cache; all of it was input.
      std::optional<long long> input = count_field(*usage, "input_tokens");
      for (const char* cached : {"cache_creation_input_tokens", "cache_read_input_tokens"})
        if (auto n = count_field(*usage, cached); n && input) *input += *n;
      reply.usage.input_tokens = input;
      reply.usage.cached_input_tokens = count_field(*usage, "cache_read_input_tokens");
      reply.usage.output_tokens = count_field(*usage, "output_tokens");
    }
    const json* content = field(body, "content");
    if (!content || !content->is_array())
      return AttemptResult::again("malformed response", "HTTP 200 without a content list: " + one_line(r.body, 120));
    bool thought = false;
    for (const auto& block : *content) {
      const std::string type = text_field(block, "type");
      if (type == "text") {
        reply.content += text_field(block, "text");
      } else if (type == "thinking") {
        const std::string t = text_field(block, "thinking");
        reply.reasoning += (reply.reasoning.empty() || t.empty() ? "" : "\n") + t;
        thought = true;
      } else if (type == "redacted_thinking") {
        thought = true;  // encrypted: no text to keep
      }
    }
    thought = thought || !blank(reply.reasoning);
    reply.finish_reason = text_field(body, "stop_reason");
    const std::string& stop = reply.finish_reason;
    if (stop == "refusal")
      return AttemptResult::done(ProviderOutcome::refused, "stop_reason refusal: the model declined");
    if (blank(reply.content)) {
      if (thought)
        return AttemptResult::done(ProviderOutcome::reasoning_only,
                                   "no answer text: the tokens went to thinking (stop_reason " + stop + ")");
      return AttemptResult::done(ProviderOutcome::empty, "no answer text and no thinking (stop_reason " + stop + ")");
    }
    if (stop == "max_tokens" || stop == "model_context_window_exceeded")
      return AttemptResult::done(ProviderOutcome::truncated, "stop_reason " + stop + ": the answer was cut");
    if (stop == "pause_turn")  // the API paused a long turn: what arrived is a partial answer
      return AttemptResult::done(ProviderOutcome::truncated,
                                 "stop_reason pause_turn: the provider paused the turn; the answer is partial");
    return AttemptResult::done(ProviderOutcome::ok);
  }

  std::string model_;
  Options options_;
  ChatTransport transport_;
  std::string api_root_;
  std::string version_;
};

std::unique_ptr<ModelClient> make_anthropic(const ClientConfig& config) {
  return std::make_unique<AnthropicClient>(config);
}

}  // namespace

PTXBENCH_REGISTER_CLIENT("anthropic", make_anthropic);

}  // namespace ptxbench
