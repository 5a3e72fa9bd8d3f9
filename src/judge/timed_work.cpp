#include "judge/timed_work.h"

#include <algorithm>
#include <cstdio>

#include "core/error.h"
#include "judge/target_counts.h"

namespace ptxbench {
namespace {

struct Work {
  double tensor_ops = 0, tma_bytes = 0, other_math_flops = 0;
};

// One range's figures; a metric that read NaN leaves them unknown (`why` says which).
Work work_of(const json& w, std::string* why) {
  const auto unreadable = w.value("unreadable", std::vector<std::string>{});
  if (!unreadable.empty() && why) *why = "the counters could not read " + unreadable.front();
  return {w.at("tensor_ops").get<double>(),
          w.at("tma_load_bytes").get<double>() + w.at("tma_store_bytes").get<double>(),
          w.value("other_math_flops", 0.0)};
}

}  // namespace

TimedWorkCheck check_timed_work(const std::vector<json>& timing_events, double min_tensor_flop_share,
                                double min_tma_byte_share, const std::function<double(const json&)>& operand_bytes,
                                const std::function<std::string(const json&)>& shape_name) {
  TimedWorkCheck out;
  if (timing_events.empty()) {
    out.unavailable = "nothing was timed";
    return out;
  }
  double tensor_min = 1e300, tma_min = 1e300;
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
      const int calls = w.at("candidate_calls").get<int>(), library_in_range = w.at("library_calls").get<int>();
      if (calls <= 0) {
        out.unavailable = name + ": no candidate call was timed";
        break;
      }
      std::string why;
      const Work samples = work_of(w.at("samples"), &why);
      Work library_per_call;
      if (library_in_range > 0) {
        if (!w.contains("library")) {
          out.unavailable = name + ": the library's own work was not counted";
          break;
        }
        const json& lib = w.at("library");
        const int lib_calls = lib.at("calls").get<int>();
        if (lib_calls <= 0) throw InputError("timed_work.library.calls must be positive");
        const Work l = work_of(lib.at("work"), &why);
        library_per_call = {l.tensor_ops / lib_calls, l.tma_bytes / lib_calls, l.other_math_flops / lib_calls};
      }
      // The harness's own work per sample (inputs, the backward's regenerated forward outputs,
      // checks): two whole library samples less two library calls.
      Work harness;
      const bool harness_known = w.contains("library_samples") && library_in_range > 0;
      if (harness_known) {
        const json& ls = w.at("library_samples");
        const int n = ls.at("samples").get<int>();
        if (n <= 0) throw InputError("timed_work.library_samples.samples must be positive");
        const Work all = work_of(ls.at("work"), &why);
        harness = {std::max(0.0, all.tensor_ops / n - library_per_call.tensor_ops),
                   std::max(0.0, all.tma_bytes / n - library_per_call.tma_bytes),
                   std::max(0.0, all.other_math_flops / n - library_per_call.other_math_flops)};
      }
      if (!why.empty()) {
        out.unavailable = name + ": " + why;
        break;
      }
      // The candidate's calls: the samples' range less the library's calls and every sample's
      // harness work.
      const int samples_in_range = calls + library_in_range;
      auto candidates = [&](double total, double library, double per_sample) {
        return std::max(0.0, total - library_in_range * library - samples_in_range * per_sample);
      };
      const double ops = candidates(samples.tensor_ops, library_per_call.tensor_ops, harness.tensor_ops);
      const double bytes = candidates(samples.tma_bytes, library_per_call.tma_bytes, harness.tma_bytes);
      const double flops = t.at("flops").get<double>(), operands = operand_bytes(shape);
      const double tensor = flops > 0 ? ops * kTensorFlopsPerOp / (calls * flops) : 0.0;
      const double tma = operands > 0 ? bytes / (calls * operands) : 0.0;
      // The most FLOPs the FMA and FP64 pipes could have done, per problem FLOP (integer work there
      // too: an upper bound): a kernel doing the math there while wasting warpgroup MMAs on the side
      // reads 1 or more.
      const double other =
          candidates(samples.other_math_flops, library_per_call.other_math_flops, harness.other_math_flops);
      const double other_share = flops > 0 ? other / (calls * flops) : 0.0;
      json one = {{"shape", shape},
                  {"candidate_calls", calls},
                  {"tensor_flop_share", tensor},
                  {"tma_byte_share", tma},
                  {"other_math_flop_bound", other_share}};
      if (library_in_range > 0 && flops > 0)
        one["library"] = {{"calls_in_range", library_in_range},
                          {"tensor_flop_share", library_per_call.tensor_ops * kTensorFlopsPerOp / flops},
                          {"tma_byte_share", operands > 0 ? library_per_call.tma_bytes / operands : 0.0}};
      if (flops > 0)
        one["harness_per_sample"] = harness_known
                                        ? json{{"tensor_flop_share", harness.tensor_ops * kTensorFlopsPerOp / flops},
                                               {"tma_byte_share", operands > 0 ? harness.tma_bytes / operands : 0.0}}
                                        : json("not measured");
      if (w.contains("uncounted_types")) one["uncounted_types"] = w.at("uncounted_types");
      if (w.contains("seconds")) one["seconds"] = w.at("seconds");  // the accounting's host time
      tensor_min = std::min(tensor_min, tensor), tma_min = std::min(tma_min, tma);
      char buf[260] = "";
      if (tensor < min_tensor_flop_share)
        std::snprintf(buf, sizeof buf,
                      "over its timed calls the warpgroup MMAs did %.1f%% of the FLOPs (at least %.0f%% needed) on %s",
                      tensor * 100, min_tensor_flop_share * 100, name.c_str());
      else if (operands > 0 && tma < min_tma_byte_share)
        std::snprintf(buf, sizeof buf,
                      "over its timed calls the TMA moved %.3gx the operand bytes (at least %.3gx needed) on %s", tma,
                      min_tma_byte_share, name.c_str());
      else if (min_tensor_flop_share > 0 && other_share > kMaxOtherMathFlopShare)
        std::snprintf(buf, sizeof buf,
                      "over its timed calls the FMA and FP64 pipes could have done up to %.0f%% of the FLOPs "
                      "(at most %.0f%% allowed) on %s: the warpgroup MMAs' work is not the problem's",
                      other_share * 100, kMaxOtherMathFlopShare * 100, name.c_str());
      one["does_the_work"] = buf[0] == 0;
      if (buf[0] && out.shortfall.empty()) out.shortfall = buf;
      out.does_the_work = out.does_the_work && buf[0] == 0;
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
  out.tensor_flop_share = tensor_min;
  out.tma_byte_share = tma_min;
  return out;
}

}  // namespace ptxbench
