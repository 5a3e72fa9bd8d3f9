// Loads the candidate's shared object into the worker and finds its entry point.
#include "runner/candidate_library.h"

#include <dlfcn.h>

#include "core/error.h"

namespace ptxbench {

CandidateLibrary::CandidateLibrary(const std::filesystem::path& so, const std::string& entry) {
  handle_ = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) fail("cannot load candidate " + so.string() + ": " + dlerror());
  entry_ = dlsym(handle_, entry.c_str());
  if (!entry_) fail("candidate " + so.string() + " does not export " + entry);
}

// Never unloaded: a candidate's kernels and CUDA registrations must outlive any late callback.
CandidateLibrary::~CandidateLibrary() = default;

}  // namespace ptxbench
