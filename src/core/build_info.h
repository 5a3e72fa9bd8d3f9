// What built this harness: its version and the git commit it was configured from. Stored with
// every run so a result can be traced to the code that produced it.
#pragma once
#include <string>

#include "core/json.h"

namespace ptxbench {

std::string harness_version();  // the project version, e.g. "0.1.0"
std::string harness_commit();   // the full commit id, "unknown" outside a git checkout
bool harness_dirty();           // uncommitted changes at configure time
json harness_info();            // {"version", "commit", "dirty"}

}  // namespace ptxbench
