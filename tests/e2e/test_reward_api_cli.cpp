// The reward API of the real `ptxbench serve --http` on loopback (CPU path: the static stages run,
// the GPU stages say why they were skipped): a batch submitted over HTTP, a retry answered as a
// duplicate, a key reused for another candidate refused with 409, long-polls, results with the
// reward view (compile_error, forbidden, not_run), and serve killed -9 with a job queued and
// started again: the job is judged once, and every result stays retrievable.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "support/cli.h"

using namespace ptxbench;
using namespace ptxbench::test;

namespace {

bool gpu_present() { return run_process({(bin_dir() / "ptxbench-worker").string(), "--info"}).ok(); }

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// `ptxbench serve --http 127.0.0.1:0` in `ws`, from the source tree, its output in ws/serve.log.
struct Serve {
  pid_t pid = -1;
  int port = 0;

  explicit Serve(const std::filesystem::path& ws) {
    std::filesystem::remove(ws / "service" / "http.json");
    pid = fork();
    if (pid == 0) {
      const int log = ::open((ws / "serve.log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      dup2(log, 1), dup2(log, 2);
      if (chdir(source_dir().c_str()) != 0) _exit(126);
      const std::string exe = (bin_dir() / "ptxbench").string(), w = ws.string();
      execl(exe.c_str(), exe.c_str(), "--workspace", w.c_str(), "serve", "--http", "127.0.0.1:0", "--lanes", "1",
            "--cpu-jobs", "2", "--lease-seconds", "5", static_cast<char*>(nullptr));
      _exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (std::chrono::steady_clock::now() < deadline) {
      const json endpoint = json::parse(read_file(ws / "service" / "http.json"), nullptr, false);
      if (endpoint.is_object() && endpoint.value("pid", 0) == pid) {
        const std::string url = endpoint.value("url", "");
        port = std::stoi(url.substr(url.rfind(':') + 1));
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "serve wrote no endpoint file:\n" << read_file(ws / "serve.log");
  }
  int stop(int sig) {
    int status = 0;
    kill(pid, sig);
    waitpid(pid, &status, 0);
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  ~Serve() {
    if (pid > 0) stop(SIGKILL);
  }
};

json candidate(const std::string& key, const std::string& source) {
  return {{"key", key}, {"problem", "gemm"}, {"source", source}};
}

// Long-polls until `key` is judged; its result.
json result_of(httplib::Client& c, const std::string& key) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(600);
  while (std::chrono::steady_clock::now() < deadline) {
    auto s = c.Get(("/v1/submissions/" + key + "?wait=20").c_str());
    if (!s || s->status != 200) return {{"error", s ? s->body : httplib::to_string(s.error())}};
    if (json::parse(s->body).value("finished", false)) break;
  }
  auto r = c.Get(("/v1/results/" + key).c_str());
  return r && r->status == 200 ? json::parse(r->body) : json{{"error", r ? r->body : "no answer"}};
}

}  // namespace

TEST(RewardApiCli, ServeJudgesSubmissionsOverHttpAndKeepsThemThroughKillNine) {
  if (gpu_present()) GTEST_SKIP() << "a GPU is present: this test pins the CPU path's verdicts";
  const auto ws = fresh_workspace("reward-api");
  const std::string naive = read_file(source_dir() / "problems/gemm/reference/naive.cu");
  const std::string cublas = read_file(source_dir() / "tests/gpu/candidates/calls_cublas.cu");
  const json batch = {
      {"candidates",
       {candidate("naive", naive), candidate("cublas", cublas), candidate("broken", "this is not CUDA C++\n")}}};
  {
    Serve serve(ws);
    ASSERT_GT(serve.port, 0);
    httplib::Client c("127.0.0.1", serve.port);
    c.set_read_timeout(60, 0);
    auto health = c.Get("/v1/health");
    ASSERT_TRUE(health);
    EXPECT_EQ(health->status, 200) << health->body;
    EXPECT_EQ(json::parse(health->body)["arch"], "sm_90a");
    auto posted = c.Post("/v1/submissions", batch.dump(), "application/json");
    ASSERT_TRUE(posted);
    ASSERT_EQ(posted->status, 202) << posted->body;
    auto again = c.Post("/v1/submissions", batch.dump(), "application/json");
    ASSERT_TRUE(again);
    EXPECT_EQ(again->status, 202);
    for (const auto& s : json::parse(again->body)["submissions"]) EXPECT_TRUE(s["duplicate"].get<bool>()) << s;
    auto conflict = c.Post("/v1/submissions", candidate("naive", naive + "// changed\n").dump(), "application/json");
    ASSERT_TRUE(conflict);
    EXPECT_EQ(conflict->status, 409) << conflict->body;
    auto invalid = c.Post("/v1/submissions", json{{"key", "x"}, {"problem", "gemm"}}.dump(), "application/json");
    ASSERT_TRUE(invalid);
    EXPECT_EQ(invalid->status, 400);
    EXPECT_EQ(json::parse(invalid->body)["error"]["errors"][0]["where"], "source") << invalid->body;

    const json broken = result_of(c, "broken");
    ASSERT_TRUE(broken.contains("reward")) << broken.dump();
    EXPECT_EQ(broken["reward"]["verdict"], "compile_error");
    EXPECT_FALSE(broken["reward"]["compiled"].get<bool>());
    EXPECT_EQ(broken["reward"]["error_class"], "compile_error");
    EXPECT_FALSE(broken["reward"]["feedback"].get<std::string>().empty());
    const json forbidden = result_of(c, "cublas");
    ASSERT_TRUE(forbidden.contains("reward")) << forbidden.dump();
    EXPECT_EQ(forbidden["reward"]["verdict"], "forbidden");
    EXPECT_TRUE(forbidden["reward"]["forbidden"].get<bool>());
    EXPECT_EQ(forbidden["record"]["verdict"], "forbidden");
    const json not_run = result_of(c, "naive");
    ASSERT_TRUE(not_run.contains("reward")) << not_run.dump();
    EXPECT_EQ(not_run["reward"]["verdict"], "not_run");
    EXPECT_TRUE(not_run["reward"]["compiled"].get<bool>());
    EXPECT_FALSE(not_run["reward"]["counts"].get<bool>()) << "no GPU stage ran: no verdict to reward";

    // Acknowledged, then serve is killed before it could judge it.
    auto late = c.Post("/v1/submissions", candidate("late", naive + "// late\n").dump(), "application/json");
    ASSERT_TRUE(late);
    ASSERT_EQ(late->status, 202);
    EXPECT_EQ(serve.stop(SIGKILL), 128 + SIGKILL);
  }
  Serve again(ws);
  ASSERT_GT(again.port, 0);
  httplib::Client c("127.0.0.1", again.port);
  c.set_read_timeout(60, 0);
  const json late = result_of(c, "late");
  ASSERT_TRUE(late.contains("reward")) << late.dump() << read_file(ws / "serve.log");
  EXPECT_EQ(late["reward"]["verdict"], "not_run");
  for (const char* key : {"naive", "cublas", "broken"}) {
    auto r = c.Get((std::string("/v1/results/") + key).c_str());
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << key << ": " << r->body;
  }
  auto health = c.Get("/v1/health");
  ASSERT_TRUE(health);
  const json queue = json::parse(health->body)["queue"];
  EXPECT_EQ(queue["done"], 4) << "each key judged once: " << queue.dump();
  EXPECT_EQ(again.stop(SIGTERM), 0) << read_file(ws / "serve.log");
  std::filesystem::remove_all(ws);
}
