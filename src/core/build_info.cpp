// The harness's version and the git commit it was configured from, stored with every run.
#include "core/build_info.h"

#include "core/build_info_values.h"

namespace ptxbench {

std::string harness_version() { return PTXBENCH_VERSION_STRING; }
std::string harness_commit() { return PTXBENCH_GIT_COMMIT_STRING; }
bool harness_dirty() { return PTXBENCH_GIT_DIRTY_VALUE; }
json harness_info() {
  return {{"version", harness_version()}, {"commit", harness_commit()}, {"dirty", harness_dirty()}};
}

}  // namespace ptxbench
