// A shared-lane worker's pause (core/shared_pause.h): at each call boundary (before a checked or
// counted call, never inside one) it looks, without waiting, whether the harness asked it to pause
// for another worker's timing. If so, it waits until the whole device is idle, acknowledges, waits
// to be resumed, and answers with its signed report of the GPU work that ran after its
// acknowledgement (runner/integrity/pause_activity.h), which the harness holds against the
// exclusive window. A worker without a pause socket returns at once.
#pragma once
#include "runner/worker_context.h"

namespace ptxbench {

void pause_point(WorkerContext& ctx);

}  // namespace ptxbench
