// The GPU activity audit's rules on hand-made observations: each rule fires on the pattern it is
// for, and an honest evaluation (kernels on the given stream, from the candidate's own module,
// graph replays, captured launches) raises none.
#include <gtest/gtest.h>

#include "runner/integrity/observations.h"

using namespace ptxbench;

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

// Issue 45: streams by creation, not by name. Whose code made a call is decided per thread: the
// harness's thread is whatever CallScope announced; any other thread, once the candidate loaded,
// is the candidate's (Actor::candidate_thread), whatever the harness's thread was doing then.
TEST(IntegrityAudit, AStreamCreatedOnAThreadOfTheCandidatesIsForbiddenWhateverTheHarnessWasDoing) {
  Builder b;
  b.kernel(Actor::candidate_call, b.call(Actor::candidate_call, "correctness"), "cand_kernel");
  // Between two calls (the harness's thread idle in its own code): a thread started through libc's
  // symbol table creates a stream through an entry point whose name it decoded.
  b.o.created.push_back({Actor::candidate_thread, -1, false, false, false, "cuStreamCreate", 21, 0});
  const auto v = audit(b.o);
  ASSERT_TRUE(has(v, "forbidden_api")) << dump(v);
  EXPECT_NE(dump(v).find("stream 21"), std::string::npos) << dump(v);
  EXPECT_NE(dump(v).find("thread of the candidate's own"), std::string::npos) << dump(v);
}

TEST(IntegrityAudit, OnlyTheHarnessCreatesStreamsAndOnlyWhereItSaysSo) {
  Builder b;
  // The harness's own (a marked section, a baseline sample on its thread, CUPTI's or the driver's
  // own work on its thread in no API call): fine.
  b.o.created.push_back({Actor::harness, -1, true, true, false, "cudaStreamCreateWithFlags", 30, 0});
  b.o.created.push_back({Actor::baseline, 2, true, true, false, "cuStreamCreate", 31, 0});
  b.o.created.push_back({Actor::harness, -1, true, false, false, "", 32, 0});
  EXPECT_TRUE(audit(b.o).empty()) << dump(audit(b.o));
  // On another thread, even in no API call the callbacks saw (the runtime's internals reached some
  // other way): the candidate's.
  Builder t;
  t.o.created.push_back({Actor::candidate_thread, -1, false, false, false, "", 35, 0});
  EXPECT_NE(dump(audit(t.o)).find("in no API call"), std::string::npos) << dump(audit(t.o));
  // On the harness's thread outside any section it marked (a signal handler of the candidate's).
  Builder h;
  h.o.created.push_back({Actor::harness, -1, true, false, false, "cuStreamCreate", 33, 0});
  EXPECT_TRUE(has(audit(h.o), "forbidden_api")) << dump(audit(h.o));
  // In a call or at load, marked or not: the candidate's.
  for (Actor a : {Actor::candidate_call, Actor::candidate_load}) {
    Builder c;
    const int call = c.call(a);
    c.o.created.push_back({a, call, true, true, false, "cuStreamCreateWithPriority", 34, 0});
    const auto v = audit(c.o);
    ASSERT_TRUE(has(v, "forbidden_api")) << dump(v);
    EXPECT_NE(dump(v).find("by the candidate during"), std::string::npos) << dump(v);
  }
  // A context, on a thread of its own.
  Builder x;
  x.o.created.push_back({Actor::candidate_thread, -1, false, false, true, "cuCtxCreate_v4", 0, 0});
  EXPECT_NE(dump(audit(x.o)).find("a context was created"), std::string::npos) << dump(audit(x.o));
}

