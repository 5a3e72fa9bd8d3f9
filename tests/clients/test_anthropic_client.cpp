// The Anthropic Messages client against a scripted Messages API server on loopback.
#include "clients/client_fixture.h"
#include "core/error.h"

namespace ptxbench::test {
namespace {

using ptxbench::ProviderOutcome;

json message(json content, const std::string& stop = "end_turn", json usage = nullptr) {
  json body = {{"id", "msg_1"},
               {"type", "message"},
               {"role", "assistant"},
               {"model", "claude-test-2025"},
               {"content", std::move(content)},
               {"stop_reason", stop},
               {"stop_sequence", nullptr}};
  if (usage.is_null()) usage = {{"input_tokens", 200}, {"output_tokens", 80}, {"cache_read_input_tokens", 50}};
  if (!usage.empty()) body["usage"] = usage;
  return body;
}

json text(const std::string& t) { return {{"type", "text"}, {"text", t}}; }
json thinking(const std::string& t) { return {{"type", "thinking"}, {"thinking", t}, {"signature", "sig=="}}; }

json error(const std::string& type, const std::string& msg) {
  return {{"type", "error"}, {"error", {{"type", type}, {"message", msg}}}};
}

class AnthropicClient : public ClientTest {};

TEST_F(AnthropicClient, NormalReplyWithThinkingBlocks) {
  ScriptedServer server(
      {Step::json_reply(message(json::array({thinking("Plan: tiles of 128."), thinking("Then TMA."),
                                             text("Here is the kernel:\n"), text("```cuda\n...\n```")})))});
  auto c = client("anthropic", server, {{"thinking_budget", 4096}, {"temperature", 1}});
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::ok) << reply.error;
  EXPECT_EQ(reply.content, "Here is the kernel:\n```cuda\n...\n```");
  EXPECT_EQ(reply.reasoning, "Plan: tiles of 128.\nThen TMA.");
  EXPECT_EQ(reply.finish_reason, "end_turn");
  EXPECT_EQ(reply.model, "claude-test-2025");
  EXPECT_EQ(reply.usage.input_tokens, 250);  // cache reads are input too
  EXPECT_EQ(reply.usage.cached_input_tokens, 50);
  EXPECT_EQ(reply.usage.output_tokens, 80);
  EXPECT_FALSE(reply.usage.reasoning_tokens.has_value());  // the API does not report them apart
  EXPECT_EQ(reply.attempts, 1);

  ASSERT_EQ(server.requests(), 1u);
  const auto got = server.received()[0];
  EXPECT_EQ(got.path, "/v1/messages");
  EXPECT_EQ(got.header("x-api-key"), kTestKey);
  EXPECT_EQ(got.header("anthropic-version"), "2023-06-01");
  EXPECT_EQ(got.header("Authorization"), "");
  EXPECT_EQ(got.body, reply.request_body);
  const json body = got.body_json();
  EXPECT_EQ(body["system"], "You write CUDA kernels.");
  EXPECT_EQ(body["messages"], (json::array({{{"role", "user"}, {"content", "Write the GEMM kernel."}}})));
  EXPECT_EQ(body["thinking"], (json{{"type", "enabled"}, {"budget_tokens", 4096}}));
  EXPECT_EQ(body["max_tokens"], 4096 + 16384);  // defaulted above the thinking budget
  EXPECT_EQ(body["temperature"], 1.0);
  expect_clean(reply);
}

TEST_F(AnthropicClient, MaxTokensIsAlwaysSent) {
  ScriptedServer server(
      {Step::json_reply(message(json::array({text("a")}))), Step::json_reply(message(json::array({text("b")})))});
  auto c = client("anthropic", server);
  complete(*c);
  auto set = client("anthropic", server, {{"max_tokens", "512"}});
  complete(*set);
  EXPECT_EQ(server.received()[0].body_json()["max_tokens"], 16384);
  EXPECT_EQ(server.received()[1].body_json()["max_tokens"], 512);
  EXPECT_FALSE(server.received()[0].body_json().contains("thinking"));
}

TEST_F(AnthropicClient, OverloadedThenOk) {
  ScriptedServer server({Step::json_reply(error("overloaded_error", "Overloaded"), 529),
                         Step::json_reply(message(json::array({text("done")})))});
  auto c = client("anthropic", server);
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::ok) << reply.error;
  EXPECT_EQ(reply.attempts, 2);
  ASSERT_EQ(reply.retries.size(), 1u);
  EXPECT_TRUE(reply.retries[0].starts_with("retrying (529, ")) << reply.retries[0];
  EXPECT_NE(reply.retries[0].find("overloaded_error"), std::string::npos) << reply.retries[0];
  expect_clean(reply);
}

