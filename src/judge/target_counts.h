// Executed instructions of counted calls (the worker's target_counts events: per kernel, executed
// count by program-counter offset) read through the candidate's SASS listing: executed opcodes,
// whether every target group ran, and the FLOPs the tensor instructions did against the problem's.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compile/sass_listing.h"
#include "compile/static_checks.h"
#include "core/json.h"
#include "problems/problem_spec.h"

namespace ptxbench {

struct ExecutedTargets {
  OpcodeCounts opcodes;            // executed (warp-level) count per opcode, candidate kernels
  double warpgroup_mma_flops = 0;  // FLOPs done by the target tensor family (HGMMA, ...)
  double other_tensor_flops = 0;   // by older tensor instructions (HMMA)
  double simt_flops = 0;           // the most the FMA and FP64 pipes' float instructions did (FFMA 2
                                   // per lane, HFMA2 4, FADD/FMUL 1, ...): other_math_flops_per_warp
  double problem_flops = 0;        // the problem's nominal FLOPs for the counted shape
  // Bytes the TMA family (UTMALDG, UTMASTG, UTMAREDG) moved, at least: each executed copy credited
  // with the smallest box among the known tensor maps its kernel was launched with (the worker's
  // "tensor_maps"); copies of a kernel given no known map are counted but credited nothing.
  double tma_bytes = 0;
  long long tma_copies = 0;          // executed TMA copy instructions
  long long tma_copies_unsized = 0;  // of those, in kernels given no known map
  long long unmatched = 0;           // executed offsets the listing does not know
  bool check_passed = false;         // the counted call's full check
  json kernels = json::array();      // per kernel: executed target opcodes
};

// A TMA copy instruction (global <-> shared through a tensor map), the target TMA family's work.
bool is_tma_copy(const SassInstruction& i);

// FLOPs a warp's execution of a float SIMT opcode does at most (32 lanes), 0 for any other opcode.
double other_math_flops_per_warp(const std::string& opcode);

// One counted shape measured against the problem's TargetWork (problems/problem_spec.h): the
// checked calls' side of the allowlist (the timed calls' counters decide: judge/timed_work.h;
// these calls must agree). Math off the target family is bounded so that a kernel cannot do the
// math elsewhere and earn the flag with warpgroup MMAs whose results it throws away; honest
// kernels do their softmax, epilogue and scaling there, a few percent.
struct TargetWorkCheck {
  bool seen = false;                 // every target group executed (the paper's flag: target_seen)
  double tensor_flop_share = 0;      // warpgroup MMA FLOPs / problem FLOPs, at most max_target_flop_ratio
  double tma_byte_share = 0;         // TMA bytes / operand bytes (0 when the problem names none)
  double other_math_flop_share = 0;  // (SIMT + older tensor FLOPs) / problem FLOPs, at most max_other_math_share
  bool does_the_work = false;        // seen, and every bound of the problem's TargetWork held
  std::string shortfall;             // why not, in words ("" when it does)
};
TargetWorkCheck check_target_work(const ExecutedTargets& t, double operand_bytes,
                                  const std::vector<std::vector<std::string>>& groups, const TargetWork& work);

// One counted shape. Throws InputError on a malformed event.
ExecutedTargets executed_targets(const json& target_counts_event, const SassListing& listing,
                                 const std::vector<std::vector<std::string>>& groups);

// True only when the counted calls prove that no target instruction ran: events for some shape,
// a listing that knows every executed offset, and no opcode of any group (nor any warpgroup MMA)
// executed on any shape. Such a candidate cannot earn target credit from a timed sample (credit
// needs every counted shape), so the service times it without the secretly counted sample.
// Every counted shape of a candidate measured against the problem's TargetWork: the record's flags
// and shares, and a line per shape for the target_run stage's detail.
struct TargetWorkSummary {
  bool seen = false;           // target_seen: every shape executed every target group
  bool does_the_work = false;  // target_executed: on every shape the shares reached the minimums
  std::optional<double> tensor_flop_share, tma_byte_share;  // over all counted shapes together
  OpcodeCounts executed;                                    // every counted shape's opcodes together
  std::string shortfall;                                    // the first shape that fell short, and why
  json shapes = json::array();
};
// `operand_bytes(shape)` gives the problem's operand bytes for a counted shape (0: none stated).
TargetWorkSummary summarize_target_work(const std::vector<json>& target_counts_events, const SassListing& listing,
                                        const std::vector<std::vector<std::string>>& groups, const TargetWork& work,
                                        const std::function<double(const json& shape)>& operand_bytes,
                                        const std::function<std::string(const json& shape)>& shape_name);

bool counted_calls_show_no_target(const std::vector<json>& target_counts_events, const SassListing& listing,
                                  const std::vector<std::vector<std::string>>& groups);

// Why the counted calls need not run at all ("" = they must): the candidate's SASS holds no
// instruction of any target group and no tensor-core instruction of any kind (no opcode with MMA
// in it), so counting could find no target and no tensor share. Code the SASS does not hold cannot
// run unseen: a module loaded at run time is forbidden (the audit's hidden_module). An empty
// listing (no scan, or it failed) proves nothing. Skipping can only withhold credit, never grant it.
std::string why_no_counted_calls(const SassListing& listing, const std::vector<std::vector<std::string>>& groups);

}  // namespace ptxbench
