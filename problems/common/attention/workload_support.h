// What the attention workloads (common/attention/forward_workload, backward_workload) share besides the kernels:
// options, shapes, tolerances, the full check of one output and the reading of the timed-check
// slots.
#pragma once
#include <string>
#include <vector>

#include "common/attention/attention_dims.h"
#include "common/attention/cudnn_sdpa.h"
#include "common/attention/sampled_rows.h"
#include "core/json.h"
#include "runner/detail/device_buffer.h"
#include "runner/device_ops.h"
#include "runner/workload.h"

namespace ptxbench::attention {

// [workload_options]: nothing, or causal = true/false.
bool causal_option(const json& options);
// Multi-head attention: dims B, H, S, D.
Dims dims_of(const WorkloadShape& shape, bool causal);
// Grouped-query attention: dims B, Hkv, G, S, D; H = G * Hkv query heads (query head h reads
// key/value head h / G).
Dims gqa_dims_of(const WorkloadShape& shape, bool causal);

struct OutputTolerance {
  double rtol = 0, atol = 0, max_rel_l2 = 0;
  SampleTolerance sample() const { return {float(rtol), float(atol)}; }
};
// The job's tolerance for output `name`; fails naming it when the problem gives none.
OutputTolerance output_tolerance(const json& tolerances, const std::string& name);

// judge_output, with the worst (or first non-finite) element located as b, h, s, d (kv_tensor: a
// [B,Hkv,S,width] tensor such as dK, located as b, hkv, s, d when Hkv differs from H).
OutputCheck judge_attention_output(const std::string& name, const ErrorStats& e, const OutputTolerance& t,
                                   const Dims& d, int width, bool kv_tensor = false);
// Passed when every output passed; the summary names the failed outputs, else summarizes all.
CheckOutcome combine_checks(const std::vector<OutputCheck>& checks);

// The cuDNN plans of one direction ("fwd" or "bwd") built so far, by label: plan name, its
// attention kernel (the engine) and workspace.
json sdpa_plans_json(const CudnnSdpa& sdpa, const std::string& direction);
// By the same labels: every kernel one execution of the plan launches, in order.
json sdpa_kernels_json(const CudnnSdpa& sdpa, const std::string& direction);

// Reads `count` slots (synchronizes the device) into the harness's verdicts.
std::vector<TimedCheck> read_timed_slots(const TimedSlot* slots, int count);

}  // namespace ptxbench::attention
