// seccomp-bpf filters (libseccomp, linked statically), in two uses:
//  - profiles the ptxbench-sandbox-exec helper installs before it runs nvcc or the worker (calls no
//    compiler or GPU program needs: mount, namespaces, kernel modules, bpf, io_uring, ...; sockets
//    for the compiler, all but AF_UNIX for the worker) -> EPERM;
//  - the worker's candidate filters, installed on every thread (TSYNC): before the candidate is
//    loaded (no exec, no fork or clone without CLONE_THREAD, no sockets, no ptrace, no signals to
//    other processes) and after it is loaded (no executable mappings, no file opens at all, or
//    with file_opens switched off none that create a file). A
//    candidate's forbidden call traps (SIGSYS): the worker reports which call and ends as
//    `forbidden`; the CUDA driver's own threads and calls (ioctl, mmap of device memory, futex,
//    threads) stay allowed.
#pragma once
#include <string>

namespace ptxbench::sandbox {

// True when this build has libseccomp and the kernel accepts filters.
bool seccomp_available();

// "compiler", "worker", "tool" or "none". Returns "" on success, else why it failed.
std::string install_profile(const std::string& name);

struct CandidateFilterOptions {
  bool under_tool = false;         // compute-sanitizer or ncu injects itself: sockets stay allowed
  bool deny_exec_mappings = true;  // PROT_EXEC in mmap/mprotect after the candidate is loaded
  bool deny_file_opens = true;     // every open/openat after the load (false: only those that create files)
};

// Before dlopen of the candidate (its static constructors run under it). "" or why it failed.
std::string install_before_candidate_load(const CandidateFilterOptions& options);
// Right after dlopen. "" or why it failed.
std::string install_after_candidate_load(const CandidateFilterOptions& options);

// The name of a call the candidate filters trap (async-signal-safe); "a system call" if unknown.
const char* trapped_syscall_name(long nr);

}  // namespace ptxbench::sandbox
