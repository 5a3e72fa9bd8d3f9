// OpenAI-compatible Chat Completions (POST {base_url}/chat/completions): OpenAI itself, OpenRouter,
// vLLM, SGLang and llama.cpp's server, each registered under its own provider name with its usual
// base URL and key variable. Reads the answer, the reasoning text under any of the names these
// servers use, the finish reason and usage into a ChatReply; every provider outcome is a value.
#include <algorithm>
#include <cctype>

#include "agent/clients/model_client.h"
#include "agent/http/chat_transport.h"
#include "agent/http/json_fields.h"
#include "core/error.h"

namespace ptxbench {
namespace {

struct Flavor {
  const char* provider;
  HttpDefaults defaults;
  bool openai_api;        // the real OpenAI API: max_completion_tokens for reasoning models
  bool reasoning_object;  // OpenRouter: reasoning_effort goes as {"reasoning": {"effort": ...}}
};

const Flavor kFlavors[] = {
    {"openai", {"https://api.openai.com/v1", "OPENAI_API_KEY", 16}, true, false},
    {"openrouter", {"https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", 16}, false, true},
    {"vllm", {"http://127.0.0.1:8000/v1", "", 32}, false, false},
    {"sglang", {"http://127.0.0.1:30000/v1", "", 32}, false, false},
    {"llamacpp", {"http://127.0.0.1:8080/v1", "", 2}, false, false},
};

std::vector<std::string> openai_known_options() {
  std::vector<std::string> keys = kHttpOptionKeys;
  for (const char* k : {"temperature", "top_p", "seed", "max_tokens", "max_completion_tokens", "token_param",
                        "reasoning_effort", "extra_body"})
    keys.emplace_back(k);
  return keys;
}

// OpenAI's reasoning models take max_completion_tokens and refuse max_tokens.
bool is_openai_reasoning_model(const std::string& model) {
  for (const char* prefix : {"o1", "o3", "o4", "gpt-5"})
    if (model.starts_with(prefix)) return true;
  return false;
}

// "content" is a string, null, or (some servers) a list of parts with "text".
std::string content_text(const json& message) {
  const json* c = field(message, "content");
  if (!c) return "";
  if (c->is_string()) return c->get<std::string>();
  std::string out;
  if (c->is_array())
    for (const auto& part : *c) out += text_field(part, "text");
  return out;
}

// reasoning_content (vLLM, SGLang, llama.cpp, DeepSeek), reasoning (OpenRouter, newer vLLM), or
// OpenRouter's reasoning_details (text or summary entries; encrypted ones carry no text).
std::string reasoning_text(const json& message) {
  for (const char* key : {"reasoning_content", "reasoning"})
    if (auto s = text_field(message, key); !s.empty()) return s;
  std::string out;
  if (const json* details = field(message, "reasoning_details"); details && details->is_array())
    for (const auto& d : *details) {
      auto s = text_field(d, "text");
      if (s.empty()) s = text_field(d, "summary");
      if (!s.empty()) out += (out.empty() ? "" : "\n") + s;
    }
  return out;
}

// An OpenAI-style error object ({"message", "type", "code"}) or a bare string, under HTTP `status`
// (200 when it came inside a successful response).
AttemptResult openai_error_object(int status, const json& error) {
  const std::string message = error.is_string() ? error.get<std::string>() : text_field(error, "message");
  const std::string type = text_field(error, "type");
  const std::string code = code_field(error, "code");
  std::string what = "HTTP " + std::to_string(status);
  for (const auto& part : {type, code})
    if (!part.empty() && what.find(part) == std::string::npos) what += " " + part;
  what += ": " + one_line(message.empty() ? error.dump() : message);

  if (code == "insufficient_quota" || type == "insufficient_quota" || code == "billing_hard_limit_reached" ||
      code == "402" || status == 402)
    return AttemptResult::done(ProviderOutcome::quota_exhausted, what);
  if (code == "context_length_exceeded" || code == "string_above_max_length" || code == "413" ||
      type == "exceed_context_size_error" || mentions_context_limit(message))
    return AttemptResult::done(ProviderOutcome::request_too_large, what);
  // OpenRouter puts the upstream status in `code` of an error inside a 200 body.
  int effective = status;
  if (status / 100 == 2) {
    effective = 400;
    if (!code.empty() && std::all_of(code.begin(), code.end(), [](unsigned char ch) { return std::isdigit(ch) != 0; }))
      effective = std::stoi(code);
    if (code == "rate_limit_exceeded") effective = 429;
    if (code == "server_error" || type == "server_error") effective = 500;
  }
  return read_error_status(effective, what);
}

class OpenAiCompatibleClient : public ModelClient {
 public:
  OpenAiCompatibleClient(const ClientConfig& config, const Flavor& flavor)
      : flavor_(flavor),
        model_(config.model),
        options_(config.args, config.provider, openai_known_options()),
        transport_(config.provider, HttpSettings::from(options_, flavor.defaults), config.clock) {
    const ChatRequest probe;
    (void)build_body(probe, options_);  // an option error shows when the client is made, not per request
  }

