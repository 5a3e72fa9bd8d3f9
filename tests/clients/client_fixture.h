// What the scripted-server client tests share: a client made for a ScriptedServer with a test key
// in its own environment variable and a clock that skips retry waits, the status lines it reported,
// and the check that the key appears in nothing the reply records.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "agent/clients/model_client.h"
#include "agent/http/retry.h"
#include "support/scripted_server.h"

namespace ptxbench::test {

inline constexpr const char* kTestKeyVar = "PTXBENCH_TEST_CLIENT_KEY";
inline constexpr const char* kTestKey = "sk-test-7f3a9c1e5b2d4086";

class ClientTest : public ::testing::Test {
 protected:
  void SetUp() override { setenv(kTestKeyVar, kTestKey, 1); }
  void TearDown() override { unsetenv(kTestKeyVar); }

  // `provider` talks to `server`; retries wait on a skipping clock (clock->slept() says how long).
  std::unique_ptr<ModelClient> client(const std::string& provider, const ScriptedServer& server,
                                      json args = json::object(), const std::string& model = "test-model") {
    ClientConfig config{provider, model, std::move(args)};
    if (!config.args.contains("base_url"))
      config.args["base_url"] = server.url() + (provider == "anthropic" ? "" : "/v1");
    if (!config.args.contains("api_key_env")) config.args["api_key_env"] = kTestKeyVar;
    if (!config.args.contains("retry_base_s")) config.args["retry_base_s"] = 0.5;
    config.clock = clock;
    return make_client(config);
  }

  ChatRequest request(const std::string& user = "Write the GEMM kernel.") const {
    ChatRequest r;
    r.at = {"run-1", "gemm", 0, 0};
    r.system = "You write CUDA kernels.";
    r.messages = {{"user", user}};
    return r;
  }

  ChatReply complete(ModelClient& c, const ChatRequest& r) {
    return c.complete(r, [this](const std::string& line) { lines.push_back(line); });
  }
  ChatReply complete(ModelClient& c) { return complete(c, request()); }

  // Every retry was reported through the status callback, and nothing holds the key.
  void expect_clean(const ChatReply& reply) const {
    for (const auto& r : reply.retries)
      EXPECT_NE(std::find(lines.begin(), lines.end(), r), lines.end()) << "retry not reported: " << r;
    for (const std::string* s :
         {&reply.request_body, &reply.response_body, &reply.error, &reply.content, &reply.reasoning})
      EXPECT_EQ(s->find(kTestKey), std::string::npos) << "the key leaked into: " << s->substr(0, 200);
    for (const auto& l : lines) EXPECT_EQ(l.find(kTestKey), std::string::npos) << l;
  }

  size_t retry_lines_starting(const std::string& prefix) const {
    size_t n = 0;
    for (const auto& l : lines) n += l.starts_with(prefix);
    return n;
  }

  std::shared_ptr<SkippingClock> clock = std::make_shared<SkippingClock>();
  std::vector<std::string> lines;
};

}  // namespace ptxbench::test