// Work on a stream the candidate created is foreign whoever the callbacks took to have enqueued
// it, and work no call announced at all.
TEST(IntegrityAudit, WorkOnAStreamTheCandidateCreatedIsForeignWhoeverEnqueuedIt) {
  Builder b;
  b.o.created.push_back({Actor::candidate_thread, -1, false, false, false, "cuStreamCreate", 21, 0});
  b.o.modules.push_back({3, Actor::harness, -1, false, 100, {"other_kernel"}});  // no candidate name to go by
  const uint32_t c = b.next_corr++;
  b.o.launches.push_back({c, Actor::harness, -1, "cuLaunchKernel", "", true, true, false, false});
  b.o.work.push_back({DeviceWork::Kind::kernel, c, 21, b.clock, b.clock + 1000, "other_kernel", false});
  b.o.work.push_back({DeviceWork::Kind::memcpy, 999, 21, b.clock + 2000, b.clock + 3000, "", false});
  const auto v = audit(b.o);
  ASSERT_TRUE(has(v, "foreign_stream")) << dump(v);
  EXPECT_NE(dump(v).find("ran on a stream the candidate created"), std::string::npos) << dump(v);
  EXPECT_NE(dump(v).find("by no call the harness saw"), std::string::npos) << dump(v);
  // The harness's own stream is not the candidate's.
  Builder h;
  h.o.created.push_back({Actor::harness, -1, true, true, false, "cuStreamCreate", 21, 0});
  h.o.work.push_back({DeviceWork::Kind::memcpy, 999, 21, h.clock, h.clock + 1000, "", false});
  EXPECT_TRUE(audit(h.o).empty()) << dump(audit(h.o));
}

