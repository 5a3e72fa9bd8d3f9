// Wall-clock timestamps, ISO-8601 UTC: whole seconds for an evaluation record's created_at; with
// milliseconds for stored rows, so rows written within one second still sort in the order they happened.
#pragma once
#include <string>

namespace ptxbench {

std::string utc_timestamp();     // "2026-11-29T12:00:00Z"
std::string utc_timestamp_ms();  // "2026-11-29T12:00:00.123Z"

}  // namespace ptxbench
