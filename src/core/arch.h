// The target architectures PTXBench knows, in one table: adding an arch is one row here (plus its
// knowledge pack and the problems' [targets.<arch>] tables).
#pragma once
#include <string>
#include <string_view>

namespace ptxbench {

struct ArchInfo {
  std::string_view arch;                // sm_90a
  std::string_view compute_capability;  // the GPU that runs it: "9.0"
  std::string_view pack;                // knowledge/<pack>/
  std::string_view title;               // for prompts
  std::string_view prompt_note;         // what a model must know about this target (empty: nothing)
};

// Throws InputError naming the known archs when `arch` is not one of them.
const ArchInfo& arch_info(const std::string& arch);

}  // namespace ptxbench
