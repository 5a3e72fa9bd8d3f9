// Whether a timed worker's samples followed the harness's own grant of exclusive use. The
// worker's handshake socket (exclusive_handshake.h) is still open while its candidate runs, so
// candidate code could answer the worker itself (its own socket put in place of the harness's)
// and have samples taken beside other lanes' work. Each of the harness's grants carries a fresh
// token; the worker reports the token it was answered with in each `exclusive_gpu` event. A
// worker that finished without the harness's grant for timing, that reports a token the harness
// never gave (or none), or that reports only its clean-baseline grant, was timed on a grant the
// harness never gave; one whose socket carried bytes the worker never sends (a give-back after the
// timing grant, a request out of order) was meddled with: `forbidden`, whatever its times say.
#pragma once
#include <string>

#include "core/exclusive_grant.h"
#include "judge/worker_client.h"

namespace ptxbench {

std::string new_grant_token();

// "" when nothing says the samples came before the harness's grant; else why (the verdict is
// forbidden). `granted`: the run held the harness's grant for timing at its end. A worker that ended
// early without being granted is judged by how it ended (a crash, a timeout), not here.
std::string why_timed_without_grant(const WorkerRun& run, bool granted);

}  // namespace ptxbench
