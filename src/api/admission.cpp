// Back-pressure on POST /v1/submissions: whether a request is taken, else when to come back and why.
#include "api/admission.h"

namespace ptxbench::api {

Admission admit(const QueueCounts& counts, long long incoming, bool draining, const AdmissionOptions& o) {
  if (draining) return {503, o.draining_retry_after_seconds, "the server is draining (stopping): nothing new is taken"};
  const long long depth = counts.queued + counts.leased;
  if (depth + incoming > o.max_queue_depth) {
    // A batch larger than the limit itself could never be taken: refused for good, not "retry".
    if (incoming > o.max_queue_depth)
      return {413, 0,
              std::to_string(incoming) + " candidates in one request, more than the queue's depth limit of " +
                  std::to_string(o.max_queue_depth) + ": send smaller batches"};
    return {429, o.retry_after_seconds,
            "the queue holds " + std::to_string(depth) + " unfinished jobs; " + std::to_string(incoming) +
                " more would pass its depth limit of " + std::to_string(o.max_queue_depth)};
  }
  return {};
}

}  // namespace ptxbench::api
