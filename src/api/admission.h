// Back-pressure on POST /v1/submissions: whether a request of `incoming` new candidates is taken,
// from the queue's depth (queued + running) and the server's state. A refusal says when to come
// back (Retry-After) and why; a client that honours it never loses a candidate to a full queue.
//   429  the queue is at its depth limit (or this batch would pass it): retry after a while
//   503  the server is draining (stopping): retry, usually against the restarted server
//   413  one request holds more candidates than the whole queue may: never taken, send smaller ones
#pragma once
#include <string>

#include "service/queue/job_queue.h"

namespace ptxbench::api {

struct AdmissionOptions {
  long long max_queue_depth = 10000;  // queued + leased jobs, across every submitter of the queue
  int retry_after_seconds = 2;        // when the queue is full
  int draining_retry_after_seconds = 10;
};

struct Admission {
  int http_status = 202;  // 202 taken, 429 full, 503 draining, 413 larger than the queue
  int retry_after_seconds = 0;
  std::string reason;
  bool admitted() const { return http_status == 202; }
};

Admission admit(const QueueCounts& counts, long long incoming, bool draining, const AdmissionOptions& options);

}  // namespace ptxbench::api
