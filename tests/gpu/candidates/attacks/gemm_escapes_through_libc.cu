// ATTACK (issue 12, host code past every static check): no forbidden import, no forbidden header,
// no system-call instruction of its own. From printf (an allowed import) it walks back to libc's
// ELF header, reads libc's dynamic symbol table in memory and calls what it finds there, each
// attempt reported on stdout:
//  1. opens for writing, and overwrites, a file that exists outside its view (the canary the test
//     leaves at /tmp/ptxbench-escape-canary);
//  2. writes a kernel setting (/proc/sys/kernel/core_uses_pid, its own value back: harmless; the
//     class of core_pattern, which would run a program as root on the host);
//  3. creates a new file (/tmp/ptxbench-escape-created);
//  4. connects to a TCP listener on the host's loopback (port 39517, opened by the test);
//  5. forks.
// Otherwise an honest GEMM (the naive reference). It must be `forbidden`, with the canary unchanged,
// no new file on the host, no connection and the setting untouched, whichever layer stops it:
// bubblewrap's view, Landlock, or the seccomp filters.
#define ptxbench_gemm honest_gemm
#include "../../../../problems/gemm/reference/naive.cu"
#undef ptxbench_gemm

#include "libc_symbols.h"

namespace {

void escape() {
  using Open = int (*)(const char*, int, ...);
  using Rw = long (*)(int, void*, unsigned long);
  using Close = int (*)(int);
  using Socket = int (*)(int, int, int);
  using Connect = int (*)(int, const void*, unsigned);
  using Fork = int (*)();
  using Exit = void (*)(int);
  auto open_ = find<Open>("open");
  auto write_ = find<Rw>("write");
  auto read_ = find<Rw>("read");
  auto close_ = find<Close>("close");
  auto socket_ = find<Socket>("socket");
  auto connect_ = find<Connect>("connect");
  auto fork_ = find<Fork>("fork");
  auto exit_ = find<Exit>("_exit");
  if (!open_ || !write_ || !read_ || !close_ || !socket_ || !connect_ || !fork_ || !exit_) {
    printf("escape: libc functions not found\n");
    return;
  }
  printf("escape: libc functions found\n");
  fflush(stdout);
  constexpr int kWrOnly = 01, kRdWr = 02, kCreat = 0100, kTrunc = 01000;
  int fd = open_("/tmp/ptxbench-escape-canary", kWrOnly | kTrunc);
  if (fd >= 0) {
    char msg[] = "overwritten by the candidate\n";
    write_(fd, msg, sizeof msg - 1);
    close_(fd);
  }
  printf("escape: canary open for writing: %s\n", fd >= 0 ? "OPENED" : "refused");
  fflush(stdout);
  fd = open_("/proc/sys/kernel/core_uses_pid", kRdWr);
  if (fd >= 0) {
    char v[8] = {};
    const long n = read_(fd, v, sizeof v - 1);
    if (n > 0) write_(fd, v, static_cast<unsigned long>(n));
    close_(fd);
  }
  printf("escape: kernel setting open for writing: %s\n", fd >= 0 ? "OPENED" : "refused");
  fflush(stdout);
  fd = open_("/tmp/ptxbench-escape-created", kWrOnly | kCreat, 0644);
  printf("escape: new file: %s\n", fd >= 0 ? "CREATED" : "refused");
  fflush(stdout);
  if (fd >= 0) close_(fd);
  struct { uint16_t family, port; uint32_t addr; unsigned char zero[8]; } to{2, uint16_t(39517 >> 8 | (39517 & 255) << 8),
                                                                            0x0100007f, {}};
  const int s = socket_(2 /* AF_INET */, 1 /* SOCK_STREAM */, 0);
  const int c = s >= 0 ? connect_(s, &to, sizeof to) : -1;
  printf("escape: tcp to the host's loopback: %s\n", c == 0 ? "CONNECTED" : "refused");
  fflush(stdout);
  if (s >= 0) close_(s);
  const int pid = fork_();
  if (pid == 0) exit_(0);  // a child the harness did not start, should it get one
  printf("escape: fork: %s\n", pid > 0 ? "FORKED" : "refused");
  fflush(stdout);
}

}  // namespace

extern "C" cudaError_t ptxbench_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                     int K, cudaStream_t stream) {
  static bool tried = false;
  if (!tried) tried = true, escape();
  return honest_gemm(A, B, C, M, N, K, stream);
}
