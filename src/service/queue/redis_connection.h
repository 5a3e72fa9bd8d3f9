// One connection to Redis through hiredis, owned RAII (the context and every reply), that survives
// a dropped connection: a command that fails on the socket, or that Redis refuses while it loads
// its AOF after a restart, is run again on a fresh connection with exponential backoff until the
// retry budget is spent; then the result says, typed, that Redis is unreachable. Scripts run by
// EVALSHA and are loaded again when Redis answers NOSCRIPT (its script cache is empty after a
// restart). Not thread-safe: one caller at a time (RedisJobQueue serializes).
//
// Retrying is safe for the queue because every write it makes is an idempotent script (a
// redelivered enqueue, completion or failure changes nothing the second time).
#pragma once
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "service/queue/redis_url.h"

struct redisContext;
struct redisReply;

namespace ptxbench {

struct RedisReplyDeleter {
  void operator()(redisReply* r) const;
};
using RedisReplyPtr = std::unique_ptr<redisReply, RedisReplyDeleter>;

struct RedisConnectOptions {
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds command_timeout{15000};
  std::chrono::milliseconds retry_budget{30000};  // reconnect attempts before "unreachable"
  std::chrono::milliseconds backoff_initial{50};
  std::chrono::milliseconds backoff_max{2000};
};

enum class RedisErrorKind { none, unreachable, reply_error };

struct RedisResult {
  RedisErrorKind kind = RedisErrorKind::none;
  std::string error;  // with the endpoint and, when unreachable, how long it was tried
  RedisReplyPtr reply;
  bool ok() const { return kind == RedisErrorKind::none; }
};

// A Lua script with its SHA1 once Redis has loaded it.
struct RedisScript {
  std::string name;
  std::string source;
};

class RedisConnection {
 public:
  RedisConnection(RedisEndpoint endpoint, RedisConnectOptions options);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  RedisResult command(const std::vector<std::string>& args);
  RedisResult eval(const RedisScript& script, const std::vector<std::string>& keys,
                   const std::vector<std::string>& args);
  long long reconnects() const { return reconnects_; }
  const RedisEndpoint& endpoint() const { return endpoint_; }

 private:
  bool connect(std::string* error);
  void drop();
  // One attempt: nullptr with *error set (and *transient when another attempt may succeed).
  RedisReplyPtr attempt(const std::vector<std::string>& args, std::string* error, bool* transient);

  RedisEndpoint endpoint_;
  RedisConnectOptions options_;
  redisContext* ctx_ = nullptr;
  std::map<std::string, std::string> script_sha_;  // script name -> SHA1 loaded on this server
  long long reconnects_ = 0;
};

}  // namespace ptxbench
