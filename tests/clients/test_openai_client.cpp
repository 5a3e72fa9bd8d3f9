// The OpenAI-compatible client against a scripted Chat Completions server on loopback.
#include <chrono>
#include <ctime>

#include "clients/client_fixture.h"
#include "core/error.h"

namespace ptxbench::test {
namespace {

using ptxbench::ProviderOutcome;

json completion(const std::string& content, const std::string& finish = "stop", json usage = nullptr,
                json extra_message = json::object()) {
  json message = {{"role", "assistant"}, {"content", content}};
  for (const auto& [k, v] : extra_message.items()) message[k] = v;
  json body = {{"id", "chatcmpl-1"},
               {"object", "chat.completion"},
               {"model", "test-model-2025"},
               {"choices", json::array({{{"index", 0}, {"message", message}, {"finish_reason", finish}}})}};
  if (usage.is_null()) usage = {{"prompt_tokens", 120}, {"completion_tokens", 45}, {"total_tokens", 165}};
  if (!usage.empty()) body["usage"] = usage;
  return body;
}

json openai_error(const std::string& message, const std::string& type, const std::string& code) {
  return {{"error", {{"message", message}, {"type", type}, {"param", nullptr}, {"code", code}}}};
}

std::string http_date_in(int seconds) {
  const std::time_t t = std::time(nullptr) + seconds;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[64];
  std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return text;
}

class OpenAiClient : public ClientTest {};

TEST_F(OpenAiClient, NormalReplyCarriesContentUsageAndExactBytes) {
  ScriptedServer server({Step::json_reply(completion("```cuda\n__global__ void k() {}\n```", "stop",
                                                     {{"prompt_tokens", 120},
                                                      {"completion_tokens", 45},
                                                      {"prompt_tokens_details", {{"cached_tokens", 64}}},
                                                      {"completion_tokens_details", {{"reasoning_tokens", 30}}}}))});
  auto c = client("openai", server, {{"temperature", "0.7"}, {"seed", 7}, {"max_tokens", "2048"}});
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::ok) << reply.error;
  EXPECT_EQ(reply.content, "```cuda\n__global__ void k() {}\n```");
  EXPECT_EQ(reply.finish_reason, "stop");
  EXPECT_EQ(reply.model, "test-model-2025");
  EXPECT_EQ(reply.usage.input_tokens, 120);
  EXPECT_EQ(reply.usage.output_tokens, 45);
  EXPECT_EQ(reply.usage.reasoning_tokens, 30);
  EXPECT_EQ(reply.usage.cached_input_tokens, 64);
  EXPECT_EQ(reply.http_status, 200);
  EXPECT_EQ(reply.attempts, 1);
  EXPECT_TRUE(reply.retries.empty());
  EXPECT_TRUE(reply.error.empty());
  EXPECT_GT(reply.seconds, 0);

  ASSERT_EQ(server.requests(), 1u);
  const auto got = server.received()[0];
  EXPECT_EQ(got.path, "/v1/chat/completions");
  EXPECT_EQ(got.header("Authorization"), std::string("Bearer ") + kTestKey);  // the key travels in a header
  EXPECT_EQ(got.body, reply.request_body);                                    // the exact bytes sent
  EXPECT_EQ(reply.response_body, completion("```cuda\n__global__ void k() {}\n```", "stop",
                                            {{"prompt_tokens", 120},
                                             {"completion_tokens", 45},
                                             {"prompt_tokens_details", {{"cached_tokens", 64}}},
                                             {"completion_tokens_details", {{"reasoning_tokens", 30}}}})
                                     .dump());
  const json body = got.body_json();
  EXPECT_EQ(body["model"], "test-model");
  EXPECT_EQ(body["messages"][0], (json{{"role", "system"}, {"content", "You write CUDA kernels."}}));
  EXPECT_EQ(body["messages"][1], (json{{"role", "user"}, {"content", "Write the GEMM kernel."}}));
  EXPECT_EQ(body["temperature"], 0.7);
  EXPECT_EQ(body["seed"], 7);
  EXPECT_EQ(body["max_tokens"], 2048);
  EXPECT_FALSE(body.contains("max_completion_tokens"));
  expect_clean(reply);
}

TEST_F(OpenAiClient, RateLimitedThenOkHonoursRetryAfterSeconds) {
  ScriptedServer server(
      {Step::json_reply(openai_error("Rate limit reached for requests", "requests", "rate_limit_exceeded"), 429)
           .header("Retry-After", "2"),
       Step::json_reply(completion("done"))});
  auto c = client("openai", server);
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::ok) << reply.error;
  EXPECT_EQ(reply.attempts, 2);
  EXPECT_EQ(server.requests(), 2u);
  ASSERT_EQ(reply.retries.size(), 1u);
  EXPECT_TRUE(reply.retries[0].starts_with("retrying (429, 2")) << reply.retries[0];
  EXPECT_GE(clock->slept().count(), 2000);  // the server's 2 s, plus at most 10% of jitter
  EXPECT_LE(clock->slept().count(), 2200);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "openai: concurrency limit lowered to 8 after a 429"), lines.end());
  expect_clean(reply);
}

