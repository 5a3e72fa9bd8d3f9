#include "redis_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace ptxbench::test {

std::string redis_server_binary() {
  for (const char* p : {"/usr/bin/redis-server", "/usr/local/bin/redis-server"})
    if (access(p, X_OK) == 0) return p;
  return "";
}

pid_t spawn_process(std::vector<std::string> argv) {
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

int free_tcp_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    throw std::runtime_error("no free TCP port on loopback");
  close(fd);
  return ntohs(a.sin_port);
}

namespace {

bool answers(const std::string& host, int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, host.c_str(), &a.sin_addr);
  bool ok = false;
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    const char ping[] = "PING\r\n";
    char buf[16] = {};
    ok = write(fd, ping, sizeof ping - 1) == sizeof ping - 1 && read(fd, buf, sizeof buf - 1) > 0 &&
         std::string(buf).rfind("+PONG", 0) == 0;
  }
  close(fd);
  return ok;
}

}  // namespace

RedisServer::RedisServer(std::filesystem::path dir, std::string bind, int port)
    : dir_(std::move(dir)), bind_(std::move(bind)), port_(port ? port : free_tcp_port()) {
  std::filesystem::create_directories(dir_);
  start();
}

RedisServer::~RedisServer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

std::string RedisServer::url(const std::string& stream) const {
  return "redis://" + bind_ + ":" + std::to_string(port_) + "/0?stream=" + stream;
}

void RedisServer::start() {
  const std::string exe = redis_server_binary();
  if (exe.empty()) throw std::runtime_error("redis-server is not installed");
  std::vector<std::string> argv;
  for (const std::string& a :
       {exe, std::string("--bind"), bind_, std::string("--port"), std::to_string(port_), std::string("--dir"),
        dir_.string(), std::string("--appendonly"), std::string("yes"), std::string("--appendfsync"),
        std::string("always"), std::string("--save"), std::string(""), std::string("--protected-mode"),
        std::string("no"), std::string("--daemonize"), std::string("no"), std::string("--logfile"),
        (dir_ / "redis.log").string()})
    argv.push_back(a);
  pid_ = spawn_process(std::move(argv));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("redis-server exited at start (see " + (dir_ / "redis.log").string() + ")");
    }
    if (answers(bind_, port_)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  throw std::runtime_error("redis-server did not answer on " + bind_ + ":" + std::to_string(port_) + " within 10 s");
}

void RedisServer::kill_nine() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

}  // namespace ptxbench::test
