// Recipes are data: every shipped one loads, and a malformed one is an error naming the file and key.
#include <gtest/gtest.h>

#include <fstream>

#include "core/error.h"
#include "fixit/recipe.h"
#include "support/temp_dir.h"

using namespace ptxbench;
using namespace ptxbench::fixit;

namespace {

std::filesystem::path repo() { return PTXBENCH_SOURCE_DIR; }

class Recipes : public ::testing::Test {
 protected:
  std::filesystem::path write(const std::string& name, const std::string& text) {
    const auto p = dir_.path() / (name + ".toml");
    std::ofstream(p) << text;
    return p;
  }
  std::string error_of(const std::string& text, const std::string& name = "r") {
    try {
      load_recipe(write(name, text));
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
  test::TempDir dir_;
};

const char* kMinimal = "name = \"r\"\ntitle = \"t\"\nsuite = \"4ops\"\n";

TEST_F(Recipes, ThePapersSevenShipAndLoad) {
  RecipeRegistry reg(repo() / "recipes");
  EXPECT_EQ(reg.names(), (std::vector<std::string>{"s0", "s1", "s2", "s3", "s4", "s5", "s6"}));
  for (const auto& n : reg.names()) {
    const Recipe r = reg.load(n);
    EXPECT_EQ(r.name, n);
    EXPECT_FALSE(r.teacher.empty()) << n;
    EXPECT_EQ(r.sha256.size(), 64u);
  }
  EXPECT_EQ(reg.load("s0").template_kind, Template::kernelgen);
  EXPECT_EQ(reg.load("s1").per_trajectory, 1);
  EXPECT_EQ(reg.load("s1").suite, "4ops");
  EXPECT_EQ(reg.load("s3").suite, "8ops");
  EXPECT_EQ(reg.load("s4").balance, Balance::post);
  EXPECT_EQ(reg.load("s5").balance, Balance::pre);
  EXPECT_EQ(reg.load("s6").teacher, "vllm:Qwen/Qwen3.6-27B");
  EXPECT_EQ(reg.load("s2").classes.back(), "correct_slow");
}

TEST_F(Recipes, DefaultsAreTheDocumentedOnes) {
  const Recipe r = load_recipe(write("r", kMinimal));
  EXPECT_EQ(r.template_kind, Template::fixit);
  EXPECT_EQ(r.classes.size(), 6u);  // every class but correct_slow
  EXPECT_EQ(r.fix.attempts, 3);
  EXPECT_TRUE(r.fix.require_target);
  EXPECT_EQ(r.balance, Balance::none);
  EXPECT_TRUE(r.teacher.empty());
}

TEST_F(Recipes, ErrorsNameTheFileAndTheKey) {
  const std::string base = kMinimal;
  auto has = [](const std::string& e, const std::string& part) { return e.find(part) != std::string::npos; };
  std::string e = error_of(base + "colour = 1\n");
  EXPECT_TRUE(has(e, "r.toml") && has(e, "'colour'") && has(e, "unknown key")) << e;
  e = error_of(base + "classes = [\"incorect\"]\n");
  EXPECT_TRUE(has(e, "'classes[0]'") && has(e, "incorect") && has(e, "known:")) << e;
  e = error_of(base + "classes = [\"incorrect\", \"incorrect\"]\n");
  EXPECT_TRUE(has(e, "listed twice")) << e;
  e = error_of(base + "[balance]\nmode = \"sideways\"\nper_problem = 3\n");
  EXPECT_TRUE(has(e, "'balance.mode'")) << e;
  e = error_of(base + "[balance]\nmode = \"pre\"\n");
  EXPECT_TRUE(has(e, "needs per_problem")) << e;
  e = error_of(base + "[fix]\nattempts = 0\n");
  EXPECT_TRUE(has(e, "'fix.attempts'") && has(e, "1..20")) << e;
  e = error_of(base + "[caps]\nwrong = 3\n");
  EXPECT_TRUE(has(e, "'caps.wrong'")) << e;
  e = error_of(base + "teacher = \"glm\"\n");
  EXPECT_TRUE(has(e, "PROVIDER:MODEL")) << e;
  e = error_of("name = \"other\"\ntitle = \"t\"\nsuite = \"4ops\"\n");
  EXPECT_TRUE(has(e, "'name'") && has(e, "r.toml")) << e;
  e = error_of(base + "template = \"kernelgen\"\nclasses = [\"incorrect\"]\n");
  EXPECT_TRUE(has(e, "kernelgen")) << e;
  e = error_of("title = \"t\"\nsuite = \"4ops\"\n");
  EXPECT_TRUE(has(e, "'name'") && has(e, "missing")) << e;
}

TEST_F(Recipes, AnUnknownNameListsTheKnownOnes) {
  RecipeRegistry reg(repo() / "recipes");
  try {
    reg.load("s9");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("s0, s1"), std::string::npos) << e.what();
  }
}

}  // namespace
