// The part every HTTP model client shares: its connection settings (read from its options), the key
// (from the environment variable the options name), one request with retries per the policy, the
// concurrency limit, and keeping the key out of everything a reply records.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "agent/clients/model_client.h"
#include "agent/http/concurrency_limiter.h"
#include "agent/http/http_client.h"
#include "agent/http/options.h"
#include "agent/http/retry.h"

namespace ptxbench {

// Options every HTTP client reads (besides its provider's own).
inline const std::vector<std::string> kHttpOptionKeys = {"base_url",          "api_key_env", "timeout_s",
                                                         "connect_timeout_s", "deadline_s",  "max_attempts",
                                                         "retry_base_s",      "retry_max_s", "max_concurrency"};
// Of those, the ones fixed when the client is made (a request cannot change them).
inline const std::vector<std::string> kFixedHttpOptionKeys = {"base_url", "api_key_env", "max_concurrency"};

struct HttpDefaults {
  std::string base_url;
  std::string api_key_env;  // "" when the endpoint needs no key (a local server)
  int max_concurrency = 8;
};

struct HttpSettings {
  std::string base_url;  // without a trailing '/'
  std::string api_key_env;
  Millis timeout{600000};  // one attempt
  Millis connect_timeout{10000};
  RetrySettings retry;  // its deadline covers the whole call
  int max_concurrency = 8;
  // Throws InputError for a bad value.
  static HttpSettings from(const Options& options, const HttpDefaults& defaults);
};

// What one complete HTTP response means, as the provider reads it.
struct AttemptResult {
  bool retry = false;
  ProviderOutcome outcome = ProviderOutcome::infra_error;  // when !retry
  std::string label;                                       // when retry: "429", "529", "timeout", "malformed JSON"
  std::string error;                                       // one line; empty when ok
  bool rate_limited = false;                               // a 429: the concurrency limit shrinks

  static AttemptResult done(ProviderOutcome o, std::string error = {}) {
    return {false, o, {}, std::move(error), false};
  }
  static AttemptResult again(std::string label, std::string error, bool rate_limited = false) {
    return {true, ProviderOutcome::infra_error, std::move(label), std::move(error), rate_limited};
  }
};

// Fills `reply`'s content, reasoning, finish_reason, model and usage from one response.
using Interpret = std::function<AttemptResult(const http::Response& response, ChatReply& reply)>;

// The common reading of an HTTP error status, once the provider has checked its error body for
// quota and size errors: 408, 409, 425, 429, 5xx (529 included) are retried; 413 is
// request_too_large; 401 and 403 are infra_error without retry (the key or the account, not the
// model); any other status is provider_error.
AttemptResult read_error_status(int status, const std::string& error);

// Lower-cased `message` names a context-length/prompt-size limit ("maximum context length", ...).
bool mentions_context_limit(const std::string& message);

// First line of `s`, at most `limit` characters.
std::string one_line(const std::string& s, size_t limit = 300);

class ChatTransport {
 public:
  ChatTransport(std::string provider, HttpSettings settings, std::shared_ptr<RetryClock> clock);

  const HttpSettings& settings() const { return settings_; }
  const std::string& provider() const { return provider_; }
  // The key read from settings().api_key_env when the client was made ("" when unset or not needed).
  const std::string& key() const { return key_; }
  // Empty when the key is fine; else what is wrong ("OPENAI_API_KEY is not set").
  std::string key_problem() const;
  // Every occurrence of the key replaced by "[$VAR]".
  std::string redact(std::string text) const;

  struct Limits {
    Millis timeout;   // per attempt
    Millis deadline;  // the whole call
  };
  Limits limits(const Options& request_options) const;  // timeout_s / deadline_s of a request

  // POSTs `body` to `url` until `interpret` reads a final answer, retrying as the policy allows.
  // Never throws for anything the network or the server does.
  ChatReply post(const std::string& url, const http::Headers& headers, std::string body, Limits limits,
                 const Interpret& interpret, const StatusFn& status);

  // One chat request: the request's options merged over the client's (`client_options`), the body
  // built from them, then post(). A bad option is an infra_error reply: nothing was sent.
  using BuildBody = std::function<json(const ChatRequest&, const Options&)>;
  ChatReply complete(const std::string& url, const http::Headers& headers, const ChatRequest& request,
                     const Options& client_options, const BuildBody& build_body, const Interpret& interpret,
                     const StatusFn& status);

  // One GET, no retry (validate()). The body and error are redacted.
  http::Response get(const std::string& url, const http::Headers& headers, Millis timeout);

 private:
  std::string provider_;
  HttpSettings settings_;
  std::shared_ptr<RetryClock> clock_;
  std::string key_;
  RetryPolicy policy_;
  ConcurrencyLimiter limiter_;
};

}  // namespace ptxbench
