// Suites (suites/*.toml, src/problems/suite_spec): the shipped paper, 4ops and 8ops suites, and
// the loader's refusal of every malformed file, naming the file and the key path.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "core/error.h"
#include "problems/suite_spec.h"
#include "support/temp_dir.h"

using namespace ptxbench;
namespace fs = std::filesystem;

namespace {

fs::path repo() { return PTXBENCH_SOURCE_DIR; }
const ProblemRegistry& registry() {
  static const ProblemRegistry reg(repo() / "problems");
  return reg;
}

const std::vector<std::string> kAttention{"mha_fwd", "mha_fwd_causal", "mha_bwd", "mha_bwd_causal"};

// The InputError message of loading `text` as <dir>/<name>.toml ("" if it loaded).
std::string error_loading(const test::TempDir& dir, const std::string& name, const std::string& text) {
  const auto file = dir.path() / (name + ".toml");
  std::ofstream(file) << text;
  try {
    load_suite(file, registry());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& s, const std::string& x) { return s.find(x) != std::string::npos; }

}  // namespace

TEST(Suites, ShippedSuitesAreThePapersSetsWithGemmHeldOut) {
  SuiteRegistry suites(repo() / "suites");
  EXPECT_EQ(suites.names(), (std::vector<std::string>{"4ops", "8ops", "paper"}));

  const SuiteSpec paper = suites.load("paper", registry());
  std::vector<std::string> five{"gemm"};
  five.insert(five.end(), kAttention.begin(), kAttention.end());
  EXPECT_EQ(paper.problems, five);
  EXPECT_TRUE(paper.held_out.empty());

  const SuiteSpec four = suites.load("4ops", registry());
  EXPECT_EQ(four.problems, kAttention);
  EXPECT_EQ(four.held_out, std::vector<std::string>{"gemm"});
  EXPECT_EQ(four.splits().at("gemm"), kHeldOutSplit);
  EXPECT_EQ(four.splits().at("mha_bwd"), kTrainSplit);
  EXPECT_EQ(four.evaluated().back(), "gemm");

  const SuiteSpec eight = suites.load("8ops", registry());
  EXPECT_EQ(eight.problems.size(), 8u);
  for (const auto& p : kAttention) EXPECT_EQ(eight.splits().at(p), kTrainSplit) << p;
  for (const std::string p : {"gqa_fwd", "gqa_bwd", "gemm_fp8", "gemm_bias_gelu"})
    EXPECT_EQ(eight.splits().at(p), kTrainSplit) << p;
  EXPECT_EQ(eight.held_out, std::vector<std::string>{"gemm"});
  EXPECT_EQ(eight.evaluated().size(), 9u);
  const json j = eight.to_json();
  EXPECT_EQ(j["splits"]["gemm"], "held-out");
  EXPECT_EQ(j["name"], "8ops");
}

TEST(Suites, EveryShippedProblemIsInSomeSuite) {
  SuiteRegistry suites(repo() / "suites");
  std::set<std::string> covered;
  for (const auto& n : suites.names())
    for (const auto& p : suites.load(n, registry()).evaluated()) covered.insert(p);
  for (const auto& p : registry().names()) EXPECT_TRUE(covered.count(p)) << p << " is in no suite";
}

TEST(Suites, MalformedFilesAreRefusedNamingTheFileAndKey) {
  test::TempDir dir("ptxbench-suites");
  const std::string ok_tail = "title = \"t\"\nproblems = [\"mha_fwd\"]\nheld_out = [\"gemm\"]\n";
  EXPECT_EQ(error_loading(dir, "good", "name = \"good\"\n" + ok_tail), "");
  struct Case {
    std::string name, text, expect;
  };
  const std::vector<Case> cases{
      {"a", "name = \"a\"\n" + ok_tail + "held = [\"gemm\"]\n",
       "a.toml: 'held': unknown key (known: name, title, problems, held_out)"},
      {"b", "name = \"b\"\ntitle = \"t\"\nproblems = [\"mha_fwd\", \"fft\"]\nheld_out = []\n",
       "b.toml: 'problems[1]': unknown problem 'fft' (known: "},
      {"c", "name = \"c\"\ntitle = \"t\"\nproblems = [\"mha_fwd\"]\nheld_out = [\"mha_fwd\"]\n",
       "'held_out[0]': 'mha_fwd' is already listed as problems[0]"},
      {"d", "name = \"d\"\ntitle = \"t\"\nproblems = [\"gemm\", \"gemm\"]\nheld_out = []\n",
       "'problems[1]': 'gemm' is already listed"},
      {"e", "name = \"other\"\n" + ok_tail, "e.toml: 'name': is 'other' but the file is 'e.toml'"},
      {"f", "name = \"f\"\ntitle = \"t\"\nproblems = [\"mha_fwd\"]\n", "'held_out': missing"},
      {"g", "name = \"g\"\ntitle = \"t\"\nproblems = []\nheld_out = []\n",
       "'problems': must name at least one problem"},
      {"h", "name = \"h\"\ntitle = \"t\"\nproblems = \"mha_fwd\"\nheld_out = []\n", "'problems': must be an array"},
      {"i", "name = \"i\"\ntitle = \"t\"\nproblems = [1]\nheld_out = []\n", "'problems[0]': must be a string"},
      {"j", "name = \"j\"\nproblems = [\"mha_fwd\"]\nheld_out = []\n", "'title': missing"},
      {"k", "name = \"k\"\ntitle = \"t\"\nproblems = [\"mha_fwd\"\n", "k.toml:"},
      {"l", "name = \"l\"\n" + ok_tail + "[extra]\nx = 1\n", "'extra': unknown key"},
  };
  for (const auto& c : cases) {
    const std::string e = error_loading(dir, c.name, c.text);
    EXPECT_TRUE(has(e, c.expect)) << c.name << ": expected '" << c.expect << "' in '" << e << "'";
    EXPECT_TRUE(has(e, (dir.path() / (c.name + ".toml")).string())) << "names the file: " << e;
  }
}

TEST(Suites, UnknownSuiteListsTheKnownOnesAndTheRootCanBeMoved) {
  SuiteRegistry suites(repo() / "suites");
  try {
    suites.load("9ops", registry());
    FAIL() << "an unknown suite loaded";
  } catch (const InputError& e) {
    EXPECT_TRUE(has(e.what(), "unknown suite '9ops' (known: 4ops, 8ops, paper")) << e.what();
  }
  EXPECT_THROW(suites.load("../suites/4ops", registry()), InputError);
  EXPECT_THROW(SuiteRegistry(repo() / "no-such-suites"), InputError);
  EXPECT_EQ(SuiteRegistry::default_root(repo() / "problems"), repo() / "suites");
  EXPECT_EQ(SuiteRegistry::default_root(fs::path(repo() / "problems") / ""), repo() / "suites");
  setenv("PTXBENCH_SUITES", "/tmp/elsewhere", 1);
  EXPECT_EQ(SuiteRegistry::default_root(repo() / "problems"), fs::path("/tmp/elsewhere"));
  unsetenv("PTXBENCH_SUITES");
}
