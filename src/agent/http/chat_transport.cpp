// What every HTTP model client shares: settings from options, the key, retries, the concurrency limit.
#include "agent/http/chat_transport.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "core/error.h"

namespace ptxbench {
namespace {

Millis seconds_option(const Options& o, const std::string& key, Millis fallback) {
  const auto s = o.number(key);
  if (!s) return fallback;
  if (*s <= 0 || *s > 7 * 24 * 3600)
    throw InputError("option '" + key + "' must be a positive number of seconds (got " + std::to_string(*s) + ")");
  return Millis(static_cast<long long>(std::llround(*s * 1000)));
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

long long to_ms(std::chrono::steady_clock::duration d) { return std::chrono::duration_cast<Millis>(d).count(); }

AttemptResult read_transport_failure(const http::Response& r) {
  const std::string what = std::string(http::to_string(r.transport)) + ": " + one_line(r.error);
  switch (r.transport) {
    case http::Transport::timeout:
    case http::Transport::connect_failed:
    case http::Transport::dropped: return AttemptResult::again(std::string(http::to_string(r.transport)), what);
    default: return AttemptResult::done(ProviderOutcome::infra_error, what);
  }
}

}  // namespace

HttpSettings HttpSettings::from(const Options& o, const HttpDefaults& d) {
  HttpSettings s;
  s.base_url = o.text_or("base_url", d.base_url);
  while (!s.base_url.empty() && s.base_url.back() == '/') s.base_url.pop_back();
  if (s.base_url.empty()) throw InputError("option 'base_url' is required (e.g. base_url=http://127.0.0.1:8000/v1)");
  if (!s.base_url.starts_with("http://") && !s.base_url.starts_with("https://"))
    throw InputError("option 'base_url' = '" + s.base_url + "': expected an http:// or https:// URL");
  s.api_key_env = o.text_or("api_key_env", d.api_key_env);
  s.timeout = seconds_option(o, "timeout_s", s.timeout);
  s.connect_timeout = seconds_option(o, "connect_timeout_s", s.connect_timeout);
  s.retry.deadline = seconds_option(o, "deadline_s", s.retry.deadline);
  s.retry.base_delay = seconds_option(o, "retry_base_s", s.retry.base_delay);
  s.retry.max_delay = seconds_option(o, "retry_max_s", s.retry.max_delay);
  if (auto n = o.integer("max_attempts")) {
    if (*n < 1 || *n > 100) throw InputError("option 'max_attempts' must be in 1..100");
    s.retry.max_attempts = int(*n);
  }
  s.max_concurrency = d.max_concurrency;
  if (auto n = o.integer("max_concurrency")) {
    if (*n < 1 || *n > 1024) throw InputError("option 'max_concurrency' must be in 1..1024");
    s.max_concurrency = int(*n);
  }
  return s;
}

std::string one_line(const std::string& s, size_t limit) {
  std::string out = s.substr(0, s.find_first_of("\r\n"));
  if (out.size() > limit) out = out.substr(0, limit) + "...";
  return out;
}

bool mentions_context_limit(const std::string& message) {
  const std::string m = lower(message);
  for (const char* p : {"context length", "context_length", "maximum context", "context window", "context size",
                        "too many tokens", "prompt is too long", "input is too long", "reduce the length"})
    if (m.find(p) != std::string::npos) return true;
  return false;
}

AttemptResult read_error_status(int status, const std::string& error) {
  const std::string code = std::to_string(status);
  if (status == 429) return AttemptResult::again(code, error, true);
  if (status == 408 || status == 409 || status == 425 || status >= 500) return AttemptResult::again(code, error);
  if (status == 413) return AttemptResult::done(ProviderOutcome::request_too_large, error);
  if (status == 401 || status == 403)
    return AttemptResult::done(ProviderOutcome::infra_error,
                               error + " (the key or the account was refused; not retried)");
  return AttemptResult::done(status >= 400 ? ProviderOutcome::provider_error : ProviderOutcome::infra_error, error);
}

ChatTransport::ChatTransport(std::string provider, HttpSettings settings, std::shared_ptr<RetryClock> clock)
    : provider_(std::move(provider)),
      settings_(std::move(settings)),
      clock_(clock ? std::move(clock) : real_clock()),
      policy_(settings_.retry),
      limiter_(settings_.max_concurrency) {
  if (!settings_.api_key_env.empty())
    if (const char* k = std::getenv(settings_.api_key_env.c_str())) key_ = k;
}

std::string ChatTransport::key_problem() const {
  if (settings_.api_key_env.empty() || !key_.empty()) return "";
  return "the " + provider_ + " key variable " + settings_.api_key_env +
         " is not set (set it, or name another with --model-arg api_key_env=VAR)";
}

std::string ChatTransport::redact(std::string text) const {
  if (key_.empty()) return text;
  const std::string mark = "[$" + settings_.api_key_env + "]";
  for (size_t at = text.find(key_); at != std::string::npos; at = text.find(key_, at + mark.size()))
    text.replace(at, key_.size(), mark);
  return text;
}

ChatTransport::Limits ChatTransport::limits(const Options& o) const {
  return {seconds_option(o, "timeout_s", settings_.timeout), seconds_option(o, "deadline_s", settings_.retry.deadline)};
}

ChatReply ChatTransport::post(const std::string& url, const http::Headers& headers, std::string body, Limits limits,
                              const Interpret& interpret, const StatusFn& status) {
  ChatReply reply;
  const auto start = clock_->now();
  const auto elapsed = [&] { return Millis(to_ms(clock_->now() - start)); };
  const auto say = [&](const std::string& line) {
    if (status) status(line);
  };
  if (const auto problem = key_problem(); !problem.empty()) {
    reply.outcome = ProviderOutcome::infra_error;
    reply.error = problem;
    return reply;
  }
  http::Request request;
  request.url = url;
  request.headers = headers;
  request.body = std::move(body);
  request.connect_timeout = settings_.connect_timeout;
  reply.request_body = redact(request.body);

  for (int attempt = 1;; ++attempt) {
    const Millis remaining = limits.deadline - elapsed();
    request.timeout = std::max(Millis(1), std::min(limits.timeout, remaining));
    AttemptResult result;
    ChatReply parsed;
    http::Response response;
    {
      auto slot = limiter_.acquire(Millis(5000), [&](int limit, int in_flight) {
        say(provider_ + ": waiting for a request slot (" + std::to_string(in_flight) + " of " + std::to_string(limit) +
            " in flight)");
      });
      response = http::perform(request);
      result =
          response.transport == http::Transport::ok ? interpret(response, parsed) : read_transport_failure(response);
      if (result.rate_limited) {
        if (auto limit = limiter_.rate_limited(slot))
          say(provider_ + ": concurrency limit lowered to " + std::to_string(*limit) + " after a 429");
      } else if (!result.retry && result.outcome != ProviderOutcome::infra_error) {
        limiter_.succeeded(slot);
      }
    }
    reply.attempts = attempt;
    reply.http_status = response.status;
    reply.response_body = redact(std::move(response.body));
    result.error = redact(result.error);

    if (!result.retry) {
      reply.outcome = result.outcome;
      reply.error = result.error;
      reply.content = std::move(parsed.content);
      reply.reasoning = std::move(parsed.reasoning);
      reply.finish_reason = std::move(parsed.finish_reason);
      reply.model = std::move(parsed.model);
      reply.usage = parsed.usage;
      break;
    }
    std::optional<Millis> retry_after;
    if (auto ms = response.header("retry-after-ms")) {
      if (auto v = parse_retry_after(*ms, clock_->wall_now())) retry_after = Millis(v->count() / 1000);
    }
    if (!retry_after)
      if (auto value = response.header("retry-after")) retry_after = parse_retry_after(*value, clock_->wall_now());
    const RetryDecision decision = policy_.next(attempt, retry_after, elapsed(), limits.deadline);
    if (!decision.wait) {
      reply.outcome = ProviderOutcome::infra_error;
      reply.error = "gave up after " + std::to_string(attempt) + (attempt == 1 ? " attempt" : " attempts") + " (" +
                    decision.stop_reason + "); last: " + result.label + ": " + result.error;
      break;
    }
    const std::string line =
        "retrying (" + result.label + ", " + format_wait(*decision.wait) + "): attempt " + std::to_string(attempt) +
        " of at most " + std::to_string(policy_.settings().max_attempts) + " failed: " + one_line(result.error, 160);
    reply.retries.push_back(line);
    say(line);
    clock_->sleep_for(*decision.wait);
  }
  reply.seconds = std::chrono::duration<double>(clock_->now() - start).count();
  return reply;
}

http::Response ChatTransport::get(const std::string& url, const http::Headers& headers, Millis timeout) {
  http::Request request;
  request.method = "GET";
  request.url = url;
  request.headers = headers;
  request.timeout = timeout;
  request.connect_timeout = std::min(timeout, settings_.connect_timeout);
  http::Response response = http::perform(request);
  response.body = redact(std::move(response.body));
  response.error = redact(std::move(response.error));
  return response;
}

ChatReply ChatTransport::complete(const std::string& url, const http::Headers& headers, const ChatRequest& request,
                                  const Options& client_options, const BuildBody& build_body,
                                  const Interpret& interpret, const StatusFn& status) {
  std::string body;
  Limits call_limits{};
  try {
    const Options options = client_options.with(request.options, kFixedHttpOptionKeys);
    body = build_body(request, options).dump();
    call_limits = limits(options);
  } catch (const InputError& e) {
    ChatReply reply;
    reply.outcome = ProviderOutcome::infra_error;
    reply.error = std::string("bad request options: ") + e.what();
    return reply;
  }
  return post(url, headers, std::move(body), call_limits, interpret, status);
}

}  // namespace ptxbench
