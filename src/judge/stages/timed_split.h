// The worker's eval job split in two for GPU sharing: the part that times nothing (stream
// discipline, correctness, counted calls, the activity audit; run beside other candidates'
// stages) and the timed part (the library alone, the candidate loaded, every timed shape with
// its checks and its secretly counted sample; run with the GPU to itself). Pure, unit-tested.
#pragma once
#include "core/json.h"
#include "core/worker_protocol.h"
#include "judge/worker_client.h"

namespace ptxbench {

// The eval job without its timed shapes.
WorkerJob shared_part_of(const WorkerJob& eval_job);
// The eval job's timed shapes alone: no correctness list, no stream discipline, no counted
// calls, the same seed and tolerances. The counter stays on for the secretly counted timed sample
// unless `counted_sample` is false (the counted calls proved that no target instruction ran:
// target_counts.h), when the job loses its counted shapes and the worker counts nothing.
WorkerJob timed_part_of(const WorkerJob& eval_job, bool counted_sample = true);
// The kernels each counted call of the shared part's worker ran (from its
// target_counts events), for the timed part's audit: its timed calls must run the same ones.
std::vector<CountedKernels> counted_kernels_of(const WorkerRun& shared_run);
// Whether the shared part's worker finished with every stage passed (the timed part runs only then).
bool shared_part_passed(const WorkerRun& run);

}  // namespace ptxbench
