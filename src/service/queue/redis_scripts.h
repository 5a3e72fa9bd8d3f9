// The Redis queue's state transitions, each one Lua script so that it is atomic on the server
// (and so safe to run again after a dropped connection). Every script takes the same five keys,
// all under one hash tag "{stream}" (one cluster slot):
//   KEYS[1] {s}:jobs     the job stream; consumer group "workers"; one entry per pending job
//   KEYS[2] {s}:results  hash job id -> result JSON, written with HSETNX: one record per job
//   KEYS[3] {s}:done     stream of finished jobs (job, state) read by submitters
//   KEYS[4] {s}:counts   hash state -> number of jobs in it
//   KEYS[5] {s}:leases   sorted set job id -> lease expiry (Redis's clock, ms)
// and ARGV[1] the prefix of the per-job hashes ({s}:job:ID: payload, state, owner, attempts,
// expires, lease_ms, entry, failures, reason). Times come from Redis (TIME), so hosts whose
// clocks disagree still agree on when a lease expires.
#pragma once
#include "service/queue/redis_connection.h"

namespace ptxbench::redis_scripts {

extern const RedisScript enqueue;  // ARGV: prefix, id, payload -> 1 inserted, 0 exists
extern const RedisScript lease;  // ARGV: prefix, owner, ttl_ms, max_attempts -> {id, payload, attempts, expires} | nil
extern const RedisScript heartbeat;  // ARGV: prefix, id, owner, ttl_ms -> 1 held, 0 not
extern const RedisScript complete;   // ARGV: prefix, id, owner, result -> 1 stored, 0 ended already
extern const RedisScript
    fail;  // ARGV: prefix, id, owner, reason, max_attempts -> 1 requeued, 0 infra_error, -1 ignored
extern const RedisScript reclaim;  // ARGV: prefix, max_attempts -> leases reclaimed
extern const RedisScript counts;   // ARGV: prefix -> {queued, leased, done, infra_error, expired}
extern const RedisScript outcome;  // ARGV: prefix, id -> {state, reason, attempts, failures, has_result, result} | nil

}  // namespace ptxbench::redis_scripts