TEST(IntegrityAudit, WorkFromAThreadOfTheCandidatesIsOutsideAnyCallEvenDuringOne) {
  Builder b;
  const int c = b.call(Actor::candidate_call);
  b.kernel(Actor::candidate_call, c, "cand_kernel");
  // Its thread launches on the given stream while the call runs, and on the per-thread stream.
  b.kernel(Actor::candidate_thread, -1, "cand_kernel");
  auto v = audit(b.o);
  ASSERT_TRUE(has(v, "ran_outside_call")) << dump(v);
  EXPECT_FALSE(has(v, "foreign_stream")) << dump(v);
  b.kernel(Actor::candidate_thread, -1, "cand_kernel", 18);
  v = audit(b.o);
  EXPECT_TRUE(has(v, "foreign_stream")) << dump(v);
  // During a baseline sample it is not the baseline's work: it overlaps the sample.
  Builder o;
  const int bc = o.call(Actor::baseline);
  const uint32_t lib = o.next_corr++;
  o.o.launches.push_back({lib, Actor::baseline, bc, "cuLaunchKernelEx", "", true, true, false, false});
  o.o.work.push_back({DeviceWork::Kind::kernel, lib, kGiven, o.clock, o.clock + 10'000, "nvjet_kernel", false});
  o.kernel(Actor::candidate_thread, -1, "cand_kernel", 18);  // starts as the library's kernel does
  v = audit(o.o);
  EXPECT_TRUE(has(v, "overlaps_baseline")) << dump(v);
  EXPECT_TRUE(has(v, "ran_outside_call")) << dump(v);
}

TEST(IntegrityAudit, WhatAThreadOfTheCandidatesLoadsOrCallsIsJudgedLikeTheCandidatesCalls) {
  Builder b;
  b.o.modules.push_back({4, Actor::candidate_thread, -1, false, 16728, {"hidden_attention"}});
  b.o.api_events.push_back({Actor::candidate_thread, -1, "cuStreamCreate (creates a stream)", false});
  b.o.api_events.push_back({Actor::candidate_thread, -1,
                            "driver entry point cuStreamCreate (not on the allowlist: answered not found)", true});
  const auto v = audit(b.o);
  EXPECT_TRUE(has(v, "hidden_module")) << dump(v);
  ASSERT_TRUE(has(v, "forbidden_api")) << dump(v);
  EXPECT_NE(dump(v).find("on a thread of the candidate's own"), std::string::npos) << dump(v);
}

// A kernel of the candidate's own cubin on another stream is foreign however it was enqueued (the
// callbacks missed who made it, or took it for the harness's).
TEST(IntegrityAudit, ACandidateKernelOnAnotherStreamIsForeignWhoeverEnqueuedIt) {
  Builder b;
  b.kernel(Actor::harness, -1, "cand_kernel", 18);
  const auto v = audit(b.o);
  EXPECT_TRUE(has(v, "foreign_stream")) << dump(v);
  EXPECT_TRUE(has(v, "ran_outside_call")) << dump(v);
}

// Stream ids are compared as the records give them, within the stream's context.
TEST(IntegrityAudit, StreamIdsAreComparedWithinTheirContext) {
  Builder b;
  b.o.candidate_context = 1;
  b.kernel(Actor::candidate_call, b.call(Actor::candidate_call), "cand_kernel");
  b.o.work.back().context = 1;
  EXPECT_TRUE(audit(b.o).empty()) << dump(audit(b.o));
  // The same stream id in another context (a green context's stream, say) is another stream.
  b.kernel(Actor::candidate_call, b.call(Actor::candidate_call), "cand_kernel");
  b.o.work.back().context = 2;
  EXPECT_TRUE(has(audit(b.o), "foreign_stream")) << dump(audit(b.o));
  // A context id no record on the given stream bears out (misread) is not compared at all.
  Builder m;
  m.o.candidate_context = 9;
  m.kernel(Actor::candidate_call, m.call(Actor::candidate_call), "cand_kernel");
  m.o.work.back().context = 1;
  EXPECT_TRUE(audit(m.o).empty()) << dump(audit(m.o));
}

// The attention backward with one of its three kernels (dQ) on a side stream, forked from and
// joined back to the given stream with events: seen in timed calls (the kernel's record), in
// counted calls (kernel records paused: the launch's stream) and at the event calls on the side
// stream, whichever of its calls it is.
TEST(IntegrityAudit, ABackwardWithDqOnASideStreamIsForeignInEveryKindOfCall) {
  for (bool counted : {false, true}) {
    Builder b;
    b.o.modules.front().functions = {"delta_kernel", "dk_dv_kernel", "dq_kernel"};
    const int c = b.call(Actor::candidate_call, counted ? "target_run" : "timing", "B=1", counted);
    if (counted) b.o.calls.back().counted_kernels = {"delta_kernel", "dk_dv_kernel", "dq_kernel"};
    b.kernel(Actor::candidate_call, c, "delta_kernel", kGiven, !counted);
    b.o.launches.push_back(
        {b.next_corr++, Actor::candidate_call, c, "cuStreamWaitEvent_ptsz", "", false, false, false, false});
    b.kernel(Actor::candidate_call, c, "dq_kernel", 18, !counted);
    b.o.launches.push_back(
        {b.next_corr++, Actor::candidate_call, c, "cuEventRecord_ptsz", "", false, false, false, false});
    b.kernel(Actor::candidate_call, c, "dk_dv_kernel", kGiven, !counted);
    if (counted)
      for (auto& l : b.o.launches) l.counted = true;
    const auto v = audit(b.o);
    ASSERT_TRUE(has(v, "foreign_stream")) << (counted ? "counted: " : "timed: ") << dump(v);
    EXPECT_NE(dump(v).find(counted ? "cuLaunchKernel of dq_kernel" : "kernel dq_kernel on stream 18"),
              std::string::npos)
        << dump(v);
    EXPECT_NE(dump(v).find("cuStreamWaitEvent_ptsz"), std::string::npos) << dump(v);
  }
}

TEST(IntegrityAudit, ManyViolationsOfOneRuleAreSummarized) {
  Builder b;
  for (int i = 0; i < 10; ++i) b.kernel(Actor::candidate_call, b.call(Actor::candidate_call), "cand_kernel", 18);
  const auto v = audit(b.o);
  EXPECT_EQ(v.size(), 3u) << dump(v);
  EXPECT_NE(v.front().message.find("and 7 more"), std::string::npos) << v.front().message;
}

}  // namespace