TEST_F(OpenAiClient, RateLimitedThenOkHonoursRetryAfterDate) {
  ScriptedServer server({Step::json_reply(openai_error("Rate limit reached", "requests", "rate_limit_exceeded"), 429)
                             .header("Retry-After", http_date_in(4)),
                         Step::json_reply(completion("done"))});
  auto c = client("openai", server);
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::ok) << reply.error;
  EXPECT_EQ(reply.attempts, 2);
  ASSERT_EQ(reply.retries.size(), 1u);
  EXPECT_TRUE(reply.retries[0].starts_with("retrying (429, ")) << reply.retries[0];
  // The date has 1 s resolution: the wait is between 3 and 4 s (plus jitter), not the 0.5 s backoff.
  EXPECT_GE(clock->slept().count(), 2500);
  EXPECT_LE(clock->slept().count(), 4500);
  expect_clean(reply);
}

TEST_F(OpenAiClient, QuotaExhaustedStopsWithoutRetry) {
  ScriptedServer server(
      {Step::json_reply(openai_error("You exceeded your current quota", "insufficient_quota", "insufficient_quota"),
                        429),
       Step::json_reply(completion("must not be asked"))});
  auto c = client("openai", server);
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::quota_exhausted);
  EXPECT_EQ(reply.attempts, 1);
  EXPECT_EQ(server.requests(), 1u);
  EXPECT_TRUE(reply.retries.empty());
  EXPECT_TRUE(lines.empty());
  EXPECT_NE(reply.error.find("insufficient_quota"), std::string::npos) << reply.error;
  EXPECT_EQ(reply.http_status, 429);
  expect_clean(reply);
}

TEST_F(OpenAiClient, ServerErrorThenOk) {
  ScriptedServer server({Step::raw(500, "Internal Server Error", "text/plain"), Step::json_reply(completion("done"))});
  auto c = client("openai", server);
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::ok) << reply.error;
  EXPECT_EQ(reply.attempts, 2);
  ASSERT_EQ(reply.retries.size(), 1u);
  EXPECT_EQ(retry_lines_starting("retrying (500, "), 1u);
  EXPECT_GE(clock->slept().count(), 250);  // the 0.5 s backoff with 50% jitter
  EXPECT_LE(clock->slept().count(), 500);
  expect_clean(reply);
}

TEST_F(OpenAiClient, MalformedJsonIsInfraErrorAfterRetries) {
  ScriptedServer server({Step::raw(200, "{\"choices\": [{\"mess"), Step::raw(200, "<html>oops</html>"),
                         Step::raw(200, "not json at all")});
  auto c = client("openai", server, {{"max_attempts", 3}});
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::infra_error);
  EXPECT_EQ(reply.attempts, 3);
  EXPECT_EQ(server.requests(), 3u);
  EXPECT_EQ(reply.retries.size(), 2u);
  EXPECT_EQ(retry_lines_starting("retrying (malformed JSON, "), 2u);
  EXPECT_NE(reply.error.find("gave up after 3 attempts"), std::string::npos) << reply.error;
  EXPECT_EQ(reply.response_body, "not json at all");  // the last bytes received
  expect_clean(reply);
}