TEST_F(AnthropicClient, RateLimitedThenOkWithRetryAfter) {
  ScriptedServer server(
      {Step::json_reply(error("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
                        429)
           .header("retry-after", "3"),
       Step::json_reply(message(json::array({text("done")})))});
  auto c = client("anthropic", server, {{"max_concurrency", 4}});
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::ok) << reply.error;
  EXPECT_EQ(reply.attempts, 2);
  EXPECT_EQ(retry_lines_starting("retrying (429, 3"), 1u);
  EXPECT_GE(clock->slept().count(), 3000);
  EXPECT_LE(clock->slept().count(), 3300);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "anthropic: concurrency limit lowered to 2 after a 429"),
            lines.end());
  expect_clean(reply);
}

TEST_F(AnthropicClient, ErrorInside200BodyIsReadByType) {
  ScriptedServer server({Step::json_reply(error("overloaded_error", "Overloaded"), 200),
                         Step::json_reply(message(json::array({text("done")}))),
                         Step::json_reply(error("invalid_request_error", "messages: roles must alternate"), 200)});
  auto c = client("anthropic", server);
  const auto retried = complete(*c);
  EXPECT_EQ(retried.outcome, ProviderOutcome::ok) << retried.error;
  EXPECT_EQ(retried.attempts, 2);
  EXPECT_EQ(retry_lines_starting("retrying (529, "), 1u);
  const auto bad = complete(*c);
  EXPECT_EQ(bad.outcome, ProviderOutcome::provider_error);
  EXPECT_EQ(bad.attempts, 1);
  EXPECT_EQ(bad.http_status, 200);
  expect_clean(retried);
  expect_clean(bad);
}

TEST_F(AnthropicClient, StopReasons) {
  ScriptedServer server(
      {Step::json_reply(message(json::array({text("```cuda\n__global__")}), "max_tokens")),
       Step::json_reply(message(json::array({text("I won't")}), "refusal")),
       Step::json_reply(message(json::array({thinking("so much thinking")}), "max_tokens")),
       Step::json_reply(message(json::array({{{"type", "redacted_thinking"}, {"data", "enc"}}}), "max_tokens")),
       Step::json_reply(message(json::array(), "end_turn")),
       Step::json_reply(message(json::array({text("partial")}), "pause_turn")),
       Step::json_reply(message(json::array({text("cut")}), "stop_sequence"))});
  auto c = client("anthropic", server);
  const std::pair<ProviderOutcome, const char*> expected[] = {{ProviderOutcome::truncated, "max_tokens"},
                                                              {ProviderOutcome::refused, "refusal"},
                                                              {ProviderOutcome::reasoning_only, "max_tokens"},
                                                              {ProviderOutcome::reasoning_only, "max_tokens"},
                                                              {ProviderOutcome::empty, "end_turn"},
                                                              {ProviderOutcome::truncated, "pause_turn"},
                                                              {ProviderOutcome::ok, "stop_sequence"}};
  for (const auto& [outcome, stop] : expected) {
    const auto reply = complete(*c);
    EXPECT_EQ(reply.outcome, outcome) << stop << ": " << reply.error;
    EXPECT_EQ(reply.finish_reason, stop);
    EXPECT_EQ(reply.attempts, 1);
    if (outcome != ProviderOutcome::ok) {
      EXPECT_FALSE(reply.error.empty()) << stop;
    }
    expect_clean(reply);
  }
  EXPECT_EQ(server.requests(), 7u);
}

TEST_F(AnthropicClient, QuotaAndBillingStopWithoutRetry) {
  ScriptedServer server(
      {Step::json_reply(error("invalid_request_error", "Your credit balance is too low to access the Anthropic API."),
                        400),
       Step::json_reply(error("billing_error", "billing problem"), 402)});
  auto c = client("anthropic", server);
  for (int i = 0; i < 2; ++i) {
    const auto reply = complete(*c);
    EXPECT_EQ(reply.outcome, ProviderOutcome::quota_exhausted) << reply.error;
    EXPECT_EQ(reply.attempts, 1);
    EXPECT_TRUE(reply.retries.empty());
    expect_clean(reply);
  }
  EXPECT_EQ(server.requests(), 2u);
  EXPECT_TRUE(lines.empty());
}

