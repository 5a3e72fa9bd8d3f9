// The timed calls' target work from the worker's hardware counters, judged by the chip's allowlist.
#include "judge/timed_work.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/error.h"
#include "probes/work_metrics.h"

namespace ptxbench {
namespace {

// The figures of one range, linear in the counters' values (so ranges subtract), or why unknown.
struct Work {
  double target = 0, other = 0, tma_load = 0, tma_store = 0, global_load = 0;
  Work operator-(const Work& o) const {
    return {target - o.target, other - o.other, tma_load - o.tma_load, tma_store - o.tma_store,
            global_load - o.global_load};
  }
  Work operator*(double k) const { return {target * k, other * k, tma_load * k, tma_store * k, global_load * k}; }
};

Work work_of(const json& w, const WorkFormula& f, std::string* why) {
  std::map<std::string, double> values;
  for (const auto& [metric, v] : w.at("values").items())
    if (v.is_number()) values[metric] = v.get<double>();
  const WorkFigures g = work_figures(f, values);
  if (!g.unreadable.empty() && why && why->empty()) *why = "the counters could not read " + g.unreadable.front();
  return {g.target_ops, g.other_math_flops, g.tma_load_bytes, g.tma_store_bytes, g.global_load_bytes};
}

// Why a shape falls short of the allowlist, in words ("" when it does the work).
std::string shortfall(double target_share, double other_share, double tma_load_share, const TargetWork& k,
                      const std::string& name) {
  char buf[320] = "";
  if (target_share < k.tensor_flop_share)
    std::snprintf(buf, sizeof buf,
                  "over its timed calls the warpgroup MMAs of the problem's type did %.1f%% of the FLOPs (at least "
                  "%.0f%% needed) on %s",
                  target_share * 100, k.tensor_flop_share * 100, name.c_str());
  else if (k.tensor_flop_share > 0 && other_share > k.max_other_math_share)
    std::snprintf(buf, sizeof buf,
                  "over its timed calls other instructions (older MMAs, SIMT pipes, the rest) could have done up to "
                  "%.0f%% of the FLOPs (at most %.0f%% allowed) on %s: the target's work is not the problem's",
                  other_share * 100, k.max_other_math_share * 100, name.c_str());
  else if (tma_load_share < k.tma_load_share)
    std::snprintf(buf, sizeof buf,
                  "over its timed calls the TMA brought %.1f%% of the global bytes the kernels read (at least %.0f%% "
                  "needed) on %s",
                  tma_load_share * 100, k.tma_load_share * 100, name.c_str());
  return buf;
}

}  // namespace

TimedWorkCheck check_timed_work(const std::vector<json>& timing_events, const TargetWork& k,
                                const std::function<double(const json&)>& operand_bytes,
                                const std::function<std::string(const json&)>& shape_name) {
  TimedWorkCheck out;
  if (timing_events.empty()) {
    out.unavailable = "nothing was timed";
    return out;
  }
  double target_min = 1e300, tma_load_min = 1e300, other_max = -1, tma_bytes_min = 1e300;
  out.does_the_work = true;
  try {
    for (const auto& t : timing_events) {
      const json& shape = t.at("shape");
      const std::string name = shape_name(shape);
      if (!t.contains("timed_work")) {
        out.unavailable = "the timed calls on " + name + " were not counted";
        break;
      }
      const json& w = t.at("timed_work");
      if (w.contains("error")) {
        out.unavailable = name + ": " + w.at("error").get<std::string>();
        break;
      }
      const std::string chip = w.at("chip").get<std::string>(), math_class = w.value("math_class", "");
      const auto formula = work_formula(chip, math_class);
      if (!formula) {
        out.unavailable = name + ": no work formula for " + math_class + " operands on chip " + chip;
        break;
      }
      const int calls = w.at("candidate_calls").get<int>(), library_in_range = w.at("library_calls").get<int>();
      if (calls <= 0) {
        out.unavailable = name + ": no candidate call was timed";
        break;
      }
      std::string why;
      const Work samples = work_of(w.at("samples"), *formula, &why);
      Work library_per_call;
      if (library_in_range > 0) {
        if (!w.contains("library")) {
          out.unavailable = name + ": the library's own work was not counted";
          break;
        }
        const json& lib = w.at("library");
        const int lib_calls = lib.at("calls").get<int>();
        if (lib_calls <= 0) throw InputError("timed_work.library.calls must be positive");
        library_per_call = work_of(lib.at("work"), *formula, &why) * (1.0 / lib_calls);
      }
      // The harness's own work per sample (inputs, the backward's regenerated forward outputs,
      // checks, the L2 flush): two whole library samples less two library calls.
      Work harness;
      const bool harness_known = w.contains("library_samples") && library_in_range > 0;
      if (harness_known) {
        const json& ls = w.at("library_samples");
        const int n = ls.at("samples").get<int>();
        if (n <= 0) throw InputError("timed_work.library_samples.samples must be positive");
        harness = work_of(ls.at("work"), *formula, &why) * (1.0 / n) - library_per_call;
      }
      if (!why.empty()) {
        out.unavailable = name + ": " + why;
        break;
      }
      // The candidate's calls: the samples' range less the library's calls and every sample's
      // harness work; each figure at least 0.
      const int samples_in_range = calls + library_in_range;
      Work mine = samples - library_per_call * library_in_range - harness * samples_in_range;
      mine = {std::max(0.0, mine.target), std::max(0.0, mine.other), std::max(0.0, mine.tma_load),
              std::max(0.0, mine.tma_store), std::max(0.0, mine.global_load)};
      const double flops = t.at("flops").get<double>(), operands = operand_bytes(shape);
      const double per_flop = flops > 0 ? 1.0 / (calls * flops) : 0.0;
      const double target_ratio = mine.target * kTensorFlopsPerOp * per_flop;
      const double target_share = std::min(target_ratio, k.max_target_flop_ratio);
      const double other_share = mine.other * per_flop;
      // Every TMA byte is a global byte read; where the L2's count is the smaller (noise, or a
      // multicast counted once at the L2 and at each receiving SM), the TMA's own stands. The TMA's
      // counter counts whole boxes, the zero-filled part past a tensor too (H100: a 256x256 box over
      // a 16x16 tensor counted 128 KiB a copy), so its bytes are credited at the smallest share of
      // a box that its tensor fills among the maps the candidate's kernels were given.
      const double fill = std::clamp(w.value("tma_box_fill", 1.0), 0.0, 1.0);
      const double global = std::max(mine.global_load, mine.tma_load);
      const double tma_load_share = global > 0 ? mine.tma_load * fill / global : 0.0;
      const double tma_bytes = operands > 0 ? (mine.tma_load + mine.tma_store) / (calls * operands) : 0.0;
      json one = {{"shape", shape},
                  {"candidate_calls", calls},
                  {"target_flop_ratio", target_ratio},
                  {"tensor_flop_share", target_share},
                  {"other_math_share", other_share},
                  {"tma_load_share", tma_load_share},
                  {"tma_box_fill", fill},
                  {"global_load_bytes_per_call", mine.global_load / calls},
                  {"tma_load_bytes_per_call", mine.tma_load / calls},
                  {"tma_store_bytes_per_call", mine.tma_store / calls},
                  {"tma_byte_share", tma_bytes}};
      if (library_in_range > 0 && flops > 0)
        one["library"] = {{"calls_in_range", library_in_range},
                          {"target_flop_ratio", library_per_call.target * kTensorFlopsPerOp / flops},
                          {"other_math_share", library_per_call.other / flops}};
      if (flops > 0)
        one["harness_per_sample"] = harness_known
                                        ? json{{"target_flop_ratio", harness.target * kTensorFlopsPerOp / flops},
                                               {"other_math_share", harness.other / flops},
                                               {"global_load_bytes", harness.global_load}}
                                        : json("not measured");
      if (w.contains("seconds")) one["seconds"] = w.at("seconds");  // the accounting's host time
      target_min = std::min(target_min, target_share);
      other_max = std::max(other_max, other_share);
      tma_load_min = std::min(tma_load_min, tma_load_share);
      tma_bytes_min = std::min(tma_bytes_min, tma_bytes);
      const std::string why_not = shortfall(target_share, other_share, tma_load_share, k, name);
      one["does_the_work"] = why_not.empty();
      if (!why_not.empty() && out.shortfall.empty()) out.shortfall = why_not;
      out.does_the_work = out.does_the_work && why_not.empty();
      out.shapes.push_back(std::move(one));
    }
  } catch (const json::exception& e) {
    throw InputError(std::string("malformed timing event's timed_work: ") + e.what());
  }
  if (!out.unavailable.empty()) {
    out.does_the_work = false;
    out.shapes = json::array();
    return out;
  }
  out.counted = true;
  out.tensor_flop_share = target_min;
  out.other_math_share = other_max;
  out.tma_load_share = tma_load_min;
  out.tma_byte_share = tma_bytes_min;
  return out;
}

}  // namespace ptxbench
