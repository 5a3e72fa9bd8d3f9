// The workload and baseline names a problem.toml may use, known without a GPU, and the specs' bounds.
#include "problems/known_names.h"

#include "problems/known_workloads.h"

namespace ptxbench {

const WorkloadNames& known_workloads() { return generated::known_workloads(); }

}  // namespace ptxbench
