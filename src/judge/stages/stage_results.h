// The stage results every stage unit writes in the same shape: a failure carrying the verdict it
// implies (decide_verdict reads it), a skip with its reason.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/record.h"

namespace ptxbench {

StageResult failed_stage(const std::string& name, Verdict v, const std::string& message, json detail = json::object());
StageResult skipped_stage(std::string_view name, const std::string& why);

// "the first reason (+2 more)": a stage's one-line message from everything it found.
std::string first_reason(const std::vector<std::string>& reasons);

}  // namespace ptxbench
