// Wall-clock timestamps for stored rows: ISO-8601 UTC with milliseconds, so rows written within one
// second still sort in the order they happened.
#pragma once
#include <string>

namespace ptxbench {

std::string utc_timestamp_ms();  // "2026-11-29T12:00:00.123Z"

}  // namespace ptxbench
