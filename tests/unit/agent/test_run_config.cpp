// The run config: TOML file, command-line pairs, validation, identity and cost.
#include <gtest/gtest.h>

#include <fstream>

#include "agent/run_config.h"
#include "agent/run_identity.h"
#include "agent/turn_pricing.h"
#include "core/error.h"
#include "support/temp_dir.h"

using namespace ptxbench;

namespace {
std::filesystem::path write(const test::TempDir& d, const std::string& text) {
  auto p = d.path() / "run.toml";
  std::ofstream(p) << text;
  return p;
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

TEST(RunConfig, FileSetsEveryField) {
  test::TempDir d;
  auto c = load_run_config_file(write(d, R"(
model = "openai:gpt-5"
problems = ["gemm", "mha_fwd"]
arch = "sm_100a"
trajectories = 2
turns = 3
knowledge = ["params", "contract"]
context_turns = "all"
max_infra_errors = 4
infra_retry_delay_s = 0.5
parallel = 6
compile_jobs = 1
limit = 9
run_name = "exp-1"
rejudge = true
[model_args]
temperature = 0.7
base_url = "http://127.0.0.1:8080/v1"
api_key_env = "OPENAI_API_KEY"
[evaluation]
gpu = false
sanitize = false
device = 1
[prices."openai:gpt-5"]
input_per_mtok = 1.25
output_per_mtok = 10
)"));
  EXPECT_EQ(c.model, "openai:gpt-5");
  EXPECT_EQ(c.problems, (std::vector<std::string>{"gemm", "mha_fwd"}));
  EXPECT_EQ(c.arch, "sm_100a");
  EXPECT_EQ(c.trajectories, 2);
  EXPECT_EQ(c.turns, 3);
  EXPECT_EQ(c.knowledge, "params,contract");
  EXPECT_EQ(c.context_turns, -1);
  EXPECT_EQ(c.max_infra_errors, 4);
  EXPECT_DOUBLE_EQ(c.infra_retry_delay_s, 0.5);
  EXPECT_EQ(c.parallel, 6);
  EXPECT_EQ(c.compile_jobs, 1);
  EXPECT_EQ(c.limit, 9);
  EXPECT_EQ(c.run_name, "exp-1");
  EXPECT_TRUE(c.rejudge);
  EXPECT_EQ(c.model_args["temperature"], 0.7);
  EXPECT_EQ(c.model_args["base_url"], "http://127.0.0.1:8080/v1");
  EXPECT_FALSE(c.use_gpu);
  EXPECT_FALSE(c.sanitize);
  EXPECT_TRUE(c.probe);
  EXPECT_EQ(c.device, 1);
  ASSERT_TRUE(c.prices_for_model());
  EXPECT_DOUBLE_EQ(c.prices_for_model()->output_per_mtok, 10);
  EXPECT_NO_THROW(validate_run_config(c));
}

TEST(RunConfig, BadFilesSayWhatAndWhere) {
  test::TempDir d;
  EXPECT_NE(error_of([&] {
              load_run_config_file(write(d, "model = \"x:y\"\ntrajectoris = 3\n"));
            }).find("run.toml:2: 'trajectoris': unknown key"),
            std::string::npos);
  EXPECT_NE(
      error_of([&] { load_run_config_file(write(d, "turns = \"eight\"\n")); }).find("'turns': must be an integer"),
      std::string::npos);
  EXPECT_NE(error_of([&] {
              load_run_config_file(write(d, "[evaluation]\ngpus = true\n"));
            }).find("'evaluation.gpus': unknown key"),
            std::string::npos);
  EXPECT_NE(error_of([&] { load_run_config_file(write(d, "turns = [\n")); }).find("run.toml:"), std::string::npos);
  EXPECT_NE(error_of([&] {
              load_run_config_file(write(d, "[model_args]\napi_key = \"sk-123\"\n"));
            }).find("would store a secret"),
            std::string::npos);
  EXPECT_NE(error_of([&] { load_run_config_file(write(d, "[prices.m]\ninput_per_mtok = 1\n")); }).find("needs both"),
            std::string::npos);
}

TEST(RunConfig, ModelArgPairs) {
  EXPECT_EQ(parse_model_arg("temperature=0.7").second, 0.7);
  EXPECT_EQ(parse_model_arg("seed=3").second, 3);
  EXPECT_EQ(parse_model_arg("stream=false").second, false);
  EXPECT_EQ(parse_model_arg("base_url=http://h:1/v1").second, "http://h:1/v1");
  EXPECT_EQ(parse_model_arg("reasoning_effort=high").second, "high");
  EXPECT_EQ(parse_model_arg("stop=a=b").second, "a=b");
  EXPECT_NE(error_of([] { parse_model_arg("temperature"); }).find("expected KEY=VALUE"), std::string::npos);
  EXPECT_NE(error_of([] { parse_model_arg("api_key=sk-1"); }).find("secret"), std::string::npos);
  EXPECT_NE(error_of([] { parse_model_arg("OPENAI_TOKEN=x"); }).find("secret"), std::string::npos);
  EXPECT_NO_THROW(parse_model_arg("api_key_env=OPENAI_API_KEY"));
}

TEST(RunConfig, ValidationNamesTheSetting) {
  RunConfig c;
  c.model = "files:/x";
  c.trajectories = 0;
  EXPECT_NE(error_of([&] { validate_run_config(c); }).find("trajectories must be at least 1"), std::string::npos);
  c.trajectories = 1;
  c.limit = 0;
  EXPECT_NE(error_of([&] { validate_run_config(c); }).find("limit"), std::string::npos);
  c.limit.reset();
  c.model.clear();
  EXPECT_NE(error_of([&] { validate_run_config(c); }).find("--model"), std::string::npos);
  EXPECT_EQ(parse_context_turns("all"), -1);
  EXPECT_EQ(parse_context_turns("2"), 2);
  EXPECT_NE(error_of([] { parse_context_turns("-1"); }).find("--context-turns"), std::string::npos);
  EXPECT_NE(error_of([] { parse_context_turns("2x"); }).find("--context-turns"), std::string::npos);
}

TEST(RunIdentity, BudgetIsNotIdentityButModelAndSettingsAre) {
  RunConfig a;
  a.model = "files:/data/demo";
  a.problems = {"mha_fwd", "gemm"};
  RunConfig b = a;
  b.trajectories = 1;
  b.turns = 2;
  b.limit = 3;
  b.parallel = 4;
  b.problems = {"gemm", "mha_fwd"};  // order does not matter
  EXPECT_EQ(run_identity_sha256(a), run_identity_sha256(b));
  EXPECT_EQ(run_id_for(a), run_id_for(b));
  for (auto change : std::vector<std::function<void(RunConfig&)>>{
           [](RunConfig& c) { c.model = "files:/data/other"; }, [](RunConfig& c) { c.arch = "sm_100a"; },
           [](RunConfig& c) { c.knowledge = "none"; }, [](RunConfig& c) { c.context_turns = 1; },
           [](RunConfig& c) { c.use_gpu = false; }, [](RunConfig& c) { c.model_args["temperature"] = 0.1; },
           [](RunConfig& c) { c.problems = {"gemm"}; }}) {
    RunConfig c = a;
    change(c);
    EXPECT_NE(run_identity_sha256(c), run_identity_sha256(a));
  }
  EXPECT_EQ(run_id_for(a).rfind("files-demo-sm_90a-", 0), 0u) << run_id_for(a);
  a.run_name = "mine";
  EXPECT_EQ(run_id_for(a), "mine");
}

TEST(RunIdentity, ASuiteIsPartOfTheIdentityAndTheStoredConfig) {
  RunConfig a;
  a.model = "files:/data/demo";
  a.problems = {"mha_fwd", "gemm"};
  RunConfig b = a;
  b.suite = "4ops";
  b.splits = {{"mha_fwd", "train"}, {"gemm", "held-out"}};
  EXPECT_NE(run_identity_sha256(a), run_identity_sha256(b));
  EXPECT_FALSE(run_identity(a).contains("suite")) << "runs without a suite keep their identity";
  const json j = b.to_json();
  EXPECT_EQ(j["suite"], "4ops");
  EXPECT_EQ(j["splits"], json({{"gemm", "held-out"}, {"mha_fwd", "train"}}));
  EXPECT_EQ(a.to_json()["splits"], json::object());
}

TEST(RunConfigFile, SuiteKeyIsRead) {
  test::TempDir d;
  const RunConfig c = load_run_config_file(write(d, "model = \"files:x\"\nsuite = \"8ops\"\n"));
  EXPECT_EQ(c.suite, "8ops");
}

TEST(TurnPricing, CostNeedsPricesAndBothTokenCounts) {
  TokenPrices p{2.0, 8.0};
  EXPECT_DOUBLE_EQ(*call_cost_usd(p, 1'000'000, 500'000), 2.0 + 4.0);
  EXPECT_FALSE(call_cost_usd(std::nullopt, 10, 10));
  EXPECT_FALSE(call_cost_usd(p, std::nullopt, 10));
}

TEST(RunIdentity, TritonIsPartOfTheIdentityAndCudaRunsKeepTheirs) {
  RunConfig a;
  a.model = "files:/data/demo";
  a.problems = {"gemm"};
  a.use_gpu = false;
  RunConfig b = a;
  b.language = "triton";
  EXPECT_FALSE(run_identity(a).contains("language")) << "CUDA runs keep the ids they had before Triton";
  EXPECT_EQ(run_identity(b)["language"], "triton");
  EXPECT_NE(run_identity_sha256(a), run_identity_sha256(b));
  EXPECT_EQ(b.to_json()["language"], "triton");
  EXPECT_EQ(a.to_json()["language"], "cuda");
  EXPECT_NO_THROW(validate_run_config(b));
  b.use_gpu = true;
  EXPECT_NO_THROW(validate_run_config(b)) << "Triton runs are judged on the GPU like CUDA ones";
  b.use_gpu = false;
  b.language = "fortran";
  EXPECT_THROW(validate_run_config(b), InputError);
}

TEST(RunConfigFile, LanguageKeyIsRead) {
  test::TempDir d;
  const RunConfig c = load_run_config_file(write(d, "model = \"files:x\"\nlanguage = \"triton\"\n"));
  EXPECT_EQ(c.language, "triton");
}
