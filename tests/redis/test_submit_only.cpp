// `eval`/`run --queue redis://... --submit-only`: the EngineCandidateService with no engine of
// its own. A remote worker (here a thread with its own connection, leasing and completing the
// way `serve` does) judges the job; the submitter's ticket resolves from the results stream with
// the worker's record, the GPU it reports is the one the worker published, a job the worker ends
// as infra_error resolves as an infra_error record, and without a Redis queue it refuses.
#include <gtest/gtest.h>

#include <thread>

#include "core/error.h"
#include "problems/registry.h"
#include "redis_server.h"
#include "service/engine_candidate_service.h"
#include "service/remote_workers.h"
#include "support/temp_dir.h"

using namespace ptxbench;
using namespace std::chrono_literals;

namespace {

// Leases every job and answers it: `correct` with a made-up timing, or (label "doomed") failed
// until the attempts bound turns it into infra_error.
void remote_worker(const std::string& url, std::atomic<bool>& stop, std::atomic<int>& judged) {
  RedisJobQueue q(parse_redis_url(url), {.max_attempts = 2});
  GpuDescription gpu{true, "NVIDIA H200 (remote)", "", {{"cc", "9.0"}}};
  while (!stop) {
    q.publish_worker("remote-host:1", worker_state({{"lanes", json::object()}}, gpu, "remote-host"), 5s);
    std::optional<LeasedJob> job;
    if (!q.lease("remote-host:1", 5s, &job).ok || !job) {
      std::this_thread::sleep_for(20ms);
      continue;
    }
    if (job->payload.value("label", "") == "doomed") {
      q.fail(job->id, job->owner, "device out of memory (simulated)", nullptr);
      continue;
    }
    EvaluationRecord r;
    r.problem = job->payload.value("problem", "");
    r.verdict = Verdict::correct;
    r.speedup_geomean = 1.25;
    r.gpu = gpu.gpu;
    q.complete(job->id, job->owner, {{"record", to_json(r)}, {"device", 0}, {"timings", {{"gpu_seconds", 0.5}}}},
               nullptr);
    ++judged;
  }
}

}  // namespace

TEST(SubmitOnly, TicketsResolveFromTheResultsStreamWithTheRemoteWorkersRecords) {
  if (test::redis_server_binary().empty())
    GTEST_SKIP() << "redis-server is not installed (scripts/setup.sh installs it)";
  test::TempDir dir("ptxbench-submit-only");
  test::RedisServer redis(dir.path() / "redis");
  const std::string url = redis.url("submit");
  std::atomic<bool> stop{false};
  std::atomic<int> judged{0};
  std::thread worker([&] { remote_worker(url, stop, judged); });
  const ProblemSpec spec = ProblemRegistry(std::filesystem::path(PTXBENCH_SOURCE_DIR) / "problems").load("gemm");
  {
    EngineServiceOptions so;
    so.eval.workspace = dir.path() / "ws";
    so.eval.worker = "/nonexistent/ptxbench-worker";  // never started: no GPU work on a submitter
    so.queue = url;
    so.submit_only = true;
    so.max_attempts = 2;
    EngineCandidateService service(so, {});
    const GpuDescription gpu = service.describe_gpu();
    EXPECT_TRUE(gpu.gpu_stages);
    EXPECT_EQ(gpu.gpu, "NVIDIA H200 (remote)");
    auto ok = service.submit({&spec, "__global__ void k() {}\n", "good", ""});
    auto doomed = service.submit({&spec, "__global__ void k2() {}\n", "doomed", ""});
    const CandidateResult a = ok.wait();
    EXPECT_EQ(a.record.verdict, Verdict::correct);
    ASSERT_TRUE(a.record.speedup_geomean);
    EXPECT_DOUBLE_EQ(*a.record.speedup_geomean, 1.25);
    EXPECT_TRUE(a.reached_gpu_lane);
    const CandidateResult b = doomed.wait();
    EXPECT_EQ(b.record.verdict, Verdict::infra_error);
    EXPECT_NE(b.record.reason.find("out of memory"), std::string::npos) << b.record.reason;
    EXPECT_EQ(service.snapshot().value("submit_only", false), true);
  }
  stop = true;
  worker.join();
  EXPECT_EQ(judged.load(), 1);
}

TEST(SubmitOnly, RefusesAQueueThatNoOtherHostServes) {
  test::TempDir dir("ptxbench-submit-only");
  EngineServiceOptions so;
  so.eval.workspace = dir.path() / "ws";
  so.eval.worker = "/nonexistent/ptxbench-worker";
  so.submit_only = true;  // with the workspace's SQLite queue
  try {
    EngineCandidateService service(so, {});
    ADD_FAILURE() << "a submit-only service started on the local SQLite queue";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--queue redis://"), std::string::npos) << e.what();
  }
}
