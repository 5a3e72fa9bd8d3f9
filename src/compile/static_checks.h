// Static inspection of a built candidate: which target PTX instructions the PTX holds, which SASS
// opcodes the cubin holds (cuobjdump), and what the shared object imports (libelf), plus the
// source-level and host-code checks that make a candidate `forbidden`.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ptxbench {

using OpcodeCounts = std::map<std::string, long long>;

// Counts occurrences of each PTX instruction prefix (e.g. "wgmma.mma_async") as instructions in
// PTX text (comments and string literals ignored).
std::map<std::string, long long> scan_ptx(const std::string& ptx_text, const std::vector<std::string>& prefixes);

// cuobjdump: $PTXBENCH_CUOBJDUMP, PATH, /usr/local/cuda/bin, then PyPI's nvidia-cuda-cuobjdump
// (python3 site-packages nvidia/cu13/bin). Empty path when none is found.
std::filesystem::path find_cuobjdump();

// SASS opcode -> static count over every kernel in the object (modifiers dropped: HGMMA.64x128x16.F32.BF16 -> HGMMA).
// Throws Error when cuobjdump fails.
OpcodeCounts sass_opcode_counts(const std::filesystem::path& object, const std::filesystem::path& cuobjdump);
// The `cuobjdump -sass` listing itself ("" for an object without device code). Throws Error.
std::string sass_text(const std::filesystem::path& object, const std::filesystem::path& cuobjdump);
OpcodeCounts parse_sass_listing(const std::string& cuobjdump_sass_output);

// Glob match for opcode families: '*' matches any run, e.g. "*GMMA" matches HGMMA, "UTC*" UTCHMMA.
bool opcode_glob_match(const std::string& glob, const std::string& opcode);
// The opcodes in counts that match any glob of any group (count > 0 only).
OpcodeCounts select_families(const OpcodeCounts& counts, const std::vector<std::vector<std::string>>& groups);
// True when every group has at least one matching opcode with a count > 0.
bool groups_satisfied(const OpcodeCounts& counts, const std::vector<std::vector<std::string>>& groups);

struct ImportReport {
  std::vector<std::string> needed;     // DT_NEEDED entries
  std::vector<std::string> undefined;  // undefined dynamic symbols
  bool entry_exported = false;         // the problem's entry symbol is a defined function
  std::vector<std::string> forbidden;  // one human-readable reason per finding
};

// Reads the shared object's dynamic section and symbols (libelf) and applies the forbidden rules:
// library kernels (cuBLAS, cuDNN, ...), dlopen/dlsym, stream/thread/process creation, raw I/O and
// syscall wrappers, L2-persistence and stream-attribute changes, loading unseen code (modules,
// NVRTC), and a missing entry symbol (bad ABI). Throws Error when the file is not a readable ELF.
ImportReport check_imports(const std::filesystem::path& shared_object, const std::string& entry_symbol);

// Forbidden findings in the source text (library headers such as cublas, cudnn, cutlass, cute),
// each with its line number.
std::vector<std::string> scan_source(const std::string& source_text);

// Host code that issues system calls directly (syscall / sysenter / int 0x80), via objdump -d.
// Returns reasons; empty when clean or when objdump is missing (then `note` says so).
std::vector<std::string> scan_host_syscalls(const std::filesystem::path& shared_object, std::string* note);

}  // namespace ptxbench
