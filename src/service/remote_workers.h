// What `ptxbench serve` workers on other hosts publish through a Redis queue (their engine's
// snapshot: lanes, GPU health and thermal state, counters, plus the GPU they judge on), read by
// a submitting host and by `ptxbench service status --queue redis://...`.
#pragma once
#include <chrono>

#include "service/candidate_service.h"
#include "service/queue/redis_job_queue.h"

namespace ptxbench {

// How long a published state lives without a new publication (a dead worker drops out).
inline constexpr std::chrono::seconds kWorkerStateTtl{10};

// The state a serve worker publishes every couple of seconds.
json worker_state(const json& engine_snapshot, const GpuDescription& gpu, const std::string& host);
// The GPU of the published workers (the first that runs GPU stages), waiting up to `wait` for one
// to publish; without any, a description saying that none has.
GpuDescription remote_gpu_description(RedisJobQueue& queue, std::chrono::seconds wait = std::chrono::seconds(10));

}  // namespace ptxbench
