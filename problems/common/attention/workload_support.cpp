#include "common/attention/workload_support.h"
#include "common/attention/fused_attention_check.h"

#include "core/error.h"

namespace ptxbench::attention {

bool causal_option(const json& options) {
  bool causal = false;
  for (const auto& [key, value] : options.items()) {
    if (key != "causal" || !value.is_boolean())
      fail("attention workload options: only causal = true/false, got " + options.dump());
    causal = value.get<bool>();
  }
  return causal;
}

Dims dims_of(const WorkloadShape& shape, bool causal) {
  Dims d;
  d.B = int(shape.at("B")), d.H = int(shape.at("H")), d.S = int(shape.at("S")), d.D = int(shape.at("D"));
  d.causal = causal;
  return d;
}

Dims gqa_dims_of(const WorkloadShape& shape, bool causal) {
  Dims d;
  d.B = int(shape.at("B")), d.Hkv = int(shape.at("Hkv")), d.S = int(shape.at("S")), d.D = int(shape.at("D"));
  const long long g = shape.at("G");
  if (g < 1 || d.Hkv < 1) fail("grouped-query attention: G and Hkv must be at least 1");
  d.H = int(g * d.Hkv);
  d.causal = causal;
  return d;
}

OutputTolerance output_tolerance(const json& tolerances, const std::string& name) {
  if (!tolerances.contains(name)) fail("the problem gives no tolerance for output " + name);
  const auto& t = tolerances.at(name);
  return {t.at("rtol").get<double>(), t.at("atol").get<double>(), t.at("max_rel_l2").get<double>()};
}

OutputCheck judge_attention_output(const std::string& name, const ErrorStats& e, const OutputTolerance& t,
                                   const Dims& d, int width, bool kv_tensor) {
  OutputCheck c = judge_output(name, e, t.rtol, t.atol, t.max_rel_l2, width);
  auto where = [&](size_t i) { return kv_tensor ? d.where_kv(i, width) : d.where(i, width); };
  if (e.count) c.detail["worst"]["at"] = where(e.worst);
  if (!c.passed) c.summary += " [at " + where(e.nonfinite ? e.first_nonfinite : e.worst) + "]";
  return c;
}

CheckOutcome combine_checks(const std::vector<OutputCheck>& checks) {
  CheckOutcome out{true, "", {{"outputs", json::array()}}};
  std::string failed, all;
  for (const auto& c : checks) {
    out.detail["outputs"].push_back(c.detail);
    all += (all.empty() ? "" : "; ") + c.summary;
    if (!c.passed) {
      out.passed = false;
      failed += (failed.empty() ? "" : "; ") + c.summary;
    }
  }
  out.summary = out.passed ? all : failed;
  return out;
}

std::vector<TimedCheck> read_timed_slots(const TimedSlot* slots, int count) {
  std::vector<TimedSlot> h(count);
  PTXBENCH_CUDA(cudaDeviceSynchronize());
  PTXBENCH_CUDA(cudaMemcpy(h.data(), slots, sizeof(TimedSlot) * count, cudaMemcpyDeviceToHost));
  std::vector<TimedCheck> out(count);
  for (int i = 0; i < count; ++i) {
    out[i].output_finite = h[i].nonfinite == 0;
    out[i].projection_ok = h[i].bad == 0;
    out[i].worst_ratio = h[i].worst_ratio;
  }
  return out;
}

json sdpa_plans_json(const CudnnSdpa& sdpa, const std::string& direction) {
  json plans = json::object();
  for (const auto& p : sdpa.plans())
    if (p.label.rfind(direction + " ", 0) == 0)
      plans[p.label] = {{"plan", p.name},
                        {"attention_kernel", attention_kernel(p.kernels)},
                        {"workspace_bytes", p.workspace_bytes},
                        {"build_seconds", p.build_seconds}};
  return plans;
}

json sdpa_kernels_json(const CudnnSdpa& sdpa, const std::string& direction) {
  json kernels = json::object();
  for (const auto& p : sdpa.plans())
    if (p.label.rfind(direction + " ", 0) == 0) kernels[p.label] = p.kernels;
  return kernels;
}

}  // namespace ptxbench::attention
