// The replay: and files: model clients.
#include <gtest/gtest.h>

#include <fstream>

#include "agent/clients/model_client.h"
#include "agent/extractor.h"
#include "core/error.h"
#include "support/temp_dir.h"

using namespace ptxbench;

namespace {

ChatRequest at(const std::string& problem, int traj, int turn) {
  ChatRequest r;
  r.at = {"run", problem, traj, turn};
  return r;
}

std::unique_ptr<ModelClient> client(const std::string& spec, json args = json::object()) {
  ClientConfig c = parse_model_spec(spec);
  c.args = std::move(args);
  return make_client(c);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(FilesClient, ReturnsEachTurnsFileAsTheOnlyCodeBlock) {
  test::TempDir d;
  std::filesystem::create_directories(d.path() / "gemm/0");
  std::ofstream(d.path() / "gemm/0/0.cu") << "// has ``` inside\nextern \"C\" int ptxbench_gemm(int);";
  auto c = client("files:" + d.path().string());
  EXPECT_EQ(c->provider(), "files");
  EXPECT_TRUE(c->validate().ok);
  EXPECT_NE(c->validate().message.find("gemm"), std::string::npos);
  const ChatReply r = c->complete(at("gemm", 0, 0), {});
  EXPECT_EQ(r.outcome, ProviderOutcome::ok);
  const auto code = extract_code(r.content, "ptxbench_gemm");
  ASSERT_TRUE(code.found);
  EXPECT_EQ(code.code, "// has ``` inside\nextern \"C\" int ptxbench_gemm(int);\n");
  EXPECT_FALSE(code.unterminated);
}

TEST(FilesClient, MissingTurnFileIsAReplyWithoutCodeAndMissingFolderIsAnError) {
  test::TempDir d;
  std::filesystem::create_directories(d.path() / "gemm/0");
  auto c = client("files:" + d.path().string());
  const ChatReply r = c->complete(at("gemm", 0, 3), {});
  EXPECT_EQ(r.outcome, ProviderOutcome::ok);
  EXPECT_FALSE(extract_code(r.content, "ptxbench_gemm").found);
  EXPECT_NE(r.content.find("3.cu"), std::string::npos);
  const std::string e = error_of([&] { c->complete(at("gemm", 1, 0), {}); });
  EXPECT_NE(e.find("gemm/1"), std::string::npos) << e;
  EXPECT_NE(e.find("numbered from 0"), std::string::npos) << e;
  EXPECT_NE(error_of([&] { client("files:/no/such/dir"); }).find("not a folder"), std::string::npos);
  EXPECT_NE(error_of([&] {
              client("files:" + d.path().string(), {{"temperature", 1}});
            }).find("unknown model argument 'temperature'"),
            std::string::npos);
}

TEST(FilesClient, AMarkdownFileIsTheReplyAsWrittenAndAnAllFolderAnswersEveryTrajectory) {
  test::TempDir d;
  std::filesystem::create_directories(d.path() / "gemm/all");
  std::filesystem::create_directories(d.path() / "gemm/2");
  std::ofstream(d.path() / "gemm/all/0.md")
      << "The tile was off by one.\n\n```cuda\nextern \"C\" int ptxbench_gemm(int);\n```\n";
  std::ofstream(d.path() / "gemm/2/0.cu") << "int own;";
  auto c = client("files:" + d.path().string());
  for (int traj : {0, 7}) {
    const ChatReply r = c->complete(at("gemm", traj, 0), {});
    const auto code = extract_code(r.content, "ptxbench_gemm");
    ASSERT_TRUE(code.found) << r.content;
    EXPECT_EQ(code.code, "extern \"C\" int ptxbench_gemm(int);\n");
    EXPECT_EQ(code.prose, "The tile was off by one.");
  }
  // A trajectory with its own folder answers from it.
  EXPECT_EQ(extract_code(c->complete(at("gemm", 2, 0), {}).content, "ptxbench_gemm").code, "int own;\n");
}

TEST(FilesClient, LatencyIsHonoured) {
  test::TempDir d;
  std::filesystem::create_directories(d.path() / "gemm/0");
  auto c = client("files:" + d.path().string(), {{"latency_ms", 120}});
  const ChatReply r = c->complete(at("gemm", 0, 0), {});
  EXPECT_GE(r.seconds, 0.11);
}

TEST(ReplayClient, ReplaysRecordedRepliesAndNamesAMissingTurn) {
  test::TempDir d;
  const auto file = d.path() / "run.jsonl";
  {
    std::ofstream out(file);
    out << json{{"format", "ptxbench.turn/1"},
                {"run", {{"id", "r1"}}},
                {"problem", "gemm"},
                {"trajectory", 0},
                {"turn", 0},
                {"reply",
                 {{"outcome", "ok"},
                  {"content", "```cuda\nint a;\n```"},
                  {"reasoning", "hmm"},
                  {"finish_reason", "stop"},
                  {"model", "m-1"},
                  {"usage", {{"input_tokens", 10}, {"output_tokens", 5}, {"reasoning_tokens", nullptr}}},
                  {"response_body", "{\"id\":1}"}}}}
               .dump()
        << "\n";
    out << json{{"format", "ptxbench.turn/1"},
                {"run", {{"id", "r1"}}},
                {"problem", "gemm"},
                {"trajectory", 0},
                {"turn", 1},
                {"reply", {{"outcome", "refused"}, {"content", ""}, {"error", "policy"}}}}
               .dump()
        << "\n";
  }
  auto c = client("replay:" + file.string());
  EXPECT_NE(c->validate().message.find("2 recorded turns of run r1"), std::string::npos) << c->validate().message;
  const ChatReply r0 = c->complete(at("gemm", 0, 0), {});
  EXPECT_EQ(r0.outcome, ProviderOutcome::ok);
  EXPECT_EQ(r0.content, "```cuda\nint a;\n```");
  EXPECT_EQ(r0.reasoning, "hmm");
  EXPECT_EQ(r0.model, "m-1");
  EXPECT_EQ(r0.usage.input_tokens, 10);
  EXPECT_FALSE(r0.usage.reasoning_tokens.has_value());
  EXPECT_EQ(r0.response_body, "{\"id\":1}");
  const ChatReply r1 = c->complete(at("gemm", 0, 1), {});
  EXPECT_EQ(r1.outcome, ProviderOutcome::refused);
  EXPECT_EQ(r1.error, "policy");
  const std::string e = error_of([&] { c->complete(at("gemm", 1, 0), {}); });
  EXPECT_NE(e.find("no recorded turn gemm/1/0"), std::string::npos) << e;
  EXPECT_NE(e.find("trajectories 0-0, turns 0-1"), std::string::npos) << e;
  EXPECT_NE(error_of([&] { client("replay:" + (d.path() / "none.jsonl").string()); }).find("cannot read"),
            std::string::npos);
}