TEST_F(OpenAiClient, DroppedConnectionIsRetried) {
  ScriptedServer server({Step::dropped(completion("a long answer that never arrives whole").dump()),
                         Step::json_reply(completion("done"))});
  auto c = client("openai", server);
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::ok) << reply.error;
  EXPECT_EQ(reply.content, "done");
  EXPECT_EQ(reply.attempts, 2);
  EXPECT_EQ(retry_lines_starting("retrying (connection dropped, "), 1u) << (lines.empty() ? "" : lines[0]);
  expect_clean(reply);
}

TEST_F(OpenAiClient, StalledBodyTimesOutWithinTheLimit) {
  ScriptedServer server({Step::stalled(completion("slow").dump()), Step::stalled(completion("slow").dump())});
  auto c = client("openai", server, {{"timeout_s", 0.4}, {"max_attempts", 2}});
  const auto started = std::chrono::steady_clock::now();
  const auto reply = complete(*c);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(reply.outcome, ProviderOutcome::infra_error);
  EXPECT_EQ(reply.attempts, 2);
  EXPECT_EQ(retry_lines_starting("retrying (timeout, "), 1u);
  EXPECT_NE(reply.error.find("timeout"), std::string::npos) << reply.error;
  EXPECT_LT(wall, 5.0);  // two 0.4 s timeouts, not the server's 30 s stall
  EXPECT_GE(wall, 0.7);
  expect_clean(reply);
}

TEST_F(OpenAiClient, TruncatedAtTheTokenLimit) {
  ScriptedServer server({Step::json_reply(completion("```cuda\n__global__ void k() {", "length"))});
  auto c = client("openai", server);
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::truncated);
  EXPECT_EQ(reply.content, "```cuda\n__global__ void k() {");  // the partial answer is kept
  EXPECT_EQ(reply.finish_reason, "length");
  EXPECT_EQ(reply.attempts, 1);
  expect_clean(reply);
}

TEST_F(OpenAiClient, EmptyAnswerWithOnlyReasoning) {
  ScriptedServer server(
      {Step::json_reply(completion("", "length", nullptr, {{"reasoning_content", "Let me think about tiles..."}})),
       Step::json_reply(completion("", "length", nullptr, {{"content", nullptr}, {"reasoning", "OpenRouter style"}})),
       Step::json_reply(completion(
           "", "length", nullptr,
           {{"reasoning_details", json::array({{{"type", "reasoning.text"}, {"text", "step 1"}},
                                               {{"type", "reasoning.encrypted"}, {"data", "xx"}},
                                               {{"type", "reasoning.summary"}, {"summary", "step 2"}}})}}))});
  auto c = client("openrouter", server);
  for (const char* expected : {"Let me think about tiles...", "OpenRouter style", "step 1\nstep 2"}) {
    const auto reply = complete(*c);
    EXPECT_EQ(reply.outcome, ProviderOutcome::reasoning_only) << reply.error;
    EXPECT_EQ(reply.reasoning, expected);
    EXPECT_TRUE(reply.content.empty());
    EXPECT_EQ(reply.attempts, 1);
    expect_clean(reply);
  }
}

TEST_F(OpenAiClient, HiddenReasoningTokensAlsoMeanReasoningOnly) {
  ScriptedServer server({Step::json_reply(completion("", "length",
                                                     {{"prompt_tokens", 10},
                                                      {"completion_tokens", 100},
                                                      {"completion_tokens_details", {{"reasoning_tokens", 100}}}}))});
  auto c = client("openai", server);
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::reasoning_only) << reply.error;
  EXPECT_EQ(reply.usage.reasoning_tokens, 100);
  EXPECT_EQ(reply.attempts, 1);
  expect_clean(reply);
}

TEST_F(OpenAiClient, EmptyAnswerWithNothing) {
  ScriptedServer server({Step::json_reply(completion("  \n", "stop"))});
  auto c = client("openai", server);
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::empty);
  EXPECT_EQ(reply.attempts, 1);
  EXPECT_FALSE(reply.error.empty());
  expect_clean(reply);
}

TEST_F(OpenAiClient, ErrorObjectInsideA200Body) {
  ScriptedServer server(
      {Step::json_reply({{"error", {{"message", "model 'test-model' does not support this"}, {"code", 400}}}})});
  auto c = client("openai", server);
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::provider_error);
  EXPECT_EQ(reply.http_status, 200);
  EXPECT_EQ(reply.attempts, 1);
  EXPECT_NE(reply.error.find("does not support this"), std::string::npos) << reply.error;
  expect_clean(reply);
}