  std::string provider() const override { return transport_.provider(); }
  std::string model() const override { return model_; }

  ChatReply complete(const ChatRequest& request, const StatusFn& status) override {
    const auto body = [this](const ChatRequest& r, const Options& o) { return build_body(r, o); };
    return transport_.complete(transport_.settings().base_url + "/chat/completions", headers(), request, options_, body,
                               interpret, status);
  }

  ValidateResult validate() override {
    if (auto problem = transport_.key_problem(); !problem.empty()) return {false, problem};
    const std::string url = transport_.settings().base_url + "/models";
    const http::Response r = transport_.get(url, headers(), Millis(15000));
    if (r.transport != http::Transport::ok)
      return {false, "GET " + url + ": " + std::string(http::to_string(r.transport)) + ": " + r.error};
    if (r.status != 200)
      return {false, "GET " + url + " answered HTTP " + std::to_string(r.status) + ": " + one_line(r.body)};
    const json list = json::parse(r.body, nullptr, false);
    const json* data = field(list, "data");
    if (!data || !data->is_array()) return {false, "GET " + url + ": no model list in the answer: " + one_line(r.body)};
    std::vector<std::string> ids;
    for (const auto& m : *data) ids.push_back(text_field(m, "id"));
    if (std::find(ids.begin(), ids.end(), model_) == ids.end()) {
      std::string some;
      for (size_t i = 0; i < ids.size() && i < 8; ++i) some += (i ? ", " : "") + ids[i];
      return {false, "GET " + url + ": model '" + model_ + "' is not among the " + std::to_string(ids.size()) +
                         " models the endpoint lists (" + some + (ids.size() > 8 ? ", ..." : "") + ")"};
    }
    return {true,
            provider() + " endpoint " + transport_.settings().base_url + " answers and lists model " + model_ +
                (transport_.settings().api_key_env.empty() ? "" : "; key from " + transport_.settings().api_key_env)};
  }

 private:
  http::Headers headers() const {
    http::Headers h{{"Content-Type", "application/json"}, {"Accept", "application/json"}, {"User-Agent", "ptxbench"}};
    if (!transport_.key().empty()) h.emplace_back("Authorization", "Bearer " + transport_.key());
    if (flavor_.reasoning_object) h.emplace_back("X-Title", "PTXBench");
    return h;
  }

  std::string token_param(const Options& o) const {
    const std::string p = o.text_or("token_param", "auto");
    if (p == "max_tokens" || p == "max_completion_tokens") return p;
    if (p != "auto")
      throw InputError("option 'token_param' = '" + p + "': expected auto, max_tokens or max_completion_tokens");
    if (o.has("max_completion_tokens")) return "max_completion_tokens";
    return flavor_.openai_api && is_openai_reasoning_model(model_) ? "max_completion_tokens" : "max_tokens";
  }

