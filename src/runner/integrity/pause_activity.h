// What a paused shared worker reports of its GPU work (core/shared_pause.h): every piece of work its
// activity records show ending after its acknowledgement, with who launched it. Pure, so the rule
// is tested on the CPU; the worker's pause (runner/shared_pause.h) fills the rest of the report.
#pragma once
#include <cstdint>

#include "core/shared_pause.h"
#include "runner/integrity/observations.h"

namespace ptxbench {

// The work of `o` that ended after `acked_ns` (CUPTI's clock), oldest first, at most
// kPauseReportMaxSpans (the rest counted in `more`); `activity_known` from `o.active`.
PauseReport work_after_acknowledgement(const Observations& o, uint64_t acked_ns);

}  // namespace ptxbench
