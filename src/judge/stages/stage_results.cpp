// The shapes every stage unit writes its result in: a failure with its verdict, a skip with its reason.
#include "judge/stages/stage_results.h"

namespace ptxbench {

StageResult failed_stage(const std::string& name, Verdict v, const std::string& message, json detail) {
  detail["verdict"] = std::string(to_string(v));
  return {name, StageStatus::failed, 0, message, std::move(detail)};
}

StageResult skipped_stage(std::string_view name, const std::string& why) {
  return {std::string(name), StageStatus::skipped, 0, why, json::object()};
}

std::string first_reason(const std::vector<std::string>& reasons) {
  std::string msg = reasons.front();
  if (reasons.size() > 1) msg += " (+" + std::to_string(reasons.size() - 1) + " more)";
  return msg;
}

}  // namespace ptxbench
