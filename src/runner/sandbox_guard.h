// The worker's own confinement around the candidate (src/sandbox/seccomp_filters): a SIGSYS
// handler that reports a trapped call as `forbidden` over the signed channel, then the filter
// installed before the candidate is loaded and the one installed after. What applied is reported
// as a `sandbox` event (the parent records it); a filter this host cannot install is reported,
// never fatal. The job's "sandbox" object: {"candidate_filters": bool, "under_tool": bool,
// "deny_exec_mappings": bool, "deny_file_opens": bool, "after_load": bool}.
#pragma once
#include "core/json.h"
#include "runner/result_channel.h"

namespace ptxbench {

void install_sigsys_reporter(ResultChannel& channel);
// Each returns {"seccomp": "installed"} or {"seccomp": "not installed: <why>"}.
json confine_before_candidate_load(const json& job_sandbox);
json confine_after_candidate_load(const json& job_sandbox);

}  // namespace ptxbench
