// What a candidate's shared object may import: an allowlist. The CUDA runtime API (minus the calls
// that create streams or contexts, change limits, or load code), the driver API's short allowlist
// (core/driver_api_allowlist.h, the same one entry-point lookups obey at run time), and a short list
// of C and C++ runtime functions kernels' host code needs: memory, strings, math, printf-family
// output to its own stdout/stderr, and the C++ runtime's containers, strings, streams to
// cout/cerr and exceptions. Anything else (files, sockets, the environment, processes, threads,
// dl_iterate_phdr, _r_debug, std::filesystem, file streams, _exit, ...) is forbidden.
#pragma once
#include <string>

namespace ptxbench {

// Empty when the undefined dynamic symbol may be imported, else why not. `weak`: a weak
// reference (e.g. __gmon_start__ from the C runtime's start files).
std::string import_reason(const std::string& symbol, bool weak);

// "cuCtxCreate_v4" -> "cuCtxCreate"; a symbol version ("@GLIBC_2.2.5") is dropped first.
std::string import_base_name(const std::string& symbol);

}  // namespace ptxbench
