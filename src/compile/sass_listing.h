// The candidate's SASS per kernel and instruction offset (cuobjdump -sass), so instruction
// counts taken at run time by program-counter offset can be read as opcodes, and the tensor
// instructions' shapes turned into the FLOPs they did.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ptxbench {

struct SassInstruction {
  std::string opcode;  // "HGMMA" (modifiers dropped)
  std::string text;    // the whole instruction: "HGMMA.64x256x16.F32.BF16 R24, gdesc[UR4], R24, gsb0"
};

// Kernel (mangled name) -> byte offset -> instruction.
using SassListing = std::map<std::string, std::map<uint32_t, SassInstruction>>;

SassListing parse_sass_functions(const std::string& cuobjdump_sass_output);

// FLOPs one executed instance of a tensor-core instruction does, for a warp-level execution count
// (a warpgroup wgmma is executed by each of its 4 warps): HGMMA.MxNxK -> 2*M*N*K/4; HMMA.16816 ->
// 2*16*8*16. 0 for anything else.
double tensor_flops_per_warp_execution(const SassInstruction& i);
// True for the target tensor family (warpgroup MMA: HGMMA and its integer/fp8 forms).
bool is_warpgroup_mma(const SassInstruction& i);

}  // namespace ptxbench