TEST_F(AnthropicClient, RequestTooLarge) {
  ScriptedServer server(
      {Step::json_reply(error("request_too_large", "Request exceeds the maximum allowed number of bytes."), 413),
       Step::json_reply(error("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"), 400)});
  auto c = client("anthropic", server);
  for (int status : {413, 400}) {
    const auto reply = complete(*c);
    EXPECT_EQ(reply.outcome, ProviderOutcome::request_too_large) << reply.error;
    EXPECT_EQ(reply.http_status, status);
    EXPECT_EQ(reply.attempts, 1);
    expect_clean(reply);
  }
}

TEST_F(AnthropicClient, RequestErrorsAreNotRetried) {
  ScriptedServer server({Step::json_reply(error("invalid_request_error", "max_tokens: must be less than 64000"), 400),
                         Step::json_reply(error("not_found_error", "model: claude-nope"), 404),
                         Step::json_reply(error("authentication_error", "invalid x-api-key"), 401)});
  auto c = client("anthropic", server);
  EXPECT_EQ(complete(*c).outcome, ProviderOutcome::provider_error);
  EXPECT_EQ(complete(*c).outcome, ProviderOutcome::provider_error);
  const auto auth = complete(*c);
  EXPECT_EQ(auth.outcome, ProviderOutcome::infra_error);  // the key, not the model
  EXPECT_EQ(auth.attempts, 1);
  EXPECT_NE(auth.error.find("authentication_error"), std::string::npos) << auth.error;
  expect_clean(auth);
  EXPECT_EQ(server.requests(), 3u);
}

TEST_F(AnthropicClient, ApiErrorAndMalformedJsonAreRetriedThenInfraError) {
  ScriptedServer server({Step::json_reply(error("api_error", "Internal server error"), 500),
                         Step::raw(200, "{\"content\": [{"), Step::raw(200, "{\"content\": 5}")});
  auto c = client("anthropic", server, {{"max_attempts", 3}});
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::infra_error);
  EXPECT_EQ(reply.attempts, 3);
  EXPECT_EQ(retry_lines_starting("retrying (500, "), 1u);
  EXPECT_EQ(retry_lines_starting("retrying (malformed JSON, "), 1u);
  EXPECT_NE(reply.error.find("malformed response"), std::string::npos) << reply.error;
  expect_clean(reply);
}

TEST_F(AnthropicClient, MissingUsage) {
  ScriptedServer server({Step::json_reply(message(json::array({text("ok")}), "end_turn", json::object()))});
  auto c = client("anthropic", server);
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::ok);
  EXPECT_FALSE(reply.usage.input_tokens.has_value());
  EXPECT_FALSE(reply.usage.output_tokens.has_value());
  EXPECT_EQ(reply.attempts, 1);
  expect_clean(reply);
}

TEST_F(AnthropicClient, DroppedAndStalledConnections) {
  ScriptedServer server({Step::dropped(message(json::array({text("x")})).dump()),
                         Step::stalled(message(json::array({text("x")})).dump()),
                         Step::json_reply(message(json::array({text("finally")})))});
  auto c = client("anthropic", server, {{"timeout_s", 0.4}});
  const auto reply = complete(*c);
  EXPECT_EQ(reply.outcome, ProviderOutcome::ok) << reply.error;
  EXPECT_EQ(reply.content, "finally");
  EXPECT_EQ(reply.attempts, 3);
  EXPECT_EQ(retry_lines_starting("retrying (connection dropped, "), 1u);
  EXPECT_EQ(retry_lines_starting("retrying (timeout, "), 1u);
  expect_clean(reply);
}

TEST_F(AnthropicClient, ValidateAsksForTheModel) {
  ScriptedServer server({Step::json_reply({{"type", "model"}, {"id", "test-model"}}),
                         Step::json_reply(error("not_found_error", "model: nope"), 404)});
  auto c = client("anthropic", server);
  const auto ok = c->validate();
  EXPECT_TRUE(ok.ok) << ok.message;
  auto unknown = client("anthropic", server, json::object(), "nope");
  const auto missing = unknown->validate();
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.message.find("nope"), std::string::npos) << missing.message;
  const auto got = server.received();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].method, "GET");
  EXPECT_EQ(got[0].path, "/v1/models/test-model");
  EXPECT_EQ(got[0].header("x-api-key"), kTestKey);
}

TEST_F(AnthropicClient, BadOptions) {
  ScriptedServer server;
  EXPECT_THROW(client("anthropic", server, {{"thinking_budget", 4096}, {"max_tokens", 4000}}), InputError);
  EXPECT_THROW(client("anthropic", server, {{"thinking_budget", 100}}), InputError);
  EXPECT_THROW(client("anthropic", server, {{"seed", 1}}), InputError);  // the Messages API has none
}

}  // namespace
}  // namespace ptxbench::test
