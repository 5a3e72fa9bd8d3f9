// The --queue argument: which JobQueue backend a process uses. Empty (the default) is the
// workspace's SQLite lease table, for one host; redis://HOST:PORT/[DB][?stream=NAME] is a Redis
// Streams queue shared by hosts (redis_job_queue.h). parse_redis_url() throws InputError saying
// what is wrong with a malformed URL.
#pragma once
#include <optional>
#include <string>

namespace ptxbench {

struct RedisEndpoint {
  std::string host;
  int port = 6379;
  int db = 0;
  std::string stream = "ptxbench";  // the key prefix of this queue's stream, group, results
  std::string url() const;          // canonical form, for messages and status
};

bool is_redis_url(const std::string& spec);
RedisEndpoint parse_redis_url(const std::string& url);

}  // namespace ptxbench
