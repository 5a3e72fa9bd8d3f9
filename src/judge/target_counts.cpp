// Reads the counted calls' executed instructions through the SASS listing: opcodes, targets run, FLOPs.
#include "judge/target_counts.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/error.h"

namespace ptxbench {

bool is_tma_copy(const SassInstruction& i) {
  return i.opcode == "UTMALDG" || i.opcode == "UTMASTG" || i.opcode == "UTMAREDG";
}

double other_math_flops_per_warp(const std::string& opcode) {
  static const std::map<std::string, double, std::less<>> per_lane = {
      {"FFMA", 2},
      {"FFMA2", 4},
      {"FMUL", 1},
      {"FMUL2", 2},
      {"FADD", 1},
      {"FADD2", 2},
      {"HFMA2", 4},
      {"HMUL2", 2},
      {"HADD2", 2},
      {"DFMA", 2},
      {"DMUL", 1},
      {"DADD", 1},
      // A dot product of four int8 pairs (8 operations) and the special-function unit's one.
      {"IDP", 8},
      {"MUFU", 1}};
  const auto it = per_lane.find(opcode);
  return it == per_lane.end() ? 0.0 : 32 * it->second;
}

ExecutedTargets executed_targets(const json& ev, const SassListing& listing,
                                 const std::vector<std::vector<std::string>>& groups) {
  ExecutedTargets out;
  try {
    out.problem_flops = ev.at("flops").get<double>();
    out.check_passed = ev.at("check_passed").get<bool>();
    const json maps = ev.value("tensor_maps", json::object());
    for (const auto& fn : ev.at("functions")) {
      const std::string name = fn.at("function").get<std::string>();
      // A count naming its cubin (a Triton kernel's specializations share a name) is read in that
      // cubin's listing (key "<image>/<kernel>"), else in the listing by kernel name.
      auto f = fn.contains("image") ? listing.find(fn.at("image").get<std::string>() + "/" + name) : listing.end();
      if (f == listing.end()) f = listing.find(name);
      const double box = maps.contains(name) ? maps.at(name).at("min_box_bytes").get<double>() : 0.0;
      OpcodeCounts mine;
      for (const auto& pc : fn.at("pcs")) {
        const auto offset = pc.at(0).get<uint32_t>();
        const auto executed = pc.at(1).get<long long>();
        const SassInstruction* ins = nullptr;
        if (f != listing.end())
          if (auto it = f->second.find(offset); it != f->second.end()) ins = &it->second;
        if (!ins) {
          out.unmatched += executed;
          continue;
        }
        mine[ins->opcode] += executed;
        if (is_tma_copy(*ins)) {
          out.tma_copies += executed;
          if (box > 0) out.tma_bytes += box * double(executed);
          else out.tma_copies_unsized += executed;
        }
        out.simt_flops += other_math_flops_per_warp(ins->opcode) * double(executed);
        const double flops = tensor_flops_per_warp_execution(*ins) * double(executed);
        (is_warpgroup_mma(*ins) ? out.warpgroup_mma_flops : out.other_tensor_flops) += flops;
      }
      for (const auto& [op, n] : mine) out.opcodes[op] += n;
      out.kernels.push_back(
          {{"name", name}, {"targets", select_families(mine, groups)}, {"in_listing", f != listing.end()}});
    }
  } catch (const json::exception& e) {
    throw InputError(std::string("malformed target_counts event: ") + e.what());
  }
  return out;
}

TargetWorkCheck check_target_work(const ExecutedTargets& t, double operand_bytes,
                                  const std::vector<std::vector<std::string>>& groups, const TargetWork& k) {
  TargetWorkCheck c;
  c.seen = groups_satisfied(t.opcodes, groups);
  c.tensor_flop_share =
      t.problem_flops > 0 ? std::min(t.warpgroup_mma_flops / t.problem_flops, k.max_target_flop_ratio) : 0.0;
  c.tma_byte_share = operand_bytes > 0 ? t.tma_bytes / operand_bytes : 0.0;
  c.other_math_flop_share = t.problem_flops > 0 ? (t.simt_flops + t.other_tensor_flops) / t.problem_flops : 0.0;
  char buf[240];
  if (!c.seen) {
    c.shortfall = "not every target group executed";
  } else if (c.tensor_flop_share < k.tensor_flop_share) {
    std::snprintf(buf, sizeof buf, "the warpgroup MMAs did %.1f%% of the FLOPs (at least %.0f%% needed)",
                  c.tensor_flop_share * 100, k.tensor_flop_share * 100);
    c.shortfall = buf;
  } else if (c.tma_byte_share < k.tma_byte_share) {
    std::snprintf(buf, sizeof buf, "the TMA copies moved %.3gx the operand bytes (at least %.3gx needed%s)",
                  c.tma_byte_share, k.tma_byte_share,
                  t.tma_copies_unsized > 0 ? "; copies of kernels given no encoded tensor map count 0" : "");
    c.shortfall = buf;
  } else if (k.tensor_flop_share > 0 && c.other_math_flop_share > k.max_other_math_share) {
    std::snprintf(buf, sizeof buf,
                  "SIMT and older tensor instructions did up to %.0f%% of the FLOPs (at most %.0f%% allowed): "
                  "the warpgroup MMAs' work is not the problem's",
                  c.other_math_flop_share * 100, k.max_other_math_share * 100);
    c.shortfall = buf;
  }
  c.does_the_work = c.shortfall.empty();
  return c;
}

TargetWorkSummary summarize_target_work(const std::vector<json>& events, const SassListing& listing,
                                        const std::vector<std::vector<std::string>>& groups, const TargetWork& work,
                                        const std::function<double(const json&)>& operand_bytes,
                                        const std::function<std::string(const json&)>& shape_name) {
  TargetWorkSummary out;
  out.seen = out.does_the_work = !events.empty();
  double mma_flops = 0, problem_flops = 0, tma_bytes = 0, operands_total = 0;
  for (const auto& ev : events) {
    const ExecutedTargets t = executed_targets(ev, listing, groups);
    const json& shape = ev.at("shape");
    const double operands = operand_bytes(shape);
    const TargetWorkCheck w = check_target_work(t, operands, groups, work);
    out.seen = out.seen && w.seen;
    out.does_the_work = out.does_the_work && w.does_the_work;
    if (!w.does_the_work && out.shortfall.empty()) {
      const std::string when = ev.value("when", "");
      out.shortfall = w.shortfall + " on " + shape_name(shape) + (when.empty() ? "" : " (" + when + ")");
    }
    mma_flops += t.warpgroup_mma_flops;
    problem_flops += t.problem_flops;
    tma_bytes += t.tma_bytes;
    operands_total += operands;
    for (const auto& [op, n] : t.opcodes) out.executed[op] += n;
    out.shapes.push_back(
        {{"shape", shape},
         {"when", ev.value("when", "")},
         {"targets_executed", w.does_the_work},
         {"targets_seen", w.seen},
         {"executed_families", select_families(t.opcodes, groups)},
         {"tensor_flop_share", w.tensor_flop_share},
         {"other_tensor_flop_share", t.problem_flops > 0 ? t.other_tensor_flops / t.problem_flops : 0.0},
         {"other_math_flop_share", w.other_math_flop_share},
         {"tma_byte_share", w.tma_byte_share},
         {"tma_copies", t.tma_copies},
         {"tma_copies_without_known_map", t.tma_copies_unsized},
         {"unmatched_executions", t.unmatched},
         {"check_passed", t.check_passed},
         {"kernels", t.kernels}});
  }
  if (problem_flops > 0) out.tensor_flop_share = std::min(mma_flops / problem_flops, work.max_target_flop_ratio);
  if (operands_total > 0) out.tma_byte_share = tma_bytes / operands_total;
  return out;
}

bool counted_calls_show_no_target(const std::vector<json>& events, const SassListing& listing,
                                  const std::vector<std::vector<std::string>>& groups) {
  if (events.empty() || listing.empty()) return false;
  for (const auto& ev : events) {
    const ExecutedTargets t = executed_targets(ev, listing, groups);
    if (t.unmatched > 0 || t.warpgroup_mma_flops > 0 || !select_families(t.opcodes, groups).empty()) return false;
  }
  return true;
}

std::string why_no_counted_calls(const SassListing& listing, const std::vector<std::vector<std::string>>& groups) {
  OpcodeCounts present;
  for (const auto& [kernel, instructions] : listing)
    for (const auto& [offset, ins] : instructions) {
      // Every tensor-core opcode has MMA in it: HMMA, IMMA, the warpgroup *GMMA, Blackwell's UTC*MMA.
      if (ins.opcode.find("MMA") != std::string::npos) return "";
      ++present[ins.opcode];
    }
  if (present.empty() || !select_families(present, groups).empty()) return "";
  return "the candidate's SASS (" + std::to_string(listing.size()) +
         " kernels) holds no target and no tensor-core instruction, so no call of it can execute one";
}

}  // namespace ptxbench
