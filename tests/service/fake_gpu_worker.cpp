// ptxbench-fake-gpu-worker: a simulated GPU stage for the service's fault-injection tests. It
// speaks the real worker's result protocol (JSON lines on --result-fd) and plays one GPU per
// folder under $PTXBENCH_FAKE_GPU_STATE/gpuN:
//   --job FILE   {"phase": "shared"|"timed", "device", "ms", "fault", "job"}: a stage that takes
//                `ms` and, with a fault, ends the way a real one would (SIGKILL mid-stage, a
//                sticky CUDA error that leaves the GPU failing its probes, device OOM, a hang, a
//                throttled timed sample, a wrong answer). A timed stage holds gpuN/timing.lock
//                exclusively, a shared stage gpuN/shared.lock shared (flock); each reports whether
//                it saw the other kind running (the gate's exclusivity, checked across processes).
//   --probe      the health probe: a failing checksum while gpuN/sticky counts down, throttling
//                and a 30% slower calibration kernel while gpuN/throttle counts down.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "core/json.h"

namespace fs = std::filesystem;
using ptxbench::json;

namespace {

int result_fd = -1;

void emit(const json& j) {
  const std::string line = j.dump() + "\n";
  if (result_fd >= 0 && ::write(result_fd, line.data(), line.size()) < 0) _exit(70);
}

fs::path gpu_dir(int device) {
  const char* root = std::getenv("PTXBENCH_FAKE_GPU_STATE");
  fs::path d = fs::path(root ? root : "/tmp/ptxbench-fake-gpus") / ("gpu" + std::to_string(device));
  fs::create_directories(d);
  return d;
}

// Reads a countdown file; true (and one less) while it is positive.
bool count_down(const fs::path& file) {
  std::ifstream in(file);
  int n = 0;
  if (!(in >> n) || n <= 0) return false;
  in.close();
  std::ofstream(file) << n - 1;
  return true;
}

// Who is on the simulated GPU, with locks that die with their process (a SIGKILLed stage leaves
// nothing behind): a shared stage holds gpuN/shared.lock shared, a timed stage gpuN/timing.lock
// exclusively. Each asks without blocking whether the other kind holds its lock.
int lock_file(const fs::path& file, int how) {
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0 || flock(fd, how) != 0) _exit(71);
  return fd;
}

bool held_by_others(const fs::path& file, int probe_how) {
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) _exit(71);
  const bool busy = flock(fd, probe_how | LOCK_NB) != 0;
  ::close(fd);  // releases what the probe took
  return busy;
}

// The countdown files are read and written under gpuN/state.lock (probes run concurrently).
void set_countdown(const fs::path& dir, const char* name, int n) {
  const int fd = lock_file(dir / "state.lock", LOCK_EX);
  std::ofstream(dir / name) << n;
  ::close(fd);
}

int probe(int device) {
  const fs::path dir = gpu_dir(device);
  const int state_lock = lock_file(dir / "state.lock", LOCK_EX);
  const bool sticky = count_down(dir / "sticky");
  const bool throttled = count_down(dir / "throttle");
  ::close(state_lock);
  json state = {{"sm_clock_mhz", throttled ? 1200 : 1980}, {"temperature_c", throttled ? 91 : 55}, {"throttled", throttled}};
  if (throttled) state["clock_event_reasons"] = {"sw_thermal_slowdown"};
  emit({{"type", "hello"}, {"gpu", "simulated GPU " + std::to_string(device)}, {"cc", "9.0"}});
  emit({{"type", "health"}, {"checksum_ok", !sticky}, {"detail", sticky ? "checksum 0xdead != 0x5eed" : "ok"},
        {"calibration_ms", throttled ? 1.3 : 1.0}, {"ecc_uncorrected", 0}, {"gpu_state", state}});
  emit({{"type", "done"}});
  return 0;
}

int stage(const json& job) {
  const int device = job.value("device", 0);
  const std::string phase = job.value("phase", "shared"), fault = job.value("fault", "");
  const int ms = job.value("ms", 5);
  const fs::path dir = gpu_dir(device);
  emit({{"type", "hello"}, {"gpu", "simulated GPU " + std::to_string(device)}, {"cc", "9.0"}});
  const bool timed = phase == "timed";
  const fs::path mine = dir / (timed ? "timing.lock" : "shared.lock"), theirs = dir / (timed ? "shared.lock" : "timing.lock");
  const int held = lock_file(mine, timed ? LOCK_EX : LOCK_SH);
  auto other_kind_running = [&] { return held_by_others(theirs, timed ? LOCK_EX : LOCK_SH); };
  bool overlap = other_kind_running();
  emit({{"type", "progress"}, {"stage", phase}});
  std::this_thread::sleep_for(std::chrono::milliseconds(ms / 2));
  auto leave = [&] { ::close(held); };
  if (fault == "killed") raise(SIGKILL);
  if (fault == "hang") for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  if (fault == "sticky") {
    set_countdown(dir, "sticky", 2);
    leave();
    emit({{"type", "fatal"}, {"verdict", "cuda_error"}, {"message", "an illegal memory access was encountered (sticky)"}});
    return 5;
  }
  if (fault == "oom") {
    leave();
    emit({{"type", "fatal"}, {"verdict", "infra_error"}, {"message", "cudaMalloc of the inputs failed: out of memory"}});
    return 6;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(ms - ms / 2));
  overlap = overlap || other_kind_running();
  leave();
  if (phase == "shared") {
    const bool wrong = fault == "wrong";
    emit({{"type", "stage"}, {"name", "correctness"}, {"status", wrong ? "failed" : "ok"}, {"overlap", overlap},
          {"message", wrong ? "wrong values on M=128" : "correct"}});
  } else {
    const bool throttled = fault == "throttle";
    if (throttled) set_countdown(dir, "throttle", 2);
    emit({{"type", "timing"}, {"median_ms", 1.0 + device * 0.01}, {"throttled", throttled}, {"overlap", overlap},
          {"gpu_state", {{"sm_clock_mhz", throttled ? 1200 : 1980}, {"temperature_c", throttled ? 91 : 55}}}});
  }
  emit({{"type", "done"}});
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // a simulated GPU stage never outlives its harness
  std::string job_file;
  int device = 0;
  bool probing = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--job" && i + 1 < argc) job_file = argv[++i];
    else if (a == "--result-fd" && i + 1 < argc) result_fd = std::stoi(argv[++i]);
    else if (a == "--device" && i + 1 < argc) device = std::stoi(argv[++i]);
    else if (a == "--probe") probing = true;
  }
  if (probing) return probe(device);
  std::ifstream in(job_file);
  json job = json::parse(in, nullptr, false);
  if (job.is_discarded()) return 64;
  return stage(job);
}