TEST_F(OpenAiClient, UpstreamErrorInside200BodyIsRetriedByItsCode) {
  // OpenRouter reports an upstream failure as an error object with the upstream status as code.
  ScriptedServer server({Step::json_reply({{"error", {{"message", "upstream provider returned 502"}, {"code", 502}}}}),
                         Step::json_reply(completion("done"))});
  auto c = client("openrouter", server);
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::ok) << reply.error;
  EXPECT_EQ(reply.attempts, 2);
  EXPECT_EQ(retry_lines_starting("retrying (502, "), 1u);
  expect_clean(reply);
}

TEST_F(OpenAiClient, HugeReplyIsKeptIntact) {
  std::string huge;
  huge.reserve(6 << 20);
  for (int i = 0; huge.size() < (6u << 20); ++i) huge += "// line " + std::to_string(i) + " of a very long kernel\n";
  const json body = completion(huge);
  ScriptedServer server({Step::json_reply(body)});
  auto c = client("openai", server);
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::ok) << reply.error;
  EXPECT_EQ(reply.content.size(), huge.size());
  EXPECT_TRUE(reply.content == huge);
  EXPECT_EQ(reply.attempts, 1);
  EXPECT_EQ(reply.response_body.size(), body.dump().size());
  expect_clean(reply);
}

TEST_F(OpenAiClient, RefusalAndContentFilter) {
  ScriptedServer server({Step::json_reply(completion("", "stop", nullptr,
                                                     {{"content", nullptr}, {"refusal", "I can't help with that."}})),
                         Step::json_reply(completion("partial", "content_filter"))});
  auto c = client("openai", server);
  const auto refusal = complete(*c);
  EXPECT_EQ(refusal.outcome, ProviderOutcome::refused);
  EXPECT_NE(refusal.error.find("I can't help with that."), std::string::npos) << refusal.error;
  const auto filtered = complete(*c);
  EXPECT_EQ(filtered.outcome, ProviderOutcome::refused);
  EXPECT_EQ(filtered.finish_reason, "content_filter");
  EXPECT_EQ(refusal.attempts + filtered.attempts, 2);
  EXPECT_EQ(server.requests(), 2u);
  expect_clean(refusal);
  expect_clean(filtered);
}

TEST_F(OpenAiClient, MissingUsageLeavesUsageUnknown) {
  ScriptedServer server({Step::json_reply(completion("ok", "stop", json::object())), Step::json_reply([] {
                           json b = completion("ok");
                           b["usage"] = {{"prompt_tokens", nullptr}, {"completion_tokens", "n/a"}};
                           return b;
                         }())});
  auto c = client("openai", server);
  for (int i = 0; i < 2; ++i) {
    const auto reply = complete(*c);
    EXPECT_EQ(reply.outcome, ProviderOutcome::ok) << reply.error;
    EXPECT_FALSE(reply.usage.input_tokens.has_value());
    EXPECT_FALSE(reply.usage.output_tokens.has_value());
    EXPECT_FALSE(reply.usage.reasoning_tokens.has_value());
    EXPECT_EQ(reply.attempts, 1);
    expect_clean(reply);
  }
}

TEST_F(OpenAiClient, RequestTooLargeIsNotRetried) {
  ScriptedServer server(
      {Step::raw(413, "Payload Too Large", "text/plain"),
       Step::json_reply(openai_error("This model's maximum context length is 8192 tokens. However, you "
                                     "requested 9000 tokens.",
                                     "invalid_request_error", "context_length_exceeded"),
                        400),
       Step::json_reply({{"error",
                          {{"message", "the request exceeds the available context size"},
                           {"type", "exceed_context_size_error"},
                           {"code", 400}}}},
                        400)});
  auto c = client("llamacpp", server, {{"api_key_env", ""}});
  for (int status : {413, 400, 400}) {
    const auto reply = complete(*c);
    EXPECT_EQ(reply.outcome, ProviderOutcome::request_too_large) << reply.error;
    EXPECT_EQ(reply.http_status, status);
    EXPECT_EQ(reply.attempts, 1);
    EXPECT_TRUE(reply.retries.empty());
    expect_clean(reply);
  }
  EXPECT_EQ(server.requests(), 3u);
}

