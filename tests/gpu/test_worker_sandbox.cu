// Issue 12 on the GPU: the worker's seccomp filters (src/sandbox/seccomp_filters) leave the CUDA
// driver working and stop what candidate code may not do. Each case runs in a death-test child
// (re-executed, so it makes its own CUDA context): the context is made and a kernel runs, the
// before-load and after-load filters go on exactly as the worker installs them around a candidate,
// then device memory is allocated, a kernel launched and copied back (must still work), and a
// forbidden call is made (must be stopped by SIGSYS: no reporter is installed here, so the
// default action kills the child). A reference candidate through the real worker stays correct
// with the filters recorded as installed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "sandbox/seccomp_filters.h"
#include "support/cli.h"
#include "support/gpu.h"

using namespace ptxbench;
using namespace ptxbench::test;

namespace {

__global__ void ptxbench_sandbox_fill(int* p, int v) { p[threadIdx.x] = v + threadIdx.x; }

// CUDA work of the kind a workload and a candidate do: exit code 10+ where it fails.
void gpu_round_trip(int value) {
  int* d = nullptr;
  if (cudaMalloc(&d, 64 * sizeof(int)) != cudaSuccess) std::_Exit(10);
  if (cudaMemset(d, 0, 64 * sizeof(int)) != cudaSuccess) std::_Exit(11);
  cudaStream_t s;
  if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) std::_Exit(12);
  ptxbench_sandbox_fill<<<1, 64, 0, s>>>(d, value);
  if (cudaGetLastError() != cudaSuccess) std::_Exit(13);
  int h[64] = {};
  if (cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s) != cudaSuccess) std::_Exit(14);
  if (cudaStreamSynchronize(s) != cudaSuccess) std::_Exit(15);
  for (int i = 0; i < 64; ++i)
    if (h[i] != value + i) std::_Exit(16);
  cudaStreamDestroy(s);
  cudaFree(d);
}

// In the death-test child: a context and a kernel, then the worker's filters, then GPU work
// again, then `forbidden` (exit 0 when it returns).
void confined(const std::function<void()>& forbidden) {
  gpu_round_trip(1);
  sandbox::CandidateFilterOptions o;
  if (const char* off = std::getenv("PTXBENCH_SANDBOX_DISABLE");
      off && std::string(off).find("exec_mappings") != std::string::npos)
    o.deny_exec_mappings = false;
  if (const char* off = std::getenv("PTXBENCH_SANDBOX_DISABLE");
      off && std::string(off).find("file_opens") != std::string::npos)
    o.deny_file_opens = false;
  if (!sandbox::install_before_candidate_load(o).empty()) std::_Exit(2);
  if (!sandbox::install_after_candidate_load(o).empty()) std::_Exit(3);
  gpu_round_trip(7);
  forbidden();
  std::_Exit(0);
}

class WorkerSandboxOnGpu : public OnGpu {
 protected:
  void SetUp() override {
    OnGpu::SetUp();
    if (IsSkipped()) return;
    if (!sandbox::seccomp_available())
      GTEST_SKIP() << "seccomp is not available here (or this build has no libseccomp)";
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};

}  // namespace

TEST_F(WorkerSandboxOnGpu, TheDriverWorksUnderTheFilters) {
  EXPECT_EXIT(confined([] { gpu_round_trip(100); }), ::testing::ExitedWithCode(0), "");
}

TEST_F(WorkerSandboxOnGpu, OpeningAFileIsStopped) {
  EXPECT_EXIT(confined([] { open("/etc/hostname", O_RDONLY); }), ::testing::KilledBySignal(SIGSYS), "");
}

TEST_F(WorkerSandboxOnGpu, ASocketIsStopped) {
  EXPECT_EXIT(confined([] { socket(AF_INET, SOCK_STREAM, 0); }), ::testing::KilledBySignal(SIGSYS), "");
}

TEST_F(WorkerSandboxOnGpu, ForkAndExecAreStopped) {
  EXPECT_EXIT(confined([] { syscall(SYS_fork); }), ::testing::KilledBySignal(SIGSYS), "");
  EXPECT_EXIT(confined([] { execl("/bin/true", "true", nullptr); }), ::testing::KilledBySignal(SIGSYS), "");
}

TEST_F(WorkerSandboxOnGpu, AnExecutableMappingIsStopped) {
  EXPECT_EXIT(confined([] { mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); }),
              ::testing::KilledBySignal(SIGSYS), "");
}

// The real worker around a real candidate: the filters are on (and recorded), the verdict is the
// reference's own.
TEST_F(WorkerSandboxOnGpu, AReferenceCandidateStaysCorrectWithTheFiltersRecorded) {
  const auto ws = fresh_workspace("gpu-worker-sandbox");
  auto r = run_cli(ws, {"eval", "--json", "--no-sanitize", "-p", "gemm", file("problems/gemm/reference/naive.cu")});
  ASSERT_TRUE(r.output.is_object()) << r.process.describe() << "\n" << r.process.err;
  EXPECT_EQ(r.output["verdict"], "correct") << r.output["reason"];
  json worker = r.output["environment"]["sandbox"]["worker"];  // not const: a missing key reads as null
  std::cout << "worker sandbox: " << worker.dump() << "\n";
  json around = worker["around_candidate"];
  EXPECT_EQ(around["before_load"]["seccomp"], "installed") << worker.dump();
  EXPECT_EQ(around["after_load"]["seccomp"], "installed") << worker.dump();
}

