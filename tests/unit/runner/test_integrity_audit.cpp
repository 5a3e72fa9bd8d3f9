// The GPU activity audit's rules on hand-made observations: each rule fires on the pattern it is
// for, and an honest evaluation (kernels on the given stream, from the candidate's own module,
// graph replays, captured launches) raises none.
#include <gtest/gtest.h>

#include "runner/integrity/observations.h"

using namespace ptxbench::integrity;

namespace {

constexpr uint32_t kGiven = 13;

struct Builder {
  Observations o;
  uint32_t next_corr = 1;
  uint64_t clock = 1'000'000;

  Builder() {
    o.active = true;
    o.candidate_stream = kGiven;
    o.modules.push_back({1, Actor::candidate_call, 0, true, 4096, {"cand_kernel"}});
    o.modules.push_back({2, Actor::baseline, 0, false, 8192, {"nvjet_kernel"}});
  }
  int call(Actor a, const std::string& what = "timing", const std::string& shape = "M=1", bool counted = false) {
    const int i = static_cast<int>(o.calls.size());
    o.calls.push_back({i, a, what, shape, counted, {}});
    return i;
  }
  // A launch made during `call` by `actor`, and the kernel it ran (unless `ran` is false).
  uint32_t kernel(Actor actor, int call, const std::string& name, uint32_t stream = kGiven, bool ran = true,
                  uint64_t duration = 1000) {
    const uint32_t c = next_corr++;
    o.launches.push_back({c, actor, call, "cuLaunchKernel", name, true, stream == kGiven, false, false});
    if (ran) o.work.push_back({DeviceWork::Kind::kernel, c, stream, clock, clock + duration, name, false});
    clock += duration + 100;
    return c;
  }
};

bool has(const std::vector<Violation>& v, const std::string& rule) {
  for (const auto& x : v)
    if (x.rule == rule) return true;
  return false;
}

std::string dump(const std::vector<Violation>& v) {
  std::string s;
  for (const auto& x : v) s += x.rule + ": " + x.message + "\n";
  return s;
}

TEST(IntegrityAudit, HonestInterleavedSamplesRaiseNothing) {
  Builder b;
  for (int i = 0; i < 4; ++i) {
    b.kernel(Actor::candidate_call, b.call(Actor::candidate_call), "cand_kernel");
    b.kernel(Actor::harness, -1, "harness_check");
    b.kernel(Actor::baseline, b.call(Actor::baseline), "nvjet_kernel");
  }
  const auto v = audit(b.o);
  EXPECT_TRUE(v.empty()) << dump(v);
}

TEST(IntegrityAudit, InactiveMonitorJudgesNothing) {
  Builder b;
  b.o.active = false;
  b.kernel(Actor::candidate_call, b.call(Actor::candidate_call), "cand_kernel", 7);
  EXPECT_TRUE(audit(b.o).empty());
}

TEST(IntegrityAudit, WorkOffTheGivenStreamIsAForeignStream) {
  Builder b;
  b.kernel(Actor::candidate_call, b.call(Actor::candidate_call), "cand_kernel", 18);
  const auto v = audit(b.o);
  ASSERT_TRUE(has(v, "foreign_stream")) << dump(v);
  EXPECT_NE(v.front().message.find("stream 18"), std::string::npos) << v.front().message;
}

TEST(IntegrityAudit, ALibraryKernelInsideACandidateCallIsForeign) {
  Builder b;
  b.kernel(Actor::candidate_call, b.call(Actor::candidate_call), "nvjet_kernel");
  EXPECT_TRUE(has(audit(b.o), "foreign_kernel"));
}

TEST(IntegrityAudit, ACandidateKernelNamedLikeALibraryKernelIsForeign) {
  Builder b;
  b.o.modules.push_back({3, Actor::baseline, 0, false, 100, {"cand_kernel"}});
  b.kernel(Actor::candidate_call, b.call(Actor::candidate_call), "cand_kernel");
  EXPECT_TRUE(has(audit(b.o), "foreign_kernel"));
}

TEST(IntegrityAudit, AModuleThatIsNotTheCandidatesCubinIsHidden) {
  Builder b;
  const int c = b.call(Actor::candidate_call);
  b.o.modules.push_back({4, Actor::candidate_call, c, false, 16728, {"hidden_attention"}});
  const auto v = audit(b.o);
  ASSERT_TRUE(has(v, "hidden_module")) << dump(v);
  EXPECT_NE(dump(v).find("hidden_attention"), std::string::npos);
}

TEST(IntegrityAudit, LibraryModulesLoadedByTheHarnessAreFine) {
  Builder b;
  b.o.modules.push_back({5, Actor::baseline, 0, false, 1 << 20, {"cudnn_kernel"}});
  EXPECT_TRUE(audit(b.o).empty());
}

TEST(IntegrityAudit, LaunchingWhileLoadedIsGpuWorkAtLoad) {
  Builder b;
  b.kernel(Actor::candidate_load, b.call(Actor::candidate_load, "load", ""), "cand_kernel", 7, /*ran=*/false);
  const auto v = audit(b.o);
  EXPECT_TRUE(has(v, "gpu_work_at_load")) << dump(v);
  EXPECT_FALSE(has(v, "unaccounted_launch")) << dump(v);
}

TEST(IntegrityAudit, CandidateKernelEnqueuedOutsideAnyCallRanOutsideCall) {
  Builder b;
  b.kernel(Actor::harness, -1, "cand_kernel");
  EXPECT_TRUE(has(audit(b.o), "ran_outside_call"));
}

TEST(IntegrityAudit, CandidateWorkDuringABaselineSampleOverlaps) {
  Builder b;
  b.kernel(Actor::candidate_call, b.call(Actor::candidate_call), "cand_kernel", kGiven, true, 10'000);
  // A baseline sample that started before the candidate's kernel ended.
  const uint32_t c = b.next_corr++;
  const int bc = b.call(Actor::baseline);
  b.o.launches.push_back({c, Actor::baseline, bc, "cuLaunchKernelEx", "", true, true, false, false});
  b.o.work.push_back({DeviceWork::Kind::kernel, c, kGiven, b.clock - 5'000, b.clock + 1'000, "nvjet_kernel", false});
  EXPECT_TRUE(has(audit(b.o), "overlaps_baseline"));
}

TEST(IntegrityAudit, RecordsWithoutTimestampsTakeNoPartInTimingRules) {
  Builder b;
  const uint32_t c = b.next_corr++;
  const int bc = b.call(Actor::baseline, "warm-up");
  b.o.launches.push_back({c, Actor::baseline, bc, "cuMemsetD8Async", "", false, true, false, false});
  b.o.work.push_back({DeviceWork::Kind::memset, c, kGiven, 0, 0, "", false});  // recorded into a graph, never ran
  b.kernel(Actor::candidate_call, b.call(Actor::candidate_call), "cand_kernel");
  const auto v = audit(b.o);
  EXPECT_TRUE(v.empty()) << dump(v);
}

TEST(IntegrityAudit, ALaunchWithoutItsRecordMeansTracingWasTamperedWith) {
  Builder b;
  b.kernel(Actor::harness, -1, "harness_check", kGiven, /*ran=*/false);
  EXPECT_TRUE(has(audit(b.o), "unaccounted_launch"));
  b.o.dropped_records = 5;  // then CUPTI says why: not a violation (the stage reports an infra error)
  EXPECT_FALSE(has(audit(b.o), "unaccounted_launch"));
}

TEST(IntegrityAudit, CapturedAndCountedLaunchesNeedNoRecord) {
  Builder b;
  const int c = b.call(Actor::candidate_call, "correctness");
  b.o.launches.push_back(
      {b.next_corr++, Actor::candidate_call, c, "cuLaunchKernel", "cand_kernel", false, true, true, false});
  const int counted = b.call(Actor::candidate_call, "target_run", "M=1", true);
  b.o.calls.back().counted_kernels = {"cand_kernel"};
  b.o.launches.push_back(
      {b.next_corr++, Actor::candidate_call, counted, "cuLaunchKernel", "cand_kernel", true, true, false, true});
  const auto v = audit(b.o);
  EXPECT_TRUE(v.empty()) << dump(v);
}

TEST(IntegrityAudit, ACountedLaunchOnAnotherStreamIsForeign) {
  Builder b;
  const int c = b.call(Actor::candidate_call, "target_run", "M=1", true);
  b.o.launches.push_back(
      {b.next_corr++, Actor::candidate_call, c, "cuLaunchKernel", "cand_kernel", true, false, false, true});
  EXPECT_TRUE(has(audit(b.o), "foreign_stream"));
}

// Issue 30: a call that names another stream is judged at the call, whether or not a work record
// of it ever comes (a prefetch leaves none), counted or not.
TEST(IntegrityAudit, AnyCallOnAnotherStreamIsForeignEvenWithoutAWorkRecord) {
  Builder b;
  const int c = b.call(Actor::candidate_call, "correctness");
  b.kernel(Actor::candidate_call, c, "cand_kernel");
  b.o.launches.push_back(
      {b.next_corr++, Actor::candidate_call, c, "cuMemPrefetchAsync_v2_ptsz", "", false, false, false, false});
  const auto v = audit(b.o);
  ASSERT_TRUE(has(v, "foreign_stream")) << dump(v);
  EXPECT_NE(dump(v).find("cuMemPrefetchAsync_v2_ptsz"), std::string::npos) << dump(v);
  EXPECT_FALSE(has(v, "unaccounted_launch")) << "a prefetch is no kernel launch: no record is owed";
  // The harness may use any stream.
  Builder h;
  h.o.launches.push_back({h.next_corr++, Actor::harness, -1, "cuMemPrefetchAsync_v2", "", false, false, false, false});
  EXPECT_TRUE(audit(h.o).empty()) << dump(audit(h.o));
}

TEST(IntegrityAudit, ForbiddenApiCallsAreViolationsRefusedOnesAreNot) {
  Builder b;
  const int c = b.call(Actor::candidate_call);
  b.o.api_events.push_back({Actor::candidate_call, c, "driver entry point cuStreamCreate (refused)", true});
  EXPECT_TRUE(audit(b.o).empty());
  b.o.api_events.push_back({Actor::candidate_call, c, "cuStreamSetAttribute", false});
  EXPECT_TRUE(has(audit(b.o), "forbidden_api"));
}

TEST(IntegrityAudit, ACountedCallThatRanOtherKernelsThanTheTimedOnesDiffers) {
  Builder b;
  b.o.modules.front().functions.push_back("simt_kernel");
  const int counted = b.call(Actor::candidate_call, "target_run", "M=1", true);
  b.o.calls[counted].counted_kernels = {"cand_kernel"};
  b.kernel(Actor::candidate_call, b.call(Actor::candidate_call, "timing", "M=1"), "simt_kernel");
  b.kernel(Actor::candidate_call, b.call(Actor::candidate_call, "timing", "M=2"),
           "cand_kernel");  // another shape: fine
  const auto v = audit(b.o);
  ASSERT_TRUE(has(v, "counted_call_differs")) << dump(v);
  EXPECT_NE(dump(v).find("simt_kernel"), std::string::npos);
  // The same kernels counted and timed: no violation.
  b.o.calls[counted].counted_kernels = {"simt_kernel"};
  EXPECT_FALSE(has(audit(b.o), "counted_call_differs"));
}

// The service's split: the counted calls ran in the job's first worker, the timed calls in this one.
TEST(IntegrityAudit, TimedCallsMustRunTheKernelsAnEarlierWorkerCounted) {
  Builder b;
  b.o.modules.front().functions.push_back("simt_kernel");
  b.o.earlier_counted.push_back({"M=1", {"cand_kernel"}});
  b.kernel(Actor::candidate_call, b.call(Actor::candidate_call, "timing", "M=1"), "cand_kernel");
  b.kernel(Actor::candidate_call, b.call(Actor::candidate_call, "timing", "M=2"),
           "simt_kernel");  // not counted there: fine
  EXPECT_FALSE(has(audit(b.o), "counted_call_differs")) << dump(audit(b.o));
  b.kernel(Actor::candidate_call, b.call(Actor::candidate_call, "timing", "M=1"), "simt_kernel");
  const auto v = audit(b.o);
  ASSERT_TRUE(has(v, "counted_call_differs")) << dump(v);
  EXPECT_NE(dump(v).find("in the first worker"), std::string::npos) << dump(v);
  EXPECT_NE(dump(v).find("simt_kernel"), std::string::npos) << dump(v);
}

TEST(IntegrityAudit, ManyViolationsOfOneRuleAreSummarized) {
  Builder b;
  for (int i = 0; i < 10; ++i) b.kernel(Actor::candidate_call, b.call(Actor::candidate_call), "cand_kernel", 18);
  const auto v = audit(b.o);
  EXPECT_EQ(v.size(), 3u) << dump(v);
  EXPECT_NE(v.front().message.find("and 7 more"), std::string::npos) << v.front().message;
}

}  // namespace
