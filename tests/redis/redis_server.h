// A private redis-server for one test: its own directory and free port (or an address of the
// test's choosing), AOF on with fsync on every write, so a kill -9 of Redis loses nothing that
// was acknowledged. kill() / start() restart it mid-test on the same port and data. Stopped at
// scope exit. Skip a test (with the reason) when redis-server is not installed.
#pragma once
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace ptxbench::test {

std::string redis_server_binary();  // empty when not installed

class RedisServer {
 public:
  // `bind` is the address to listen on; `port` 0 picks a free one.
  explicit RedisServer(std::filesystem::path dir, std::string bind = "127.0.0.1", int port = 0);
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  void start();      // and waits until it answers PING (throws if it does not within 10 s)
  void kill_nine();  // SIGKILL, as a crash
  int port() const { return port_; }
  const std::string& host() const { return bind_; }
  std::string url(const std::string& stream = "ptxbench") const;
  pid_t pid() const { return pid_; }

 private:
  std::filesystem::path dir_;
  std::string bind_;
  int port_;
  pid_t pid_ = -1;
};

int free_tcp_port();
// fork + execv of argv[0] (a full path); the child's pid.
pid_t spawn_process(std::vector<std::string> argv);

}  // namespace ptxbench::test
