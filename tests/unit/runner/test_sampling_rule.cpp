// When a shape's timed samples stop (runner/sampling_rule.h).
#include <gtest/gtest.h>

#include "runner/sampling_rule.h"

namespace ptxbench {
namespace {

// n samples of `ms` each, spread by +-`jitter` (relative) in turn.
std::vector<double> samples(int n, double ms, double jitter) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(ms * (1 + (i % 2 ? jitter : -jitter) * (i % 3) / 2.0));
  return v;
}

SamplingProgress progress(int n, double cand_ms, double jitter = 0.0005, double elapsed = 0.5) {
  SamplingProgress p;
  const auto c = samples(n, cand_ms, jitter);
  p.candidate = summarize(c), p.baseline = summarize(samples(n, 3.0, 0.0005));
  for (double x : c) p.candidate_seconds += x / 1e3;
  p.elapsed_seconds = elapsed;
  p.slots = 2 * n, p.capacity = 400, p.candidate_calls = n;
  return p;
}

TEST(SamplingRule, AFastKernelNeedsTheFullMinimumOfSamples) {
  const TimingConfig cfg;
  EXPECT_EQ(sampling_stop(progress(8, 0.2), cfg), "");
  EXPECT_EQ(sampling_stop(progress(24, 0.2), cfg), "");
  EXPECT_EQ(sampling_stop(progress(32, 0.2), cfg), "stable");
}

TEST(SamplingRule, ASlowKernelStopsOnceItsCallsAddUpAndBothMediansAreStable) {
  const TimingConfig cfg;
  // 8 calls of 86 ms: 0.69 s of the candidate's own time, past slow_candidate_seconds.
  EXPECT_EQ(sampling_stop(progress(8, 86.0), cfg), "stable");
  // Too few calls even for a slow kernel.
  EXPECT_EQ(sampling_stop(progress(6, 120.0), cfg), "");
  // 8 calls of 40 ms are 0.32 s: not yet.
  EXPECT_EQ(sampling_stop(progress(8, 40.0), cfg), "");
  EXPECT_EQ(sampling_stop(progress(16, 40.0), cfg), "stable");
}

TEST(SamplingRule, AnUnstableMedianOnEitherSideKeepsSampling) {
  const TimingConfig cfg;
  EXPECT_EQ(sampling_stop(progress(16, 86.0, 0.05), cfg), "");  // the candidate's median moves by percent
  SamplingProgress p = progress(16, 86.0);
  p.baseline = summarize(samples(16, 3.0, 0.05));  // the library's
  EXPECT_EQ(sampling_stop(p, cfg), "");
  p.with_baseline = false;  // timed without the library: its samples do not count
  EXPECT_EQ(sampling_stop(p, cfg), "stable");
  // The time limit still ends an unstable shape, once it has five samples.
  EXPECT_EQ(sampling_stop(progress(16, 86.0, 0.05, 4.1), cfg), "max_seconds");
  EXPECT_EQ(sampling_stop(progress(4, 900.0, 0.05, 4.1), cfg), "");
}

TEST(SamplingRule, TheCountedSampleIsAlwaysTakenBeforeAStopButAtCapacity) {
  const TimingConfig cfg;
  SamplingProgress p = progress(16, 86.0, 0.0005, 4.5);
  p.counted_sample = 20;  // drawn among the first min_samples; not yet reached
  EXPECT_EQ(sampling_stop(p, cfg), "") << "stable and past max_seconds, but the counted sample is still to come";
  p.candidate_calls = 21;  // taken (it is no time: candidate.n stays one short)
  EXPECT_EQ(sampling_stop(p, cfg), "stable");
  p.candidate_calls = 16;
  p.elapsed_seconds = 4 * cfg.max_seconds;
  EXPECT_EQ(sampling_stop(p, cfg), "max_seconds (the counted sample not reached)");
  p.elapsed_seconds = 1, p.slots = p.capacity - 1;
  EXPECT_EQ(sampling_stop(p, cfg), "capacity");
}

TEST(SamplingRule, MaxSamplesEndsAShapeThatNeverSettles) {
  const TimingConfig cfg;
  // The worker's room is exactly max_samples of each side: both limits meet, max_samples says why.
  SamplingProgress p = progress(cfg.max_samples, 0.2, 0.05);
  p.capacity = 2 * cfg.max_samples;
  EXPECT_EQ(sampling_stop(p, cfg), "max_samples");
  EXPECT_EQ(sampling_stop(progress(cfg.max_samples - 8, 0.2, 0.05), cfg), "");
}

TEST(SamplingRule, TheSlowRuleCanBeTurnedOffAndIsReadFromTheJob) {
  const TimingConfig cfg =
      TimingConfig::from_json({{"slow_min_samples", 30}, {"slow_candidate_seconds", 2.5}, {"min_samples", 30}});
  EXPECT_EQ(cfg.slow_min_samples, 30);
  EXPECT_DOUBLE_EQ(cfg.slow_candidate_seconds, 2.5);
  EXPECT_EQ(sampling_stop(progress(16, 86.0), cfg), "");
  EXPECT_EQ(sampling_stop(progress(32, 86.0), cfg), "stable");
  const json rule = sampling_rule_json(cfg);
  EXPECT_EQ(rule.at("slow_min_samples"), 30);
  EXPECT_EQ(rule.at("min_samples"), 30);
}

// The library's plans built ahead of the exclusive window: on unless the job says otherwise, as a
// boolean or as the bench's 0/1.
TEST(SamplingRule, LibraryAheadIsOnByDefaultAndTurnedOffByTheJob) {
  EXPECT_TRUE(TimingConfig::from_json(json::object()).library_ahead);
  EXPECT_FALSE(TimingConfig::from_json({{"library_ahead", false}}).library_ahead);
  EXPECT_FALSE(TimingConfig::from_json({{"library_ahead", 0}}).library_ahead);
  EXPECT_TRUE(TimingConfig::from_json({{"library_ahead", 1}}).library_ahead);
  EXPECT_THROW(TimingConfig::from_json({{"library_ahead", "no"}}), std::runtime_error);
}

}  // namespace
}  // namespace ptxbench
