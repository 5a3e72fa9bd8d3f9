#include "problems/known_names.h"

#include "problems/known_workloads.h"

namespace ptxbench {

const WorkloadNames& known_workloads() { return generated::known_workloads(); }

}  // namespace ptxbench
