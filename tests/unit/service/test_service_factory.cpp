// The one place commands get their judge or candidate service from their flags
// (service/service_factory.h): every flag reaches the options it stands for.
#include <gtest/gtest.h>

#include <cstdlib>

#include "service/service_factory.h"
#include "support/temp_dir.h"

using namespace ptxbench;

namespace {

JudgeFlags judge_flags_all_set() {
  JudgeFlags j;
  j.arch = "sm_100a";
  j.workspace = "/ws";
  j.worker = "/bin/worker";
  j.use_gpu = false;
  j.sanitize = false;
  j.probe = false;
  j.timing = false;
  j.accounting = false;
  j.device = 3;
  j.include_dirs = {"/inc"};
  j.readable_roots = {"/a", "/b"};
  return j;
}

}  // namespace

TEST(ServiceFactory, JudgeOptionsCarryEveryFlag) {
  const EvalOptions o = judge_options(judge_flags_all_set());
  EXPECT_EQ(o.arch, "sm_100a");
  EXPECT_EQ(o.workspace, "/ws");
  EXPECT_EQ(o.worker, "/bin/worker");
  EXPECT_FALSE(o.use_gpu);
  EXPECT_FALSE(o.sanitize);
  EXPECT_FALSE(o.probe);
  EXPECT_FALSE(o.timing);
  EXPECT_FALSE(o.accounting);
  EXPECT_EQ(o.device, 3);
  EXPECT_EQ(o.include_dirs, std::vector<std::filesystem::path>{"/inc"});
  EXPECT_EQ(o.readable_roots, (std::vector<std::filesystem::path>{"/a", "/b"}));
  // What only the service sets stays unset.
  EXPECT_EQ(o.lane_gate, nullptr);
  EXPECT_EQ(o.baseline_cache, nullptr);
  EXPECT_EQ(o.reference_pool, nullptr);
}

TEST(ServiceFactory, JudgeOptionsDefaultsAreTheEvaluatorsOwn) {
  const EvalOptions o = judge_options(JudgeFlags{});
  const EvalOptions d;
  EXPECT_EQ(o.arch, d.arch);
  EXPECT_EQ(o.use_gpu, d.use_gpu);
  EXPECT_EQ(o.sanitize, d.sanitize);
  EXPECT_EQ(o.probe, d.probe);
  EXPECT_EQ(o.timing, d.timing);
  EXPECT_EQ(o.accounting, d.accounting);
  EXPECT_EQ(o.device, d.device);
}

TEST(ServiceFactory, EngineOptionsFromTheEngineFlags) {
  const bool order_was_set = std::getenv("CUDA_DEVICE_ORDER") != nullptr;
  EngineFlags f;
  f.devices = {1, 2};
  f.lanes = 4;
  f.cpu_jobs = 5;
  f.no_pipelining = true;
  f.lease_seconds = 8;
  const EngineOptions o = engine_options(f);
  EXPECT_EQ(o.devices, (std::vector<int>{1, 2}));
  EXPECT_EQ(o.shared_lanes, 4);
  EXPECT_EQ(o.cpu_jobs, 5);
  EXPECT_FALSE(o.pipelining);
  EXPECT_EQ(o.lease_ttl, std::chrono::seconds(8));
  EXPECT_EQ(o.heartbeat_interval, std::chrono::milliseconds(2000));
  EXPECT_NE(std::getenv("CUDA_DEVICE_ORDER"), nullptr);
  EXPECT_GE(engine_options(EngineFlags{}).cpu_jobs, 1);  // 0: one per core
  if (!order_was_set) unsetenv("CUDA_DEVICE_ORDER");     // as the other tests found it
}

TEST(ServiceFactory, DevicePicksTheEnginesGpuOnlyWhenDevicesIsLeftAtItsDefault) {
  ServiceFlags f;
  f.engine = true;
  f.judge.device = 2;
  EXPECT_EQ(engine_service_options(f).engine.devices, std::vector<int>{2});
  f.device_picks_engine_gpu = false;  // run --service
  EXPECT_EQ(engine_service_options(f).engine.devices, std::vector<int>{0});
  f.device_picks_engine_gpu = true;
  f.engine_flags.devices = {0, 1};
  EXPECT_EQ(engine_service_options(f).engine.devices, (std::vector<int>{0, 1}));
}

TEST(ServiceFactory, EngineServiceOptionsCarryTheQueueAttemptsAndCompileJobs) {
  ServiceFlags f;
  f.engine = true;
  f.judge = judge_flags_all_set();
  f.engine_flags.cpu_jobs = 3;
  f.engine_flags.max_attempts = 7;
  f.engine_flags.queue = "redis://h:1/0";
  f.engine_flags.submit_only = true;
  EngineServiceOptions o = engine_service_options(f);
  EXPECT_EQ(o.eval.arch, "sm_100a");
  EXPECT_EQ(o.eval.device, 3);
  EXPECT_EQ(o.engine.cpu_jobs, 3);  // --compile-jobs 0: the engine's --cpu-jobs
  EXPECT_EQ(o.max_attempts, 7);
  EXPECT_EQ(o.queue, "redis://h:1/0");
  EXPECT_TRUE(o.submit_only);
  f.compile_jobs = 6;
  EXPECT_EQ(engine_service_options(f).engine.cpu_jobs, 6);
  EXPECT_TRUE(f.engine_flags.names_a_queue());
  EXPECT_FALSE(EngineFlags{}.names_a_queue());
}

TEST(ServiceFactory, WithoutTheEngineTheInProcessServiceWithItsCompileJobs) {
  test::TempDir ws;
  ServiceFlags f;
  f.judge.workspace = ws.path();
  f.judge.use_gpu = false;
  f.compile_jobs = 2;
  EXPECT_EQ(local_service_options(f).compile_jobs, 2);
  EXPECT_EQ(local_service_options(f).eval.workspace, ws.path());
  auto service = make_candidate_service(f, {});
  auto* local = dynamic_cast<LocalCandidateService*>(service.get());
  ASSERT_NE(local, nullptr);
  EXPECT_EQ(local->compile_jobs(), 2);
  EXPECT_EQ(service->arch(), "sm_90a");
  auto judge = make_judge(f.judge, {});
  EXPECT_NE(judge, nullptr);
}
