// The context policy: system + problem always, the last K turns in full, older ones one line each.
#include <gtest/gtest.h>

#include "agent/context_policy.h"

using namespace ptxbench;

namespace {
std::vector<TurnMemory> history(int n) {
  std::vector<TurnMemory> h;
  for (int i = 0; i < n; ++i)
    h.push_back({i, "reply " + std::to_string(i), "feedback " + std::to_string(i), i % 2 ? "correct" : "compile_error",
                 i % 2 ? std::optional<bool>(true) : std::nullopt,
                 i % 2 ? std::optional<double>(0.5 + i) : std::nullopt});
  return h;
}
}  // namespace

TEST(ContextPolicy, FirstTurnIsTheProblemAlone) {
  auto plan = build_context("PROBLEM", {}, {3});
  ASSERT_EQ(plan.messages.size(), 1u);
  EXPECT_EQ(plan.messages[0].role, "user");
  EXPECT_EQ(plan.messages[0].content, "PROBLEM");
  EXPECT_TRUE(plan.record["full"].empty());
}

TEST(ContextPolicy, LastKTurnsInFullOlderOnesAsOneLine) {
  auto plan = build_context("PROBLEM", history(5), {2});
  // user(problem + 3 one-liners), then (assistant, user) for turns 3 and 4.
  ASSERT_EQ(plan.messages.size(), 5u);
  const std::string& first = plan.messages[0].content;
  EXPECT_EQ(first.rfind("PROBLEM", 0), 0u);
  EXPECT_NE(first.find("- turn 1: compile_error\n"), std::string::npos) << first;
  EXPECT_NE(first.find("- turn 2: correct, targets executed, 1.500x the library"), std::string::npos) << first;
  EXPECT_NE(first.find("- turn 3: compile_error"), std::string::npos);
  EXPECT_EQ(first.find("reply 0"), std::string::npos) << "an old turn's code is dropped";
  EXPECT_EQ(plan.messages[1].role, "assistant");
  EXPECT_EQ(plan.messages[1].content, "reply 3");
  EXPECT_EQ(plan.messages[2].content, "feedback 3");
  EXPECT_EQ(plan.messages[4].role, "user");
  EXPECT_EQ(plan.messages[4].content, "feedback 4");
  EXPECT_EQ(plan.record["full"], json({3, 4}));
  EXPECT_EQ(plan.record["one_line"], json({0, 1, 2}));
  EXPECT_EQ(plan.record["bytes_cut"].get<long long>(), 3 * (7 + 10));
  EXPECT_EQ(plan.record["full_turns"], 2);
}

TEST(ContextPolicy, AllKeepsEveryTurnAndZeroKeepsNone) {
  auto all = build_context("P", history(4), {-1});
  EXPECT_EQ(all.messages.size(), 9u);
  EXPECT_TRUE(all.record["one_line"].empty());
  auto none = build_context("P", history(4), {0});
  ASSERT_EQ(none.messages.size(), 1u);
  EXPECT_EQ(none.record["one_line"].size(), 4u);
}

TEST(ContextPolicy, EmptyAnswerGetsAPlaceholderSoRolesStayValid) {
  auto h = history(1);
  h[0].reply.clear();
  h[0].state = "reasoning_only";
  auto plan = build_context("P", h, {3});
  ASSERT_EQ(plan.messages.size(), 3u);
  EXPECT_EQ(plan.messages[1].content, "(no answer text: reasoning_only)");
}