  json build_body(const ChatRequest& request, const Options& o) const {
    json body = json::object();
    body["model"] = model_;
    json messages = json::array();
    if (!request.system.empty()) messages.push_back({{"role", "system"}, {"content", request.system}});
    for (const auto& m : request.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
    body["messages"] = std::move(messages);
    if (o.has("max_tokens") && o.has("max_completion_tokens"))
      throw InputError("give max_tokens or max_completion_tokens, not both");
    if (auto n = o.integer("max_completion_tokens").value_or(o.integer("max_tokens").value_or(0)); n != 0) {
      if (n < 1) throw InputError("max_tokens must be at least 1");
      body[token_param(o)] = n;
    } else {
      (void)token_param(o);  // still check the option's value
    }
    if (auto t = o.number("temperature")) body["temperature"] = *t;
    if (auto p = o.number("top_p")) body["top_p"] = *p;
    if (auto s = o.integer("seed")) body["seed"] = *s;
    if (auto e = o.text("reasoning_effort")) {
      if (flavor_.reasoning_object) body["reasoning"] = {{"effort", *e}};
      else body["reasoning_effort"] = *e;
    }
    if (auto extra = o.object("extra_body"))
      for (const auto& [k, v] : extra->items()) body[k] = v;
    body["stream"] = false;
    return body;
  }

  static AttemptResult interpret(const http::Response& r, ChatReply& reply) {
    const json body = json::parse(r.body, nullptr, false);
    const bool parsed = !body.is_discarded();
    if (r.status / 100 != 2) {
      if (parsed && field(body, "error")) return openai_error_object(r.status, body.at("error"));
      return read_error_status(r.status, "HTTP " + std::to_string(r.status) + ": " + one_line(r.body, 200));
    }
    if (!parsed || !body.is_object())
      return AttemptResult::again("malformed JSON",
                                  "HTTP " + std::to_string(r.status) + " with a body that is not JSON (" +
                                      std::to_string(r.body.size()) + " bytes): " + one_line(r.body, 120));
    if (const json* error = field(body, "error")) return openai_error_object(r.status, *error);
    reply.model = text_field(body, "model");
    if (const json* usage = field(body, "usage")) {
      reply.usage.input_tokens = count_field(*usage, "prompt_tokens");
      reply.usage.output_tokens = count_field(*usage, "completion_tokens");
      if (const json* details = field(*usage, "completion_tokens_details"))
        reply.usage.reasoning_tokens = count_field(*details, "reasoning_tokens");
      if (const json* details = field(*usage, "prompt_tokens_details"))
        reply.usage.cached_input_tokens = count_field(*details, "cached_tokens");
    }
    const json* choices = field(body, "choices");
    if (!choices || !choices->is_array() || choices->empty() || !(*choices)[0].is_object())
      return AttemptResult::again("malformed response", "HTTP 200 without choices: " + one_line(r.body, 120));
    const json& choice = (*choices)[0];
    const json* message = field(choice, "message");
    if (!message) return AttemptResult::again("malformed response", "HTTP 200: the choice has no message");
    reply.content = content_text(*message);
    reply.reasoning = reasoning_text(*message);
    reply.finish_reason = text_field(choice, "finish_reason");

    if (const std::string refusal = text_field(*message, "refusal"); !refusal.empty())
      return AttemptResult::done(ProviderOutcome::refused, "refusal: " + one_line(refusal));
    if (reply.finish_reason == "content_filter")
      return AttemptResult::done(ProviderOutcome::refused,
                                 "finish_reason content_filter: the provider's filter stopped the answer");
    if (reply.finish_reason == "error")
      return AttemptResult::again("finish_reason error", "the provider reported an error while generating");
    if (blank(reply.content)) {
      const bool reasoned = !blank(reply.reasoning) || reply.usage.reasoning_tokens.value_or(0) > 0;
      if (reasoned)
        return AttemptResult::done(ProviderOutcome::reasoning_only,
                                   "no answer text: the tokens went to reasoning (finish_reason " +
                                       (reply.finish_reason.empty() ? std::string("none") : reply.finish_reason) + ")");
      return AttemptResult::done(ProviderOutcome::empty,
                                 "no answer text and no reasoning (finish_reason " +
                                     (reply.finish_reason.empty() ? std::string("none") : reply.finish_reason) + ")");
    }
    if (reply.finish_reason == "length")
      return AttemptResult::done(ProviderOutcome::truncated,
                                 "finish_reason length: the answer was cut at the token limit");
    return AttemptResult::done(ProviderOutcome::ok);
  }

  const Flavor& flavor_;
  std::string model_;
  Options options_;
  ChatTransport transport_;
};

std::unique_ptr<ModelClient> make_flavor(const char* name, const ClientConfig& config) {
  for (const auto& flavor : kFlavors)
    if (std::string_view(flavor.provider) == name) return std::make_unique<OpenAiCompatibleClient>(config, flavor);
  fail(std::string("no OpenAI-compatible flavor named ") + name);
}
std::unique_ptr<ModelClient> make_openai(const ClientConfig& c) { return make_flavor("openai", c); }
std::unique_ptr<ModelClient> make_openrouter(const ClientConfig& c) { return make_flavor("openrouter", c); }
std::unique_ptr<ModelClient> make_vllm(const ClientConfig& c) { return make_flavor("vllm", c); }
std::unique_ptr<ModelClient> make_sglang(const ClientConfig& c) { return make_flavor("sglang", c); }
std::unique_ptr<ModelClient> make_llamacpp(const ClientConfig& c) { return make_flavor("llamacpp", c); }

}  // namespace

PTXBENCH_REGISTER_CLIENT("openai", make_openai);
PTXBENCH_REGISTER_CLIENT("openrouter", make_openrouter);
PTXBENCH_REGISTER_CLIENT("vllm", make_vllm);
PTXBENCH_REGISTER_CLIENT("sglang", make_sglang);
PTXBENCH_REGISTER_CLIENT("llamacpp", make_llamacpp);

}  // namespace ptxbench
