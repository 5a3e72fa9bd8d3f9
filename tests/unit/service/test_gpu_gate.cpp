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