TEST_F(OpenAiClient, BadRequestIsProviderErrorWithoutRetry) {
  ScriptedServer server({Step::json_reply(
      openai_error("Unsupported value: 'temperature'", "invalid_request_error", "unsupported_value"), 400)});
  auto c = client("openai", server);
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::provider_error);
  EXPECT_EQ(reply.attempts, 1);
  EXPECT_NE(reply.error.find("Unsupported value"), std::string::npos) << reply.error;
  EXPECT_EQ(server.requests(), 1u);
  expect_clean(reply);
}

TEST_F(OpenAiClient, KeyEchoedByTheServerIsRedacted) {
  ScriptedServer server({Step::json_reply(openai_error(std::string("Incorrect API key provided: ") + kTestKey + ".",
                                                       "invalid_request_error", "invalid_api_key"),
                                          401)});
  auto c = client("openai", server);
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::infra_error);  // the key, not the model: no turn counted
  EXPECT_EQ(reply.attempts, 1);
  EXPECT_NE(reply.error.find(std::string("[$") + kTestKeyVar + "]"), std::string::npos) << reply.error;
  expect_clean(reply);
}

TEST_F(OpenAiClient, MissingKeyVariableFailsBeforeAnyRequest) {
  ScriptedServer server({Step::json_reply(completion("never"))});
  auto c = client("openai", server, {{"api_key_env", "PTXBENCH_TEST_UNSET_KEY_VAR"}});
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::infra_error);
  EXPECT_NE(reply.error.find("PTXBENCH_TEST_UNSET_KEY_VAR is not set"), std::string::npos) << reply.error;
  EXPECT_EQ(server.requests(), 0u);
  const auto v = c->validate();
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.message.find("PTXBENCH_TEST_UNSET_KEY_VAR"), std::string::npos) << v.message;
  EXPECT_EQ(server.requests(), 0u);
}

TEST_F(OpenAiClient, RetryAfterPastTheDeadlineGivesUpAtOnce) {
  ScriptedServer server({Step::json_reply(openai_error("slow down", "requests", "rate_limit_exceeded"), 429)
                             .header("Retry-After", "120")});
  auto c = client("openai", server, {{"deadline_s", 30}});
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::infra_error);
  EXPECT_EQ(reply.attempts, 1);
  EXPECT_TRUE(reply.retries.empty());
  EXPECT_NE(reply.error.find("deadline"), std::string::npos) << reply.error;
  EXPECT_EQ(clock->slept().count(), 0);
  expect_clean(reply);
}

TEST_F(OpenAiClient, ConnectionRefusedIsRetriedThenInfraError) {
  int port = 0;
  {
    ScriptedServer gone;
    port = gone.port();
  }  // nothing listens there any more
  ClientConfig config{
      "vllm",
      "m",
      {{"base_url", "http://127.0.0.1:" + std::to_string(port) + "/v1"}, {"max_attempts", 3}, {"retry_base_s", 0.5}}};
  config.clock = clock;
  auto c = make_client(config);
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::infra_error);
  EXPECT_EQ(reply.attempts, 3);
  EXPECT_EQ(retry_lines_starting("retrying (connection failed, "), 2u);
  EXPECT_EQ(reply.http_status, 0);
  expect_clean(reply);
}

TEST_F(OpenAiClient, MaxCompletionTokensForOpenAiReasoningModels) {
  ScriptedServer server({Step::json_reply(completion("a")), Step::json_reply(completion("b")),
                         Step::json_reply(completion("c")), Step::json_reply(completion("d"))});
  auto reasoning = client("openai", server, {{"max_tokens", 1000}, {"reasoning_effort", "high"}}, "o3-mini");
  complete(*reasoning);
  auto plain = client("openai", server, {{"max_tokens", 1000}}, "gpt-4.1");
  complete(*plain);
  auto forced = client("vllm", server, {{"max_tokens", 64}, {"token_param", "max_completion_tokens"}});
  complete(*forced);
  auto router =
      client("openrouter", server, {{"max_completion_tokens", 50}, {"reasoning_effort", "low"}}, "openai/gpt-5");
  complete(*router);
  const auto got = server.received();
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].body_json()["max_completion_tokens"], 1000);
  EXPECT_FALSE(got[0].body_json().contains("max_tokens"));
  EXPECT_EQ(got[0].body_json()["reasoning_effort"], "high");
  EXPECT_EQ(got[1].body_json()["max_tokens"], 1000);
  EXPECT_FALSE(got[1].body_json().contains("max_completion_tokens"));
  EXPECT_EQ(got[2].body_json()["max_completion_tokens"], 64);
  EXPECT_EQ(got[3].body_json()["max_completion_tokens"], 50);
  EXPECT_EQ(got[3].body_json()["reasoning"], (json{{"effort", "low"}}));
}

