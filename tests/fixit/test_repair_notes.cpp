// Repair notes: retrieval ranks by BM25 over the error signature and the kernel's features, the
// exclusion rules hold (and are counted), and the feedback section says what it shows.
#include <gtest/gtest.h>

#include <fstream>

#include "core/error.h"
#include "fixit_core/kernel_features.h"
#include "fixit_core/record_format.h"
#include "fixit_core/repair_notes.h"
#include "support/temp_dir.h"

using namespace ptxbench;
using namespace ptxbench::fixit;

namespace {

json note_record(const std::string& id, const std::string& problem, const std::string& cls,
                 const std::string& signature, const std::string& failing_kernel, const std::string& why) {
  return {{"format", kRecordFormat},
          {"id", id},
          {"template", "fixit"},
          {"problem", problem},
          {"split", "train"},
          {"error", {{"class", cls}, {"signature", signature}}},
          {"context",
           {{"system", ""},
            {"problem_prompt", "P"},
            {"failed_reply", "R"},
            {"feedback", "F"},
            {"failing_kernel", failing_kernel}}},
          {"target",
           {{"explanation", why}, {"kernel", "FIXED(" + id + ")\n"}, {"message", target_message(why, "FIXED\n")}}}};
}

const std::string kTmaKernel =
    "asm volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0]\");\n"
    "asm volatile(\"mbarrier.try_wait.parity.shared.b64 p, [%0], %1;\");\n__shared__ float s[64];";
const std::string kSimtKernel =
    "__global__ void k(float* x) { __shared__ float s[32]; s[threadIdx.x] = x[0]; __syncthreads(); }";

std::vector<json> corpus() {
  return {note_record("b/1", "mha_fwd", "incorrect", "incorrect/correctness/LSE/nonfinite/listed", kSimtKernel,
                      "LSE was never written."),
          note_record("b/2", "mha_fwd_causal", "incorrect", "incorrect/correctness/O/mismatch/listed", kSimtKernel,
                      "The mask was off by one."),
          note_record("b/3", "mha_bwd", "compile_error", "compile_error/cudafe/identifier \"_\" is undefined",
                      kTmaKernel, "A helper was misspelled."),
          note_record("b/4", "gqa_fwd", "correct_no_target", "correct_no_target/UTMALDG|UTMASTG|UTMAREDG", kSimtKernel,
                      "Loads went through ld.global, not TMA."),
          note_record("b/5", "mha_bwd", "sanitizer_error",
                      "sanitizer_error/racecheck/Error: Race reported between Write access", kTmaKernel,
                      "The barrier was waited on by one thread only.")};
}

TEST(KernelFeatures, NameTheTargetsAndMemoryPathsInTheCodeNotInComments) {
  EXPECT_EQ(kernel_features(kTmaKernel), (std::vector<std::string>{"mbarrier", "shared_memory", "tma"}));
  EXPECT_EQ(kernel_features("// wgmma.mma_async in a comment\n__global__ void k() { __syncthreads(); }"),
            (std::vector<std::string>{"block_barrier"}));
  EXPECT_EQ(kernel_features("asm(\"wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16\");"),
            (std::vector<std::string>{"bf16", "wgmma"}));
}

TEST(RepairNotes, TheSharedSignatureRanksFirstAndTheSameProblemIsExcludedByDefault) {
  RepairNotes notes(corpus(), "corpus");
  EXPECT_EQ(notes.size(), 5u);
  NotesQuery q{"mha_fwd", "incorrect", "incorrect/correctness/O/mismatch/listed", kernel_features(kSimtKernel)};
  NotesOptions o;
  o.k = 2;
  Retrieval r = notes.retrieve(q, o);
  ASSERT_EQ(r.shown.size(), 2u);
  EXPECT_EQ(r.shown[0].note->id, "b/2");  // same class, output and why, a sibling problem
  EXPECT_GT(r.shown[0].score, r.shown[1].score);
  EXPECT_EQ(r.excluded_same_problem, 1);  // b/1 is mha_fwd's own
  o.same_problem = true;
  r = notes.retrieve(q, o);
  EXPECT_EQ(r.excluded_same_problem, 0);
  EXPECT_TRUE(r.shown[0].note->id == "b/2" || r.shown[0].note->id == "b/1");
  // Held-out problems' notes are never shown, and say so.
  o.held_out = {"mha_fwd_causal"};
  r = notes.retrieve(q, o);
  EXPECT_EQ(r.excluded_held_out, 1);
  for (const auto& s : r.shown) EXPECT_NE(s.note->problem, "mha_fwd_causal");
}

TEST(RepairNotes, FeaturesBreakTiesBetweenClassesThatShareNoWords) {
  RepairNotes notes(corpus(), "corpus");
  // A racecheck failure in a TMA kernel: the sanitizer note first, then the TMA kernel's compile error (features).
  NotesQuery q{"gemm", "sanitizer_error", "sanitizer_error/racecheck/Error: Race reported between Read access",
               kernel_features(kTmaKernel)};
  NotesOptions o;
  o.k = 2;
  const Retrieval r = notes.retrieve(q, o);
  ASSERT_EQ(r.shown.size(), 2u);
  EXPECT_EQ(r.shown[0].note->id, "b/5");
  EXPECT_EQ(r.shown[1].note->id, "b/3");
}

TEST(RepairNotes, TheFeedbackSectionShowsTheExplanationAndTheKernelOnlyWhenAsked) {
  RepairNotes notes(corpus(), "corpus");
  NotesQuery q{"gemm", "compile_error", "compile_error/cudafe/identifier \"_\" is undefined", {}};
  NotesOptions o;
  o.k = 1;
  Retrieval r = notes.retrieve(q, o);
  std::string text = render_notes(r, o);
  EXPECT_NE(text.find("A helper was misspelled."), std::string::npos) << text;
  EXPECT_EQ(text.find("FIXED(b/3)"), std::string::npos) << text;
  o.with_fixed_kernel = true;
  text = render_notes(r, o);
  EXPECT_NE(text.find("FIXED(b/3)"), std::string::npos) << text;
  const json recorded = r.to_json(o);
  EXPECT_EQ(recorded["shown"][0]["id"], "b/3");
  EXPECT_EQ(recorded["version"], kNotesVersion);
  EXPECT_EQ(render_notes(Retrieval{}, o), "");
}

TEST(RepairNotes, ARecordsFileLoadsAndTheHashFollowsTheContent) {
  test::TempDir d;
  const auto file = d.path() / "notes.jsonl";
  {
    std::ofstream out(file);
    for (const auto& r : corpus()) out << r.dump() << "\n";
  }
  auto a = load_repair_notes(file.string(), d.path() / "none.db");
  EXPECT_EQ(a->size(), 5u);
  auto changed = corpus();
  changed[0]["target"]["explanation"] = "something else";
  EXPECT_NE(RepairNotes(changed, "x").sha256(), a->sha256());
  EXPECT_EQ(RepairNotes(corpus(), "y").sha256(), a->sha256());
  std::ofstream(d.path() / "bad.jsonl") << "{\"format\": \"ptxbench.fixit/1\"}\n";
  EXPECT_THROW(load_repair_notes((d.path() / "bad.jsonl").string(), d.path() / "none.db"), InputError);
  try {
    load_repair_notes("no-such-build", d.path() / "none.db");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no Fixit build"), std::string::npos) << e.what();
  }
}

}  // namespace
