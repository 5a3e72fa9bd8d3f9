// Which hardware counters measure a call's work on each chip, and how their values make the figures.
#include "probes/work_metrics.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace ptxbench {
namespace {

// Every figure below was measured on an H100 with bench/counter_semantics (one kernel per kind of
// work; docs/anti-cheat.md, "Targets are counted on the calls that count"):
//   - the tensor pipe's instruction count holds every MMA kind AND HFMA2.MMA, a half-precision FMA
//     ptxas also uses to move an immediate into a register (often inside loops), so it cannot price
//     the older MMAs; their pipes' active cycles can: dense HGMMA does exactly 1024 bf16 operations
//     per active cycle (the chip's peak), HMMA 683, its sparse form 1024 (dense-equivalent), IMMA
//     1365, DMMA 32, and the HMMA/HGMMA/QGMMA cycles leave HFMA2.MMA out;
//   - HFMA2.MMA has its own instruction count (4 FLOPs a lane).
const std::string kInstructions = "sm__inst_executed_realtime.sum";  // every warp instruction
const std::string kHmmaCycles = "sm__pipe_tensor_op_hmma_type_hmma_hgmma_qgmma_cycles_active.sum";
const std::string kImmaCycles = "sm__pipe_tensor_op_imma_cycles_active.sum";  // IMMA, BMMA, IGMMA, BGMMA
const std::string kDmmaCycles = "SM_C.TriageCompute.smsp__pipe_tensor_op_dmma_cycles_active.sum";
const std::string kHfma2OnTensorPipe = "sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum";

// Per active cycle of each tensor pipe, the most operations anything there can do for a float
// problem: the dense warpgroup MMA's peak for the HMMA/HGMMA/QGMMA pipe (bf16/fp16 1024, fp8 2048),
// twice IMMA's measured rate for the integer pipe (a float product needs several int8 ones), the
// fp64 tensor peak (69) rounded up for DMMA.
constexpr double kHmmaPerCycle16 = 1024, kHmmaPerCycle8 = 2048, kImmaPerCycle = 2048, kDmmaPerCycle = 128;
constexpr double kHfma2Flops = 128;   // HFMA2: 4 FLOPs a lane
constexpr double kFmaPipeFlops = 64;  // FFMA: 2 FLOPs a lane (an HFMA2 there does 4: math done there
                                      // in fp16 still reads half the FLOPs it did, five times the bound)
constexpr double kOneALane = 32;      // ALU and XU: one operation a lane
// The FP64 pipe's peak per active cycle (64 DFMA a clock per SM on GH100, measured 32 on a chain of
// dependent DFMAs), so the bound holds however its instructions are shaped.
constexpr double kFp64PerCycle = 128;

// The older tensor instructions' work: the HMMA/HGMMA/QGMMA pipe's active cycles at its peak less
// the target's own operations (the target is dense: its operations never exceed its cycles at the
// peak, so this never goes below zero and a target cannot hide other work), the integer and fp64
// MMA pipes' cycles, and HFMA2.MMA.
std::vector<MetricTerm> older_tensor_work(const std::string& target, double hmma_per_cycle) {
  return {{kHmmaCycles, hmma_per_cycle},
          {target, -1},
          {kImmaCycles, kImmaPerCycle},
          {kDmmaCycles, kDmmaPerCycle},
          {kHfma2OnTensorPipe, kHfma2Flops - 1}};  // -1: inst_executed counts it once already
}

// Every pipe apart (bf16 on GH100: the one pass holds it): each warp instruction counts one
// operation, those of the FMA, ALU and XU pipes their weight instead (so -1 each), the FP64 pipe its
// peak per active cycle; the warpgroup MMAs, the target, count one each (a few per tile). Honest
// kernels keep their bound low: their softmax and epilogue run at their real weight.
std::vector<MetricTerm> gh100_by_pipe(const std::string& target, double hmma_per_cycle) {
  std::vector<MetricTerm> out = {{kInstructions, 1},
                                 {"TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.sum", kFmaPipeFlops - 1},
                                 {"TPC.TriageCompute.sm__inst_executed_pipe_alu_realtime.sum", kOneALane - 1},
                                 {"SM_A.TriageCompute.sm__inst_executed_pipe_xu_realtime.sum", kOneALane - 1},
                                 {"TPC.TriageCompute.sm__pipe_fp64_cycles_active_realtime.sum", kFp64PerCycle}};
  for (auto& t : older_tensor_work(target, hmma_per_cycle)) out.push_back(std::move(t));
  return out;
}

// Where the pass has no room for the SIMT pipes apart (fp8, fp16 on GH100): every warp instruction
// counts as an FFMA (the most any SIMT instruction but an HFMA2 does; a DFMA the same), the tensor
// pipes as above. Coarser for honest kernels: their integer and control work counts 64.
std::vector<MetricTerm> gh100_coarse(const std::string& target, double hmma_per_cycle) {
  std::vector<MetricTerm> out = {{kInstructions, kFmaPipeFlops}};
  for (auto& t : older_tensor_work(target, hmma_per_cycle)) {
    if (t.metric == kHfma2OnTensorPipe) t.weight = kHfma2Flops - kFmaPipeFlops;
    out.push_back(std::move(t));
  }
  return out;
}

const std::vector<MetricTerm> kTmaLoads = {{"l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum", 1}};
const std::vector<MetricTerm> kTmaStores = {{"l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st.sum", 1},
                                            {"l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_red.sum", 1}};
// Every sector the SMs read from L2 (32 bytes each), whatever the path.
const std::vector<MetricTerm> kGlobalLoads = {{"lts__t_sectors_srcunit_tex_op_read.sum", 32}};

WorkFormula formula(const std::string& chip, const std::string& math_class, std::vector<MetricTerm> target,
                    std::vector<MetricTerm> other) {
  return {chip, math_class, std::move(target), std::move(other), kTmaLoads, kTmaStores, kGlobalLoads};
}

// Hopper: the dense warpgroup MMAs of the problem's type are the target (a sparse wgmma cannot do a
// dense problem's work; its cycles count as other work). Each list fits one pass (CUPTI's host side
// decides: tests/unit/runner/test_work_counters.cpp).
std::optional<WorkFormula> gh100(const std::string& math_class) {
  if (math_class == "bf16") {
    const std::string t = "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum";
    return formula("GH100", math_class, {{t, 1}}, gh100_by_pipe(t, kHmmaPerCycle16));
  }
  if (math_class == "fp16") {
    const std::string t = "sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum";
    return formula("GH100", math_class, {{t, 1}}, gh100_coarse(t, kHmmaPerCycle16));
  }
  // fp8 has one path for every MMA kind; an older fp8 MMA on this chip converts and runs as an fp16
  // HMMA (its SASS), whose cycles the HMMA pipe counts.
  if (math_class == "fp8") {
    const std::string t = "sm__ops_path_tensor_src_fp8_sparsity_off.sum";
    return formula("GH100", math_class, {{t, 1}}, gh100_coarse(t, kHmmaPerCycle8));
  }
  return std::nullopt;
}

// Blackwell datacenter: the tcgen05 MMAs (UTC*MMA, their own tc pipe) are the target; every
// instruction of the older tensor pipe (HMMA/IMMA/DMMA) is other math. Its fp8 path alone needs two
// passes, so fp8 has no formula there (the flag stays unknown). Compiled and listed only: no B200 here.
std::optional<WorkFormula> gb100(const std::string& chip, const std::string& math_class) {
  std::string target;
  if (math_class == "bf16") target = "sm__ops_path_tensor_op_utchmma_src_bf16_dst_fp32.sum";
  else if (math_class == "fp16") target = "sm__ops_path_tensor_op_utchmma_src_fp16_dst_fp32.sum";
  else return std::nullopt;
  // Every warp instruction as an FFMA, every older tensor-pipe instruction as the most any of them
  // does (8192: mma.sync m16n8k32): coarse, and not measured (Blackwell's HFMA2.MMA, if any, would
  // read as an MMA there).
  return formula(chip, math_class, {{target, 1}},
                 {{kInstructions, kFmaPipeFlops}, {"sm__inst_executed_pipe_tensor.sum", 8192 - kFmaPipeFlops}});
}

}  // namespace