// The attack through the whole judge (tests/gpu/candidates/attacks/gemm_escapes_through_libc.cu):
// past every static check, it calls libc's open, write, socket, connect and fork, found in memory
// from printf. Run unconfined it overwrites the canary, writes a kernel setting, creates a file,
// connects to the listener and forks (each seen on the CPU machine). Judged with and without
// compute-sanitizer (whose runs have no after-load filter and no Landlock): `forbidden`, with
// the host untouched whichever layer stopped it.
TEST_F(WorkerSandboxOnGpu, HostCodePastTheStaticChecksCannotTouchTheHost) {
  namespace fs = std::filesystem;
  const fs::path canary = "/tmp/ptxbench-escape-canary", created = "/tmp/ptxbench-escape-created";
  for (const bool sanitize : {false, true}) {
    SCOPED_TRACE(sanitize ? "with compute-sanitizer" : "without compute-sanitizer");
    { std::ofstream(canary) << "original\n"; }
    fs::remove(created);
    const int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(39517);
    const int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    const bool listening = bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && listen(listener, 4) == 0;

    const auto ws = fresh_workspace("gpu-worker-escape");
    std::vector<std::string> args{"eval", "--json", "--no-timing",
                                  "-p",   "gemm",   file("tests/gpu/candidates/attacks/gemm_escapes_through_libc.cu")};
    if (!sanitize) args.insert(args.begin() + 2, "--no-sanitize");
    auto r = run_cli(ws, args);
    ASSERT_TRUE(r.output.is_object()) << r.process.describe() << "\n" << r.process.err;
    const std::string record = r.output.dump();
    std::cout << "verdict " << r.output["verdict"] << ": " << r.output["reason"] << "\n";
    for (const auto& st : r.output["stages"])
      std::cout << "  " << st["name"] << " " << st["status"] << " " << st.value("message", "") << "\n";
    EXPECT_EQ(r.output["verdict"], "forbidden") << r.output["reason"];
    for (const auto& st : r.output["stages"])
      if (st["name"] == "static") {
        EXPECT_EQ(st["status"], "ok") << "a static check caught it: this test is about the run-time layers";
      }
    EXPECT_NE(record.find("libc functions found"), std::string::npos)
        << "the attack did not run: " << record.substr(0, 4000);

    std::ifstream in(canary);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), "original\n") << "the candidate wrote a file outside its view";
    EXPECT_FALSE(fs::exists(created)) << "the candidate created a file on the host";
    if (listening) {
      const int c = accept(listener, nullptr, nullptr);
      EXPECT_LT(c, 0) << "the candidate connected to the host's loopback";
      if (c >= 0) close(c);
    } else {
      std::cout << "port 39517 is taken here: the connection was not checked\n";
    }
    close(listener);
  }
}

// The attacks that pass for an outside kill (tests/gpu/candidates/attacks/gemm_passes_for_an_outside_kill.cu
// and gemm_exits_as_if_killed.cu): a SIGKILL sent to itself, an exit status of 137, both through
// libc's functions found in memory. An outside kill is an infra error that never counts against a
// model; these are the candidate's own doing: `forbidden`, with and without compute-sanitizer.
TEST_F(WorkerSandboxOnGpu, ACandidateThatEndsItselfLikeAnOutsideKillIsForbidden) {
  for (const char* attack : {"gemm_passes_for_an_outside_kill.cu", "gemm_exits_as_if_killed.cu"})
    for (const bool sanitize : {false, true}) {
      SCOPED_TRACE(std::string(attack) + (sanitize ? " with compute-sanitizer" : " without compute-sanitizer"));
      const auto ws = fresh_workspace("gpu-worker-self-kill");
      std::vector<std::string> args{"eval", "--json", "--no-timing",
                                    "-p",   "gemm",   file(std::string("tests/gpu/candidates/attacks/") + attack)};
      if (!sanitize) args.insert(args.begin() + 2, "--no-sanitize");
      auto r = run_cli(ws, args);
      ASSERT_TRUE(r.output.is_object()) << r.process.describe() << "\n" << r.process.err;
      std::cout << attack << (sanitize ? " (sanitized)" : "") << ": " << r.output["verdict"] << ": "
                << r.output["reason"] << "\n";
      EXPECT_EQ(r.output["verdict"], "forbidden") << r.output.dump().substr(0, 4000);
      EXPECT_NE(r.output.dump().find("libc functions found"), std::string::npos) << "the attack did not run";
    }
}
