// The Redis queue's state transitions as Lua scripts, each atomic on the server.
#include "service/queue/redis_scripts.h"

namespace ptxbench::redis_scripts {
namespace {

// Shared by every script: the keys, Redis's clock, and the two ways an attempt ends.
constexpr const char* kPrelude = R"lua(
local jobs, results, done, counts, leases = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local prefix, group = ARGV[1], 'workers'
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function move(from, to)
  if from then redis.call('HINCRBY', counts, from, -1) end
  redis.call('HINCRBY', counts, to, 1)
end
local function finished(id, state)
  redis.call('XADD', done, 'MAXLEN', '~', '100000', '*', 'job', id, 'state', state)
end
-- The job leaves the group and the stream: its entry is acknowledged and deleted.
local function retire(k, id)
  local e = redis.call('HGET', k, 'entry')
  if e then
    redis.call('XACK', jobs, group, e)
    redis.call('XDEL', jobs, e)
  end
  redis.call('ZREM', leases, id)
end
-- An attempt ends without a result: queued again (its entry idle since 1970, so the next
-- XAUTOCLAIM takes it) while attempts remain, else infra_error. 1 requeued, 0 infra_error.
local function end_attempt(k, id, reason, max_attempts)
  local st = redis.call('HMGET', k, 'state', 'attempts', 'failures', 'entry')
  local attempts = tonumber(st[2]) or 0
  local failures = cjson.decode(st[3] or '[]')
  failures[#failures + 1] = reason
  local f = cjson.encode(failures)
  redis.call('ZREM', leases, id)
  if attempts < max_attempts then
    redis.call('HSET', k, 'state', 'queued', 'owner', '', 'failures', f, 'reason', reason)
    -- The delivery count back to the attempts made (a claim that only found an expired lease
    -- delivered nothing), so the next XAUTOCLAIM makes it the next attempt's number.
    redis.call('XCLAIM', jobs, group, 'requeued', 0, st[4], 'TIME', 0, 'RETRYCOUNT', attempts, 'JUSTID')
    move(st[1], 'queued')
    return 1
  end
  redis.call('HSET', k, 'state', 'infra_error', 'owner', '', 'failures', f,
             'reason', 'infra_error after ' .. attempts .. ' attempt(s); last: ' .. reason)
  retire(k, id)
  move(st[1], 'infra_error')
  finished(id, 'infra_error')
  return 0
end
-- Every lease past its expiry ends its attempt.
local function reclaim_expired(max_attempts, now)
  local n = 0
  repeat
    local expired = redis.call('ZRANGEBYSCORE', leases, '-inf', '(' .. now, 'LIMIT', 0, 100)
    for _, id in ipairs(expired) do
      local k = prefix .. id
      local st = redis.call('HMGET', k, 'state', 'owner')
      if st[1] == 'leased' then
        end_attempt(k, id, 'the lease of ' .. st[2] .. ' expired (its owner died or stalled)', max_attempts)
        n = n + 1
      else
        redis.call('ZREM', leases, id)
      end
    end
  until #expired < 100
  return n
end
)lua";

RedisScript make(const char* name, const char* body) { return {name, std::string(kPrelude) + body}; }

}  // namespace

const RedisScript enqueue = make("enqueue", R"lua(
local id, payload = ARGV[2], ARGV[3]
local k = prefix .. id
if redis.call('EXISTS', k) == 1 then return 0 end
local e = redis.call('XADD', jobs, '*', 'job', id)
redis.call('HSET', k, 'payload', payload, 'state', 'queued', 'attempts', 0, 'failures', '[]', 'reason', '',
           'entry', e, 'enqueued_ms', now_ms())
move(nil, 'queued')
return 1
)lua");

const RedisScript lease = make("lease", R"lua(
local owner, ttl, max_attempts = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local now = now_ms()
reclaim_expired(max_attempts, now)
-- The entry was just delivered to `owner` (XAUTOCLAIM or XREADGROUP): lease its job, or say why not.
local function take(entry, fields)
  local id = fields[2]
  local k = prefix .. id
  local st = redis.call('HMGET', k, 'state', 'payload', 'expires', 'owner', 'lease_ms')
  if not st[1] or st[1] == 'done' or st[1] == 'infra_error' then
    redis.call('XACK', jobs, group, entry)
    redis.call('XDEL', jobs, entry)
    return nil
  end
  local deliveries = tonumber(redis.call('XPENDING', jobs, group, entry, entry, 1)[1][4])
  if st[1] == 'leased' then
    if tonumber(st[3]) >= now then
      -- A live lease taken with a longer ttl than ours: given back as it was.
      redis.call('XCLAIM', jobs, group, st[4], 0, entry, 'IDLE', now - (tonumber(st[3]) - tonumber(st[5])),
                 'RETRYCOUNT', deliveries - 1, 'JUSTID')
      return nil
    end
    end_attempt(k, id, 'the lease of ' .. st[4] .. ' expired (its owner died or stalled)', max_attempts)
    return nil
  end
  if deliveries > max_attempts then
    redis.call('HSET', k, 'attempts', deliveries - 1)
    end_attempt(k, id, 'delivered ' .. deliveries .. ' times', 0)
    return nil
  end
  local expires = now + ttl
  redis.call('HSET', k, 'state', 'leased', 'owner', owner, 'attempts', deliveries, 'expires', expires,
             'lease_ms', ttl, 'entry', entry)
  redis.call('ZADD', leases, expires, id)
  move(st[1], 'leased')
  return {id, st[2], deliveries, expires}
end
-- Requeued jobs and dead workers' jobs first: entries idle for longer than a lease.
local cursor = '0-0'
for i = 1, 1000 do
  local r = redis.call('XAUTOCLAIM', jobs, group, owner, ttl, cursor, 'COUNT', 1)
  cursor = r[1]
  for _, e in ipairs(r[2]) do
    local got = take(e[1], e[2])
    if got then return got end
  end
  if cursor == '0-0' then break end
end
for i = 1, 100 do
  local r = redis.call('XREADGROUP', 'GROUP', group, owner, 'COUNT', 1, 'STREAMS', jobs, '>')
  if not r then return false end
  for _, e in ipairs(r[1][2]) do
    local got = take(e[1], e[2])
    if got then return got end
  end
end
return false
)lua");

const RedisScript heartbeat = make("heartbeat", R"lua(
local id, owner, ttl = ARGV[2], ARGV[3], tonumber(ARGV[4])
local k = prefix .. id
local st = redis.call('HMGET', k, 'state', 'owner', 'entry')
if st[1] ~= 'leased' or st[2] ~= owner then return 0 end
local expires = now_ms() + ttl
redis.call('HSET', k, 'expires', expires, 'lease_ms', ttl)
redis.call('ZADD', leases, expires, id)
-- Idle time back to 0 (and the delivery count kept): XAUTOCLAIM leaves a live lease alone.
redis.call('XCLAIM', jobs, group, owner, 0, st[3], 'JUSTID')
return 1
)lua");

const RedisScript complete = make("complete", R"lua(
local id, owner, result = ARGV[2], ARGV[3], ARGV[4]
local k = prefix .. id
local state = redis.call('HGET', k, 'state')
if not state then return redis.error_reply('UNKNOWNJOB completing an unknown job ' .. id) end
if state == 'done' or state == 'infra_error' then return 0 end
-- A result is good whoever computed it while the job had not ended (a stale owner's included).
local stored = redis.call('HSETNX', results, id, result)
redis.call('HSET', k, 'state', 'done', 'owner', '', 'done_by', owner, 'completed_ms', now_ms())
retire(k, id)
move(state, 'done')
finished(id, 'done')
return stored
)lua");

const RedisScript fail = make("fail", R"lua(
local id, owner, reason, max_attempts = ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local k = prefix .. id
local st = redis.call('HMGET', k, 'state', 'owner')
if st[1] ~= 'leased' or st[2] ~= owner then return -1 end
return end_attempt(k, id, reason, max_attempts)
)lua");

const RedisScript reclaim = make("reclaim", R"lua(
return reclaim_expired(tonumber(ARGV[2]), now_ms())
)lua");

const RedisScript counts = make("counts", R"lua(
local c = redis.call('HMGET', counts, 'queued', 'leased', 'done', 'infra_error')
local expired = redis.call('ZCOUNT', leases, '-inf', '(' .. now_ms())
return {tonumber(c[1]) or 0, tonumber(c[2]) or 0, tonumber(c[3]) or 0, tonumber(c[4]) or 0, expired}
)lua");

const RedisScript outcome = make("outcome", R"lua(
local id = ARGV[2]
local st = redis.call('HMGET', prefix .. id, 'state', 'reason', 'attempts', 'failures')
if not st[1] then return false end
local r = redis.call('HGET', results, id)
return {st[1], st[2] or '', tonumber(st[3]) or 0, st[4] or '[]', r and 1 or 0, r or ''}
)lua");

}  // namespace ptxbench::redis_scripts
