// The GPU gate: timing waits for every shared stage and has the GPU alone, a waiting timed stage
// holds new shared stages back, a GPU excluded from timing turns a long wait into an infra fault,
// and the busy fraction counts only time in which some stage held the GPU.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "judge/infra_fault.h"
#include "service/engine/gpu_gate.h"

using namespace ptxbench;
using namespace std::chrono_literals;

TEST(GpuGate, TimingWaitsForSharedStagesAndHoldsNewOnesBack) {
  GpuGate gate(0, 5s);
  auto shared = gate.shared_use();
  std::atomic<bool> timing_started{false}, late_shared_started{false}, timing_done{false};
  std::atomic<bool> overlap{false};
  std::thread timer([&] {
    auto ex = gate.exclusive_use();
    timing_started = true;
    std::this_thread::sleep_for(50ms);
    if (late_shared_started) overlap = true;
    timing_done = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(timing_started) << "timing began while a shared stage held the GPU";
  std::thread late([&] {
    auto s = gate.shared_use();  // arrives while timing waits: must go after it
    late_shared_started = true;
    if (!timing_done) overlap = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(late_shared_started) << "a new shared stage overtook the waiting timed stage";
  shared.reset();
  timer.join();
  late.join();
  EXPECT_TRUE(timing_started);
  EXPECT_TRUE(late_shared_started);
  EXPECT_FALSE(overlap);
}

TEST(GpuGate, SharedStagesRunSideBySide) {
  GpuGate gate(0, 1s);
  auto a = gate.shared_use();
  auto b = gate.shared_use();  // would block forever if shared use were exclusive
  EXPECT_EQ(gate.snapshot().shared_users, 2);
}

TEST(GpuGate, AGpuExcludedFromTimingFailsTheWaitAsAnInfraFault) {
  GpuGate gate(3, 100ms);
  gate.set_timing_excluded(true, "calibration 30% slow");
  EXPECT_THROW(
      {
        try {
          gate.exclusive_use();
        } catch (const InfraFault& e) {
          EXPECT_NE(std::string(e.what()).find("calibration 30% slow"), std::string::npos) << e.what();
          throw;
        }
      },
      InfraFault);
  auto shared = gate.shared_use();  // shared stages still run on it
  EXPECT_EQ(gate.snapshot().shared_users, 1);
  shared.reset();
  gate.set_timing_excluded(false);
  EXPECT_NO_THROW(gate.exclusive_use());
}

TEST(GpuGate, BusyFractionCountsHeldTimeOnly) {
  GpuGate gate(0, 1s);
  std::this_thread::sleep_for(100ms);
  {
    auto s = gate.shared_use();
    std::this_thread::sleep_for(100ms);
  }
  const auto snap = gate.snapshot();
  const double busy = snap.held_seconds / snap.open_seconds;
  EXPECT_GT(busy, 0.3);
  EXPECT_LT(busy, 0.7);
  EXPECT_EQ(snap.exclusive_seconds, 0);
}

TEST(GpuGate, DrainingCountsOnlyTheTimedStagesWaitForSharedOnes) {
  GpuGate gate(0, 5s);
  auto shared = gate.shared_use();
  std::this_thread::sleep_for(100ms);  // shared alone: not draining
  EXPECT_EQ(gate.snapshot().draining_seconds, 0);
  std::thread timer([&] {
    auto ex = gate.exclusive_use();
    std::this_thread::sleep_for(300ms);  // exclusive: not draining either
  });
  std::this_thread::sleep_for(150ms);  // the timed stage waits for `shared`
  EXPECT_GT(gate.snapshot().draining_seconds, 0.1) << "a wait in progress counts";
  shared.reset();
  timer.join();
  const auto snap = gate.snapshot();
  EXPECT_GT(snap.draining_seconds, 0.13);
  EXPECT_LT(snap.draining_seconds, 0.4) << "the exclusive hold (0.3 s) was counted as draining";
  EXPECT_GT(snap.exclusive_seconds, 0.29);
  EXPECT_EQ(snap.exclusive_grants, 1);
}

TEST(GpuGate, APausedGpuDispatchesNothingUntilResumed) {
  GpuGate gate(0, 1s);
  gate.set_paused(true, "checksum wrong");
  std::atomic<bool> stop{false}, passed{false};
  std::thread lane([&] { passed = gate.wait_until_dispatchable(stop); });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(passed);
  EXPECT_EQ(gate.snapshot().pause_reason, "checksum wrong");
  gate.set_paused(false);
  lane.join();
  EXPECT_TRUE(passed);
}

// The cooperative pause: shared workers that can pause are paused at their next call boundary
// instead of waited for, resumed with the exclusive window when it ends, and their answer about the
// window is the exclusive use's; one that does not acknowledge in time is waited for, as before.
namespace {

class ScriptedWorker final : public PausableSharedWorker {
 public:
  explicit ScriptedWorker(bool acknowledges, std::string untrusted = "") : acks_(acknowledges), untrusted_(untrusted) {}
  void ask_to_pause() override { ++asked; }
  bool wait_until_paused(std::chrono::steady_clock::time_point until) override {
    if (acks_) return true;
    std::this_thread::sleep_until(until);
    return false;
  }
  PauseCheck resume(const std::optional<ExclusiveWindow>& w) override {
    ++resumed;
    window = w;
    return {w ? untrusted_ : ""};
  }
  std::atomic<int> asked{0}, resumed{0};
  std::optional<ExclusiveWindow> window;

 private:
  const bool acks_;
  const std::string untrusted_;
};

}  // namespace

TEST(GpuGate, APausableSharedWorkerIsPausedInsteadOfWaitedForAndResumedWithTheWindow) {
  GpuGate gate(0, 5s, 1s);
  ScriptedWorker w(true);
  auto shared = gate.shared_use(&w);
  auto ex = gate.exclusive_use();  // would wait for `shared` to end without the pause
  EXPECT_EQ(w.asked.load(), 1);
  EXPECT_EQ(w.resumed.load(), 0);
  EXPECT_EQ(gate.snapshot().paused_users, 1);
  EXPECT_EQ(gate.end_exclusive_use(ex), "");
  EXPECT_EQ(w.resumed.load(), 1);
  ASSERT_TRUE(w.window.has_value());
  EXPECT_LT(w.window->start_ns, w.window->end_ns);
  const auto s = gate.snapshot();
  EXPECT_EQ(s.paused_users, 0);
  EXPECT_EQ(s.paused_grants, 1);
  EXPECT_FALSE(s.exclusive);
}

TEST(GpuGate, AWindowAPausedWorkerRanInIsReportedUntrusted) {
  GpuGate gate(0, 5s, 1s);
  ScriptedWorker honest(true), busy(true, "a paused shared worker kept the GPU busy");
  auto a = gate.shared_use(&honest);
  auto b = gate.shared_use(&busy);
  TimedWorkerUse use(gate);
  use.become_exclusive();
  EXPECT_EQ(use.end(), "a paused shared worker kept the GPU busy");
  EXPECT_TRUE(use.exclusive()) << "it was granted";
  EXPECT_EQ(honest.resumed.load(), 1);
  EXPECT_EQ(busy.resumed.load(), 1);
  EXPECT_EQ(gate.snapshot().untrusted_windows, 1);
}

TEST(GpuGate, AWorkerThatDoesNotAcknowledgeInTimeIsWaitedForAndTheOthersGoOn) {
  GpuGate gate(0, 5s, 100ms);
  ScriptedWorker quick(true), silent(false);
  auto a = gate.shared_use(&quick);
  auto b = gate.shared_use(&silent);
  std::atomic<bool> granted{false};
  std::thread timer([&] {
    auto ex = gate.exclusive_use();
    granted = true;
  });
  std::this_thread::sleep_for(300ms);
  EXPECT_FALSE(granted) << "timed while a worker that never paused still ran";
  EXPECT_EQ(quick.resumed.load(), 1) << "the pause was given up, yet the one that paused was not let go on";
  EXPECT_FALSE(quick.window.has_value());
  EXPECT_EQ(gate.snapshot().pause_fallbacks, 1);
  a.reset();
  b.reset();
  timer.join();
  EXPECT_TRUE(granted);
  EXPECT_EQ(silent.resumed.load(), 0);
}

TEST(GpuGate, SharedWorkersThatCannotPauseEndFirstAndOnlyThenAreTheOthersPaused) {
  GpuGate gate(0, 5s, 1s);
  ScriptedWorker w(true);
  auto plain = gate.shared_use();
  auto pausable = gate.shared_use(&w);
  std::atomic<bool> granted{false};
  std::thread timer([&] {
    auto ex = gate.exclusive_use();
    granted = true;
  });
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(granted);
  EXPECT_EQ(w.asked.load(), 0) << "paused while a worker that cannot pause still ran: it would only sit idle";
  plain.reset();
  timer.join();
  EXPECT_TRUE(granted);
  EXPECT_EQ(w.asked.load(), 1);
  EXPECT_EQ(w.resumed.load(), 1);
}

TEST(GpuGate, ADrainingExclusiveUseNeverPauses) {
  GpuGate gate(0, 5s, 1s);
  ScriptedWorker w(true);
  auto shared = gate.shared_use(&w);
  std::atomic<bool> granted{false};
  std::thread timer([&] {
    TimedWorkerUse use(gate, /*draining=*/true);
    use.become_exclusive();
    granted = true;
    EXPECT_EQ(use.end(), "");
  });
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(granted);
  shared.reset();
  timer.join();
  EXPECT_EQ(w.asked.load(), 0);
}

TEST(GpuGate, WithoutAPauseTimeoutNothingIsPaused) {
  GpuGate gate(0, 200ms, 0ms);
  ScriptedWorker w(true);
  auto shared = gate.shared_use(&w);
  EXPECT_THROW(gate.exclusive_use(), InfraFault);
  EXPECT_EQ(w.asked.load(), 0);
}

TEST(GpuGate, AGpuExcludedFromTimingPausesNoSharedWorkerWhileItWaits) {
  GpuGate gate(0, 5s, 1s);
  ScriptedWorker w(true);
  auto shared = gate.shared_use(&w);
  gate.set_timing_excluded(true, "throttled");
  std::atomic<bool> granted{false};
  std::thread timer([&] {
    TimedWorkerUse use(gate);
    use.become_exclusive();
    granted = true;
    use.end();
  });
  std::this_thread::sleep_for(150ms);
  EXPECT_FALSE(granted);
  EXPECT_EQ(w.asked.load(), 0) << "paused for a timing that cannot start: the shared lane would sit idle";
  gate.set_timing_excluded(false);
  timer.join();
  EXPECT_TRUE(granted);
  EXPECT_EQ(w.asked.load(), 1);
  EXPECT_EQ(w.resumed.load(), 1);
}

// What a drain waited on: a timed worker still starting (it cannot pause) is told apart from a
// shared worker that cannot pause, and each second is counted once.
TEST(GpuGate, ADrainIsSplitByWhatItWaitedOn) {
  GpuGate gate(0, 5s, 1s);
  auto starting = gate.timed_start_use();  // another timed worker, still starting
  auto tool = gate.shared_use();           // a sanitizer: cannot pause
  EXPECT_EQ(gate.snapshot().timed_starting, 1);
  std::thread timer([&] {
    auto ex = gate.exclusive_use();
    std::this_thread::sleep_for(50ms);
  });
  std::this_thread::sleep_for(150ms);  // waits on both: counted against the timed start
  starting.reset();
  std::this_thread::sleep_for(150ms);  // now only on the sanitizer
  tool.reset();
  timer.join();
  const auto s = gate.snapshot();
  EXPECT_GT(s.draining_on_timed_start_seconds, 0.13);
  EXPECT_LT(s.draining_on_timed_start_seconds, 0.25);
  EXPECT_GT(s.draining_on_unpausable_seconds, 0.13);
  EXPECT_LT(s.draining_on_unpausable_seconds, 0.25);
  EXPECT_NEAR(s.draining_seconds,
              s.draining_on_timed_start_seconds + s.draining_on_unpausable_seconds + s.draining_on_pause_seconds, 1e-6);
  EXPECT_EQ(s.timed_starting, 0);
}

// With hold_unpausable_for_timed_start, a worker that cannot pause waits while a timed worker
// starts (it would only make that worker's request wait for it); one that can pause still starts.
TEST(GpuGate, AWorkerThatCannotPauseIsHeldBackWhileATimedWorkerStartsWhenAskedTo) {
  GpuGate gate(0, 5s, 1s, /*hold_unpausable_for_timed_start=*/true);
  auto starting = gate.timed_start_use();
  ScriptedWorker w(true);
  auto pausable = gate.shared_use(&w);  // not held back
  std::atomic<bool> tool_started{false};
  std::thread tool([&] {
    auto s = gate.shared_use();
    tool_started = true;
  });
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(tool_started) << "a sanitizer started while a timed worker started";
  starting.reset();  // the timed worker asked for the GPU alone, or ended
  tool.join();
  EXPECT_TRUE(tool_started);
  EXPECT_GT(gate.snapshot().held_back_seconds, 0.09);
}

TEST(GpuGate, WithoutTheHoldAWorkerThatCannotPauseStartsBesideATimedWorkerStarting) {
  GpuGate gate(0, 5s, 1s);
  auto starting = gate.timed_start_use();
  auto tool = gate.shared_use();  // would block forever if held back
  EXPECT_EQ(gate.snapshot().shared_users, 2);
  EXPECT_EQ(gate.snapshot().held_back_seconds, 0);
}

// The timed worker's own use is a timed start while it starts, and again while its candidate loads
// after the library's clean timings; a hold never makes it wait on itself.
TEST(GpuGate, ATimedWorkerUseCountsAsATimedStartUntilItIsExclusive) {
  GpuGate gate(0, 5s, 1s, /*hold_unpausable_for_timed_start=*/true);
  TimedWorkerUse use(gate);
  EXPECT_EQ(gate.snapshot().timed_starting, 1);
  use.become_exclusive();
  EXPECT_EQ(gate.snapshot().timed_starting, 0);
  use.become_shared();
  EXPECT_EQ(gate.snapshot().timed_starting, 1);
  use.become_exclusive();
  EXPECT_EQ(use.end(), "");
  EXPECT_EQ(gate.snapshot().timed_starting, 0);
  EXPECT_EQ(gate.snapshot().shared_users, 0);
}

// Issue 47: a timed worker that can pause while it starts (TimedWorkerUse with its pause link) is
// paused by another timed worker's request instead of waited for; its own first request ends that
// (a later shared period, after the clean timings, cannot pause); and what it ran in the window
// makes that window untrusted as a shared worker's does.
TEST(GpuGate, AStartingTimedWorkerThatCanPauseIsPausedInsteadOfWaitedFor) {
  GpuGate gate(0, 5s, 1s);
  ScriptedWorker starting_link(true);
  TimedWorkerUse starting(gate, false, &starting_link);
  EXPECT_EQ(gate.snapshot().timed_starting, 1);
  const auto t0 = std::chrono::steady_clock::now();
  TimedWorkerUse other(gate);
  other.become_exclusive();  // would wait for `starting` to ask or end without the pause
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 500ms);
  EXPECT_EQ(starting_link.asked.load(), 1);
  EXPECT_EQ(other.paused_beside(), 1);
  EXPECT_EQ(other.end(), "");
  EXPECT_EQ(starting_link.resumed.load(), 1);
  const auto s = gate.snapshot();
  EXPECT_EQ(s.paused_timed_starts, 1);
  EXPECT_EQ(s.paused_grants, 1);
  EXPECT_EQ(s.draining_on_timed_start_seconds, 0);  // none of the drain was on a timed start
  starting.become_exclusive();
  EXPECT_EQ(starting.end(), "");
  EXPECT_EQ(gate.snapshot().shared_users, 0);
}

TEST(GpuGate, AStartingTimedWorkerIsPausableOnlyUntilItsFirstRequest) {
  GpuGate gate(0, 5s, 1s);
  ScriptedWorker starting_link(true);
  TimedWorkerUse starting(gate, false, &starting_link);
  starting.become_exclusive();  // its clean timings: the link is spent (the worker closed its socket)
  starting.become_shared();     // its candidate loads: a timed start that cannot pause
  std::atomic<bool> granted{false};
  std::thread timer([&] {
    TimedWorkerUse other(gate);
    other.become_exclusive();
    granted = true;
    EXPECT_EQ(other.end(), "");
  });
  std::this_thread::sleep_for(150ms);
  EXPECT_FALSE(granted) << "granted beside a timed worker whose candidate was loading";
  EXPECT_EQ(starting_link.asked.load(), 0);
  starting.become_exclusive();
  EXPECT_EQ(starting.end(), "");
  timer.join();
  EXPECT_TRUE(granted);
  EXPECT_GT(gate.snapshot().draining_on_timed_start_seconds, 0.1);
}

TEST(GpuGate, AWindowAPausedStartingTimedWorkerRanInIsUntrusted) {
  GpuGate gate(0, 5s, 1s);
  ScriptedWorker busy(true, "a paused timed worker kept the GPU busy");
  TimedWorkerUse starting(gate, false, &busy);
  TimedWorkerUse other(gate);
  other.become_exclusive();
  EXPECT_EQ(other.end(), "a paused timed worker kept the GPU busy");
  EXPECT_EQ(gate.snapshot().untrusted_windows, 1);
  starting.become_exclusive();
  EXPECT_EQ(starting.end(), "");
}
