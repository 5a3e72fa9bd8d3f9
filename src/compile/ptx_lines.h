// ptxas reports errors by line of the generated PTX, which the model never sees; with -lineinfo
// the PTX carries `.loc FILE LINE COL` before the instructions of each source line (and `.file`
// names the files), so a PTX line maps back to the candidate's line.
#pragma once
#include <optional>
#include <string>

namespace ptxbench {

struct SourceLine {
  std::string file;  // as the .file directive names it
  int line = 0;
};

// The source line PTX line `ptx_line` (1-based) came from: the last `.loc` at or before it.
std::optional<SourceLine> ptx_source_line(const std::string& ptx_text, int ptx_line);

}  // namespace ptxbench
