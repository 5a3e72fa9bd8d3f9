// Builds the jobs the GPU stages give ptxbench-worker: smoke, sanitizers, ncu, the eval job.
#include "judge/stages/worker_jobs.h"

#include <algorithm>
#include <random>

namespace ptxbench {
namespace {

Shape draw_shape(const ProblemSpec& p, std::mt19937_64& rng) {
  Shape s;
  for (const auto& d : p.dims) {
    DimConstraint c = p.constraints.count(d) ? p.constraints.at(d) : DimConstraint{};
    if (!c.one_of.empty()) {
      s[d] = c.one_of[rng() % c.one_of.size()];
      continue;
    }
    long long hi = std::min(c.max, p.random_shape_max.count(d) ? p.random_shape_max.at(d) : c.max);
    long long lo_k = (c.min + c.multiple_of - 1) / c.multiple_of, hi_k = hi / c.multiple_of;
    if (hi_k < lo_k) hi_k = lo_k;
    s[d] = (lo_k + static_cast<long long>(rng() % static_cast<unsigned long long>(hi_k - lo_k + 1))) * c.multiple_of;
  }
  return s;
}

}  // namespace

std::vector<Shape> drawn_shapes(const ProblemSpec& p, uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x5ba9e5);
  // A drawn shape is one the fixed lists do not check already (within a few draws: a small
  // constraint space may have no other).
  std::vector<Shape> drawn;
  auto known = [&](const Shape& s) {
    const std::vector<Shape>* lists[] = {&p.hidden_shapes, &p.benchmark_shapes, &drawn};
    for (const auto* list : lists)
      if (std::find(list->begin(), list->end(), s) != list->end()) return true;
    return false;
  };
  for (int i = 0; i < p.random_hidden_shapes; ++i) {
    Shape s = draw_shape(p, rng);
    for (int retry = 0; retry < 16 && known(s); ++retry) s = draw_shape(p, rng);
    drawn.push_back(std::move(s));
  }
  return drawn;
}

uint64_t job_seed(const std::optional<uint64_t>& fixed) {
  std::random_device rd;
  return fixed ? *fixed : (uint64_t(rd()) << 32) ^ rd();
}

WorkerJob base_job(const ProblemSpec& p, const std::filesystem::path& so, uint64_t seed, int device) {
  json tol = json::object();
  for (const auto& [k, t] : p.tolerances) tol[k] = {{"rtol", t.rtol}, {"atol", t.atol}, {"max_rel_l2", t.max_rel_l2}};
  WorkerJob job;
  job.workload = p.workload;
  job.workload_options = p.workload_options;
  job.candidate = std::filesystem::absolute(so).string();
  job.entry = p.entry;
  job.seed = seed;
  job.device = device;
  job.tolerances = tol;
  return job;
}

WorkerJob single_call_job(const WorkerJob& base, const ProblemSpec& p, const Shape& shape, bool nvtx_range,
                          double watchdog_scale, bool check) {
  WorkerJob job = base;
  job.mode = "single_call";
  job.shape = shape;
  job.flops = p.flop_count(shape);
  job.nvtx_range = nvtx_range;
  job.watchdog_scale = watchdog_scale;
  job.check = check;
  return job;
}

WorkerJob eval_job(const WorkerJob& base, const ProblemSpec& p, const EvalOptions& o, uint64_t seed) {
  WorkerJob job = base;
  auto add_checks = [&](const std::vector<Shape>& shapes, bool hidden, bool drawn) {
    for (const auto& s : shapes) {
      CorrectnessItem item;
      item.shape = s;
      item.seeds = p.correctness_seeds;
      item.hidden = hidden;
      item.flops = p.flop_count(s);
      item.drawn = drawn;  // fresh per candidate: never pooled
      job.correctness.push_back(std::move(item));
    }
  };
  const std::vector<Shape> drawn = drawn_shapes(p, seed);
  add_checks(p.hidden_shapes, true, false);
  add_checks(drawn, true, true);
  add_checks(p.benchmark_shapes, false, false);
  job.mode = "eval";
  job.accounting = o.accounting;
  job.fixed_seed = o.seed;
  job.gate_shape = p.probe_shape;
  job.gate_flops = p.flop_count(p.probe_shape);
  std::vector<ShapeWork> benchmark;  // the shapes counted and timed
  for (const auto& s : p.benchmark_shapes) benchmark.push_back({s, p.flop_count(s)});
  if (o.probe) job.count = benchmark;
  if (o.timing) {
    job.timing = benchmark;
    job.timing_config = o.timing_config;
  }
  return job;
}

}  // namespace ptxbench
