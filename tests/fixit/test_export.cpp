// The exports' shapes, made from a record alone.
#include <gtest/gtest.h>

#include "core/error.h"
#include "fixit/export.h"
#include "fixit_core/record_format.h"

using namespace ptxbench;
using namespace ptxbench::fixit;

namespace {

json record(const std::string& tmpl = "fixit") {
  return {{"format", kRecordFormat},
          {"id", "b/k"},
          {"template", tmpl},
          {"problem", "mha_fwd"},
          {"split", "train"},
          {"error", tmpl == "fixit" ? json{{"class", "incorrect"}, {"signature", "incorrect/x"}} : json(nullptr)},
          {"context",
           {{"system", "SYS"},
            {"problem_prompt", "PROBLEM"},
            {"failed_reply", tmpl == "fixit" ? "FAILED" : ""},
            {"feedback", tmpl == "fixit" ? "FEEDBACK" : ""}}},
          {"target", {{"explanation", "WHY"}, {"kernel", "KERNEL\n"}, {"message", target_message("WHY", "KERNEL\n")}}},
          {"fix", {{"source", "teacher"}}},
          {"provenance", {{"teacher", nullptr}}}};
}

TEST(Export, TrlIsPromptCompletionWithTheFixAloneAsTheCompletion) {
  const json line = export_line(record(), {ExportFormat::trl, true});
  ASSERT_EQ(line["prompt"].size(), 4u);
  EXPECT_EQ(line["prompt"][0], (json{{"role", "system"}, {"content", "SYS"}}));
  EXPECT_EQ(line["prompt"][2], (json{{"role", "assistant"}, {"content", "FAILED"}}));
  EXPECT_EQ(line["prompt"][3], (json{{"role", "user"}, {"content", "FEEDBACK"}}));
  ASSERT_EQ(line["completion"].size(), 1u);
  EXPECT_EQ(line["completion"][0]["content"], "WHY\n\n```cuda\nKERNEL\n```\n");
  EXPECT_EQ(line.size(), 2u);  // nothing else: SFTTrainer sees only prompt and completion
  EXPECT_EQ(export_line(record(), {ExportFormat::trl, false})["prompt"].size(), 3u);
  EXPECT_EQ(export_line(record("kernelgen"), {ExportFormat::trl, true})["prompt"].size(), 2u);
}

TEST(Export, ShareGptAlternatesAndOpenAiWeighsTheFailedTurnZero) {
  const json s = export_line(record(), {ExportFormat::sharegpt, true});
  ASSERT_EQ(s["conversations"].size(), 4u);
  EXPECT_EQ(s["conversations"][0]["from"], "human");
  EXPECT_EQ(s["conversations"][1]["from"], "gpt");
  EXPECT_EQ(s["conversations"][3]["from"], "gpt");
  EXPECT_EQ(s["system"], "SYS");
  const json o = export_line(record(), {ExportFormat::openai, true});
  ASSERT_EQ(o["messages"].size(), 5u);
  EXPECT_EQ(o["messages"][2]["weight"], 0);
  EXPECT_EQ(o["messages"][4]["weight"], 1);
  EXPECT_FALSE(o["messages"][1].contains("weight"));  // only assistant turns carry one
}

TEST(Export, ARecordMissingAFieldIsAnErrorNamingIt) {
  json r = record();
  r["target"].erase("kernel");
  try {
    export_line(r, {ExportFormat::trl, true});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("target.kernel"), std::string::npos) << e.what();
  }
}

TEST(Export, TheCardCountsPerProblemClassAndSource) {
  const json card = card_json({{{"id", "b"}, {"config", {{"recipe", {{"name", "s1"}}}}}},
                               {record(), record("kernelgen")},
                               json::object(),
                               {ExportFormat::trl, true},
                               "out.jsonl"});
  EXPECT_EQ(card["records"], 2);
  EXPECT_EQ(card["by_problem"]["mha_fwd"], 2);
  EXPECT_EQ(card["by_class"]["incorrect"], 1);
  EXPECT_EQ(card["by_class"]["kernelgen"], 1);
  EXPECT_NE(card_markdown(card).find("| mha_fwd | 2 |"), std::string::npos);
}

}  // namespace