TEST_F(OpenAiClient, RequestOptionsOverrideConfigButNotTheConnection) {
  ScriptedServer server({Step::json_reply(completion("a"))});
  auto c = client("openai", server, {{"temperature", 0.2}});
  auto r = request();
  r.options = {{"temperature", 0.9}, {"max_tokens", 10}};
  EXPECT_EQ(complete(*c, r).outcome, ProviderOutcome::ok);
  EXPECT_EQ(server.received()[0].body_json()["temperature"], 0.9);
  EXPECT_EQ(server.received()[0].body_json()["max_tokens"], 10);
  r.options = {{"base_url", "http://example.invalid/v1"}};
  const auto moved = complete(*c, r);
  EXPECT_EQ(moved.outcome, ProviderOutcome::infra_error);
  EXPECT_NE(moved.error.find("base_url"), std::string::npos) << moved.error;
  r.options = {{"temprature", 1}};
  EXPECT_NE(complete(*c, r).error.find("unknown option 'temprature'"), std::string::npos);
  EXPECT_EQ(server.requests(), 1u);
}

TEST_F(OpenAiClient, BadOptionsFailWhenTheClientIsMade) {
  ScriptedServer server;
  EXPECT_THROW(client("openai", server, {{"temprature", 0.5}}), InputError);
  EXPECT_THROW(client("openai", server, {{"temperature", "warm"}}), InputError);
  EXPECT_THROW(client("openai", server, {{"max_tokens", 10}, {"max_completion_tokens", 10}}), InputError);
  EXPECT_THROW(client("openai", server, {{"timeout_s", -1}}), InputError);
  EXPECT_THROW(client("openai", server, {{"base_url", "ftp://x"}}), InputError);
  EXPECT_THROW(client("openai", server, {{"token_param", "max"}}), InputError);
}

TEST_F(OpenAiClient, LocalServerAliasesSendNoKey) {
  ScriptedServer server({Step::json_reply(completion("a")), Step::json_reply(completion("b"))});
  for (const char* provider : {"llamacpp", "sglang"}) {
    ClientConfig config{provider, "m", {{"base_url", server.url() + "/v1"}}};
    auto c = make_client(config);
    EXPECT_EQ(c->provider(), provider);
    EXPECT_EQ(complete(*c).outcome, ProviderOutcome::ok);
  }
  for (const auto& got : server.received()) EXPECT_EQ(got.header("Authorization"), "");
}

TEST_F(OpenAiClient, ValidateListsModelsAndGeneratesNothing) {
  const json models = {{"object", "list"}, {"data", json::array({{{"id", "other"}}, {{"id", "test-model"}}})}};
  ScriptedServer server({Step::json_reply(models), Step::json_reply(models), Step::raw(503, "down", "text/plain")});
  auto c = client("openai", server);
  const auto ok = c->validate();
  EXPECT_TRUE(ok.ok) << ok.message;
  auto unknown = client("openai", server, json::object(), "no-such-model");
  const auto missing = unknown->validate();
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.message.find("no-such-model"), std::string::npos) << missing.message;
  const auto down = c->validate();
  EXPECT_FALSE(down.ok);
  EXPECT_NE(down.message.find("503"), std::string::npos) << down.message;
  for (const auto& got : server.received()) {
    EXPECT_EQ(got.method, "GET");
    EXPECT_EQ(got.path, "/v1/models");
  }
  for (const auto* m : {&ok.message, &missing.message, &down.message}) EXPECT_EQ(m->find(kTestKey), std::string::npos);
}

}  // namespace
}  // namespace ptxbench::test
