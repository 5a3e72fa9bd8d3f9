// A fault of the harness or the machine, never of the candidate: the service re-queues the job
// (up to its attempts bound, then infra_error with this reason) and never counts it against a model.
#pragma once
#include "core/error.h"

namespace ptxbench {

class InfraFault : public Error {
 public:
  using Error::Error;
};

}  // namespace ptxbench
