// What a counted call reports (checked calls of target_run and the secretly counted timed sample):
// the candidate's executed instructions by kernel and program-counter offset, and for each of its
// kernels the tensor maps it was launched with (the bytes its TMA instructions move, tensor_maps.h).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/json.h"
#include "runner/integrity/sass_counter.h"

namespace ptxbench {

// The counts of the candidate's own kernels: patching at the enable counts every loaded function,
// the harness's and the libraries' too. Without a GPU activity monitor nothing is dropped.
std::vector<ExecutedInstruction> candidate_counts(std::vector<ExecutedInstruction> counts);

// The kernels that executed at least one instruction.
std::vector<std::string> executed_kernels(const std::vector<ExecutedInstruction>& counts);

// The target_counts event's body: per kernel, [pc offset, count] pairs; and "tensor_maps": per kernel
// that was given known maps, {"min_box_bytes", "maps"}. A kernel of a cubin named by
// name_counted_cubins is listed per cubin, with "image": the name, so the judge reads its offsets in
// that cubin's listing (a Triton kernel's specializations share the kernel's name).
json target_counts_json(const std::vector<ExecutedInstruction>& counts);

// The cubins the counts may name, by CUPTI's CRC (cubin_crc): CRC -> a name the judge
// knows them by (a Triton build's cubin file names). Called once, before any counted call.
void name_counted_cubins(std::map<uint32_t, std::string> names);

}  // namespace ptxbench