std::vector<std::string> WorkFormula::metrics() const {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto* terms : {&target_ops, &tma_load_bytes, &global_load_bytes, &other_math, &tma_store_bytes})
    for (const auto& t : *terms)
      if (seen.insert(t.metric).second) out.push_back(t.metric);
  return out;
}

std::optional<WorkFormula> work_formula(const std::string& chip, const std::string& math_class) {
  if (chip == "GH100") return gh100(math_class);
  if (chip == "GB100" || chip == "GB102" || chip == "GB110") return gb100(chip, math_class);
  return std::nullopt;
}

WorkFigures work_figures(const WorkFormula& f, const std::map<std::string, double>& values) {
  WorkFigures out;
  auto sum = [&](const std::vector<MetricTerm>& terms) {
    double s = 0;
    for (const auto& t : terms) {
      const auto it = values.find(t.metric);
      if (it == values.end() || !std::isfinite(it->second)) {
        if (std::find(out.unreadable.begin(), out.unreadable.end(), t.metric) == out.unreadable.end())
          out.unreadable.push_back(t.metric);
        continue;
      }
      s += it->second * t.weight;
    }
    return s;
  };
  out.target_ops = sum(f.target_ops);
  out.other_math_flops = sum(f.other_math);
  out.tma_load_bytes = sum(f.tma_load_bytes);
  out.tma_store_bytes = sum(f.tma_store_bytes);
  out.global_load_bytes = sum(f.global_load_bytes);
  return out;
}

}  // namespace ptxbench
