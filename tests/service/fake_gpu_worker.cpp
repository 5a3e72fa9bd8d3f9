// ptxbench-fake-gpu-worker: a simulated GPU stage for the service's fault-injection tests. It
// speaks the real worker's result protocol through the worker's own channel code
// (runner/result_channel.h: `<hmac> <seq> <json>` lines on --result-fd, keyed by the job file's
// `channel_key`; the job file is read and deleted first), is launched the way the real worker is
// (judge/worker_client.h, in its sandbox) and plays one GPU per folder under
// $PTXBENCH_FAKE_GPU_STATE/gpuN (the launch passes the variable and makes the folder writable):
//   --info       the capabilities probe: hello, done.
//   --job FILE   {"phase": "shared"|"timed", "device", "ms", "fault", "job"}: a stage that takes
//                `ms` and, with a fault, ends the way a real one would (SIGKILL mid-stage, a
//                sticky CUDA error that leaves the GPU failing its probes, device OOM, a hang, a
//                throttled timed sample, a wrong answer). A timed stage holds gpuN/timing.lock
//                exclusively, a shared stage gpuN/shared.lock shared (flock); each reports whether
//                it saw the other kind running (the gate's exclusivity, checked across processes).
//                Given "exclusive_gpu_fd", a timed stage first runs "setup_ms" as a shared one,
//                then asks for exclusive use on that socket (the real timed worker's handshake);
//                "grant": "faked" or "other_token" plays candidate code that answers it instead.
//                Given "pause_fd" too, its set-up runs as steps of "call_ms" with a pause point before
//                each (the real timed worker's start, pausable for another timed worker's window),
//                "pause_fault" played as a shared stage plays it.
//   --probe      the health probe (job {"mode": "probe", "device"}): a failing checksum while
//                gpuN/sticky counts down, throttling and a 30% slower calibration kernel while
//                gpuN/throttle counts down.
//   --job FILE   {"mode": "reference_pool", "reference_pool_fd", "script": [...]}: the messages of
//                the eval worker's reference pool socket (judge/reference_session.h), in order:
//                {"op": "put", "shape", "seed", "bytes", "fill"} sends a sealed memory file of
//                `bytes` bytes of `fill`; anything else is sent as it is. One reference_pool event
//                says every answer (for a get that came with a file: its size and first byte).
//   Given "pause_fd", a shared stage runs as calls of "call_ms" with a pause point before each
//                (core/shared_pause.h): asked to pause, it leaves the simulated GPU (shared.lock),
//                acknowledges, waits to be resumed and sends its signed report; "pause_fault":
//                "keeps_running" acknowledges but stays on the GPU and reports the work it ran meanwhile
//                (what CUPTI would record of a candidate thread that launched on), "forged_report"
//                signs its report with another key, "never_acks" never looks at the socket;
//                "before_calls_ms" is set-up before its first call (and pause point).
// A broken channel, for the harness's own tests: the job's "channel" (a probe: gpuN/probe_channel)
// is "unsigned" (plain JSON lines, the protocol before the channel was signed), "bad_mac" (signed
// with another key), "garbage" (a line that is no protocol at all), "replay" (a line sent twice);
// "<kind>_then_hang" sends it, then never ends.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "core/exclusive_grant.h"
#include "core/fd_messages.h"
#include "core/json.h"
#include "core/shared_pause.h"
#include "core/timestamp.h"
#include "core/worker_protocol.h"
#include "runner/result_channel.h"

namespace fs = std::filesystem;
using ptxbench::json;
using ptxbench::ResultChannel;

namespace {

std::unique_ptr<ResultChannel> channel;
std::string channel_key;    // the job's key (hex), kept to forge a replay with it
std::string channel_fault;  // how this run breaks the channel ("": it does not)
bool channel_broken = false;

[[noreturn]] void hang() {
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

// The first event goes out broken the way `channel_fault` says; the rest as the worker sends them
// (a verifying parent has stopped trusting the channel by then).
void emit(const json& j) {
  if (channel_fault.empty() || channel_broken) {
    channel->emit(j);
    return;
  }
  channel_broken = true;
  const bool then_hang = channel_fault.ends_with("_then_hang");
  const std::string kind = then_hang ? channel_fault.substr(0, channel_fault.size() - 10) : channel_fault;
  const int fd = channel->descriptor();
  auto raw = [&](const std::string& line) {
    if (::write(fd, line.data(), line.size()) < 0) _exit(70);
  };
  if (kind == "unsigned") {
    raw(j.dump() + "\n");
  } else if (kind == "garbage") {
    raw(std::string("\x01\x02 not a result line\n"));
  } else if (kind == "bad_mac") {
    ResultChannel forged(::dup(fd));
    forged.set_key(std::string(64, 'a'));
    forged.emit(j);
  } else if (kind == "replay") {
    channel->emit(j);
    ResultChannel again(::dup(fd));  // the same key, its sequence numbers from 0 again
    again.set_key(channel_key);
    again.emit(j);
  } else {
    raw("unknown channel fault '" + channel_fault + "'\n");
  }
  if (then_hang) hang();
}

// Without the variable the state would be private to this process (the sandbox's own /tmp):
// the simulated GPUs would share nothing, so that is a harness error, said so.
fs::path gpu_dir(int device) {
  const char* root = std::getenv("PTXBENCH_FAKE_GPU_STATE");
  if (!root || !*root) {
    channel->emit({{"type", "fatal"},
                   {"verdict", "infra_error"},
                   {"message", "PTXBENCH_FAKE_GPU_STATE is not set in the fake worker's environment"}});
    _exit(6);
  }
  fs::path d = fs::path(root) / ("gpu" + std::to_string(device));
  std::error_code ec;
  fs::create_directories(d, ec);
  if (ec) {
    channel->emit({{"type", "fatal"},
                   {"verdict", "infra_error"},
                   {"message", "cannot create " + d.string() + ": " + ec.message()}});
    _exit(6);
  }
  return d;
}

std::string read_word(const fs::path& file) {
  std::ifstream in(file);
  std::string w;
  in >> w;
  return w;
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

int info() {
  emit({{"type", "hello"},
        {"gpu", "simulated GPU 0"},
        {"cc", "9.0"},
        {"device", 0},
        {ptxbench::kWorkerProtocolKey, ptxbench::kWorkerProtocolVersion}});
  emit({{"type", "done"}});
  return 0;
}

int probe(int device) {
  const fs::path dir = gpu_dir(device);
  channel_fault = read_word(dir / "probe_channel");
  const int state_lock = lock_file(dir / "state.lock", LOCK_EX);
  const bool sticky = count_down(dir / "sticky");
  const bool throttled = count_down(dir / "throttle");
  ::close(state_lock);
  json state = {
      {"sm_clock_mhz", throttled ? 1200 : 1980}, {"temperature_c", throttled ? 91 : 55}, {"throttled", throttled}};
  if (throttled) state["clock_event_reasons"] = {"sw_thermal_slowdown"};
  emit({{"type", "hello"},
        {"gpu", "simulated GPU " + std::to_string(device)},
        {"cc", "9.0"},
        {ptxbench::kWorkerProtocolKey, ptxbench::kWorkerProtocolVersion}});
  emit({{"type", "health"},
        {"checksum_ok", !sticky},
        {"detail", sticky ? "checksum 0xdead != 0x5eed" : "ok"},
        {"calibration_ms", throttled ? 1.3 : 1.0},
        {"ecc_uncorrected", 0},
        {"gpu_state", state}});
  emit({{"type", "done"}});
  return 0;
}

void fill_with(void* data, size_t bytes, void* ctx) { std::memset(data, *static_cast<int*>(ctx), bytes); }

// Speaks the reference pool's protocol as the job's script says, through the launch's sandbox.
int reference_pool(const json& job) {
  emit({{"type", "hello"},
        {"gpu", "simulated GPU 0"},
        {"cc", "9.0"},
        {ptxbench::kWorkerProtocolKey, ptxbench::kWorkerProtocolVersion}});
  const int fd = job.value("reference_pool_fd", -1);
  json answers = json::array();
  for (const auto& step : job.at("script")) {
    json message = step;
    ptxbench::UniqueFd file;
    if (step.value("op", "") == "put") {
      int fill = step.value("fill", 0);
      file = ptxbench::sealed_memory_file("fake-reference", step.at("bytes").get<size_t>(), fill_with, &fill);
      message.erase("fill");
    }
    try {
      ptxbench::send_message(fd, message, file.get());
      auto r = ptxbench::receive_message(fd);
      if (!r) {
        answers.push_back({{"closed", true}});
        continue;
      }
      json a = r->message;
      if (r->fd) {
        ptxbench::ReadOnlyMapping map(r->fd.get(), a.value("bytes", size_t(0)));
        a["file_first_byte"] = map.size() ? int(*static_cast<const unsigned char*>(map.data())) : -1;
      }
      answers.push_back(a);
    } catch (const std::exception& e) {
      answers.push_back({{"error", e.what()}});
    }
  }
  emit({{"type", "reference_pool"}, {"answers", answers}});
  emit({{"type", "done"}});
  return 0;
}

// The simulated shared worker's pause socket and how it plays it.
struct FakePause {
  int fd = -1;
  std::string fault;
  int pauses = 0;
};

bool send_bytes(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += size_t(n);
  }
  return true;
}

// A call boundary of a shared stage (as runner/shared_pause.cpp): `held` is its shared.lock,
// released while it is paused (the simulated GPU idle), unless it plays a worker that keeps running.
void pause_point(FakePause& p, const fs::path& shared_lock, int& held) {
  if (p.fd < 0 || p.fault == "never_acks") return;
  pollfd pf{p.fd, POLLIN, 0};
  if (::poll(&pf, 1, 0) <= 0) return;
  char c = 0;
  if (::read(p.fd, &c, 1) != 1 || c != ptxbench::kAskToPause) {
    ::close(p.fd);
    p.fd = -1;
    return;
  }
  const bool keeps_running = p.fault == "keeps_running";
  if (!keeps_running) ::close(held);
  const uint64_t acked = ptxbench::gpu_activity_clock_ns();
  char resume = 0;
  if (!send_bytes(p.fd, std::string(1, ptxbench::kPaused)) || ::read(p.fd, &resume, 1) != 1 ||
      resume != ptxbench::kResume) {
    emit({{"type", "fatal"}, {"verdict", "infra_error"}, {"message", "the harness did not resume the paused worker"}});
    _exit(6);
  }
  ptxbench::PauseReport r;
  r.pause = ++p.pauses;
  r.acked_ns = acked;
  r.resumed_ns = ptxbench::gpu_activity_clock_ns();
  r.activity_known = true;
  // A candidate thread that launched on after the acknowledgement: its kernel ran until the resume.
  if (keeps_running) r.work.push_back({acked + 1, r.resumed_ns, "kernel", "candidate_call", "spin"});
  const std::string text = to_json(r).dump();
  const std::string mac =
      p.fault == "forged_report" ? std::string(64, '0') : channel->sign(ptxbench::kPauseReportPrefix, text);
  if (!send_bytes(p.fd, mac + " " + text + "\n")) _exit(6);
  if (!keeps_running) held = lock_file(shared_lock, LOCK_SH);
  emit({{"type", "paused"}, {"pause", r.pause}, {"seconds", double(r.resumed_ns - acked) / 1e9}});
}

int stage(const json& job) {
  const int device = job.value("device", 0);
  const std::string phase = job.value("phase", "shared"), fault = job.value("fault", "");
  const int ms = job.value("ms", 5);
  channel_fault = job.value("channel", "");
  const fs::path dir = gpu_dir(device);
  emit({{"type", "hello"},
        {"gpu", "simulated GPU " + std::to_string(device)},
        {"cc", "9.0"},
        {ptxbench::kWorkerProtocolKey, ptxbench::kWorkerProtocolVersion}});
  const bool timed = phase == "timed";
  // Under a lane gate the timed stage starts as the real timed worker does: beside shared stages
  // (holding shared.lock shared for `setup_ms`), then asks for the GPU alone on the handshake
  // socket and waits for the answer. Whether a shared stage ran during that start is reported.
  bool setup_beside_shared = false, settled_after_grant = false, clean_baseline_beside_shared = false;
  if (const int gate_fd = job.value("exclusive_gpu_fd", -1); timed && gate_fd >= 0) {
    const fs::path shared = dir / "shared.lock";
    // "clean_baseline_ms": as the real worker that times the library alone before its candidate
    // loads: asks for the GPU alone, holds timing.lock for that long, gives the GPU back and waits
    // until the harness answers that it is shared again; with "keeps_gpu" (the real worker whose
    // job is timing only) it keeps the GPU alone through its set-up instead.
    int kept = -1;  // timing.lock, held from the clean timings to the timed samples
    const int clean_ms = job.value("clean_baseline_ms", 0);
    if (clean_ms > 0) {
      char answer[ptxbench::kGrantAnswerLength] = {};
      size_t got = 0;
      if (::send(gate_fd, &ptxbench::kAskForCleanBaseline, 1, MSG_NOSIGNAL) == 1)
        for (ssize_t n; got < sizeof answer && (n = ::read(gate_fd, answer + got, sizeof answer - got)) > 0;) {
          got += size_t(n);
          if (answer[0] != 'g') break;
        }
      if (got != sizeof answer || answer[0] != 'g') {
        emit({{"type", "fatal"},
              {"verdict", "infra_error"},
              {"message", "the service refused exclusive use of the GPU for timing"}});
        return 6;
      }
      const int alone = lock_file(dir / "timing.lock", LOCK_EX);
      emit({{"type", "exclusive_gpu"},
            {"for", "clean_baseline"},
            {"waited_seconds", 0.0},
            {"grant", std::string(answer + 1, ptxbench::kGrantTokenLength)}});
      clean_baseline_beside_shared = held_by_others(shared, LOCK_EX);
      std::this_thread::sleep_for(std::chrono::milliseconds(clean_ms));
      clean_baseline_beside_shared = clean_baseline_beside_shared || held_by_others(shared, LOCK_EX);
      if (job.value("keeps_gpu", false)) kept = alone;
      else ::close(alone);
    }
    if (clean_ms > 0 && kept < 0) {
      char back = 0;
      if (::send(gate_fd, &ptxbench::kGiveBack, 1, MSG_NOSIGNAL) != 1 || ::read(gate_fd, &back, 1) != 1 ||
          back != ptxbench::kSharedAgain) {
        emit({{"type", "fatal"}, {"verdict", "infra_error"}, {"message", "the service did not take the GPU back"}});
        return 6;
      }
      emit({{"type", "shared_gpu"}, {"after", "clean_baseline"}, {"waited_seconds", 0.0}});
    }
    if (kept < 0) {
      setup_beside_shared = held_by_others(shared, LOCK_EX);
      int setup = lock_file(shared, LOCK_SH);
      // Given "pause_fd", its start is pausable (the real timed worker's harness steps and warm-up
      // calls): `call_ms` steps with a pause point before each, "pause_fault" as a shared stage's.
      FakePause start{job.value("pause_fd", -1), job.value("pause_fault", ""), 0};
      if (start.fd >= 0) {
        const int step_ms = std::max(1, job.value("call_ms", 5));
        for (int left = job.value("setup_ms", 0); left > 0; left -= step_ms) {
          pause_point(start, shared, setup);
          std::this_thread::sleep_for(std::chrono::milliseconds(std::min(step_ms, left)));
        }
        if (start.fd >= 0) ::close(start.fd);  // closed before its request, as the real worker's
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(job.value("setup_ms", 0)));
      }
      ::close(setup);
      setup_beside_shared = setup_beside_shared || held_by_others(shared, LOCK_EX);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(job.value("setup_ms", 0)));  // still alone
    }
    // "grant": how candidate code in the real worker could answer it (judge/timed_grant.h):
    // "faked" never asks the harness and times at once, "other_token" asks but is timed on
    // another token (its own socket answered the worker first), "give_back_after_timing" gives
    // the GPU back once granted for timing (so that other lanes' work would run beside its samples).
    const std::string grant_fault = job.value("grant", "");
    std::string token(ptxbench::kGrantTokenLength, 'f');  // not the harness's
    int paused_beside = 0;                                // the grant's paused count (core/exclusive_grant.h)
    if (grant_fault != "faked") {
      const char ask = ptxbench::kAskForTiming;
      char answer[ptxbench::kGrantAnswerLength] = {};
      size_t got = 0;
      if (::send(gate_fd, &ask, 1, MSG_NOSIGNAL) == 1)
        for (ssize_t n; got < sizeof answer && (n = ::read(gate_fd, answer + got, sizeof answer - got)) > 0;) {
          got += size_t(n);
          if (answer[0] != 'g') break;
        }
      if (got != sizeof answer || answer[0] != 'g') {
        ::close(gate_fd);
        emit({{"type", "fatal"},
              {"verdict", "infra_error"},
              {"message", "the service refused exclusive use of the GPU for timing"}});
        return 6;
      }
      if (grant_fault != "other_token") token.assign(answer + 1, ptxbench::kGrantTokenLength);
      paused_beside = std::atoi(std::string(answer + 1 + ptxbench::kGrantTokenLength, 2).c_str());
      if (grant_fault == "give_back_after_timing") {
        (void)!::send(gate_fd, &ptxbench::kGiveBack, 1, MSG_NOSIGNAL);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));  // time for the harness to (not) act on it
      }
    }
    ::close(gate_fd);
    if (kept >= 0) ::close(kept);  // taken again below, as by a worker that asked only now
    emit({{"type", "exclusive_gpu"}, {"waited_seconds", 0.0}, {"grant", token}, {"paused_beside", paused_beside}});
    // As the real worker waits for NVML to list no other process: a shared stage killed just
    // before the grant may still be exiting, its lock not yet released (up to 5 s).
    // Said in the result: after a clean stage it never happens (a gate that granted too early would).
    for (int i = 0; i < 500 && held_by_others(shared, LOCK_EX); ++i) {
      settled_after_grant = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  const fs::path mine = dir / (timed ? "timing.lock" : "shared.lock"),
                 theirs = dir / (timed ? "shared.lock" : "timing.lock");
  int held = lock_file(mine, timed ? LOCK_EX : LOCK_SH);
  auto other_kind_running = [&] { return held_by_others(theirs, timed ? LOCK_EX : LOCK_SH); };
  bool overlap = other_kind_running();
  FakePause pause;
  if (!timed) pause = {job.value("pause_fd", -1), job.value("pause_fault", ""), 0};
  const int call_ms = std::max(1, job.value("call_ms", 5));
  // The stage's work: with a pause socket, as calls with a pause point before each.
  auto work_for = [&](int duration_ms) {
    if (pause.fd < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(duration_ms));
      return;
    }
    for (int done = 0; done < duration_ms; done += call_ms) {
      pause_point(pause, mine, held);
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min(call_ms, duration_ms - done)));
      overlap = overlap || other_kind_running();
    }
  };
  emit({{"type", "progress"}, {"stage", phase}});
  // "before_calls_ms": set-up before its first call (a long reference, a library's plans): no pause point.
  if (!timed) std::this_thread::sleep_for(std::chrono::milliseconds(job.value("before_calls_ms", 0)));
  work_for(ms / 2);
  auto leave = [&] { ::close(held); };
  if (fault == "killed") raise(SIGKILL);
  if (fault == "hang")
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  if (fault == "sticky") {
    set_countdown(dir, "sticky", 2);
    leave();
    emit({{"type", "fatal"},
          {"verdict", "cuda_error"},
          {"message", "an illegal memory access was encountered (sticky)"}});
    return 5;
  }
  if (fault == "oom") {
    leave();
    emit(
        {{"type", "fatal"}, {"verdict", "infra_error"}, {"message", "cudaMalloc of the inputs failed: out of memory"}});
    return 6;
  }
  work_for(ms - ms / 2);
  overlap = overlap || other_kind_running();
  leave();
  if (phase == "shared") {
    const bool wrong = fault == "wrong";
    emit({{"type", "stage"},
          {"name", "correctness"},
          {"status", wrong ? "failed" : "ok"},
          {"overlap", overlap},
          {"message", wrong ? "wrong values on M=128" : "correct"}});
  } else {
    const bool throttled = fault == "throttle";
    if (throttled) set_countdown(dir, "throttle", 2);
    emit({{"type", "timing"},
          {"median_ms", 1.0 + device * 0.01},
          {"throttled", throttled},
          {"overlap", overlap},
          {"setup_beside_shared", setup_beside_shared},
          {"clean_baseline_beside_shared", clean_baseline_beside_shared},
          {"settled_after_grant", settled_after_grant},
          {"gpu_state", {{"sm_clock_mhz", throttled ? 1200 : 1980}, {"temperature_c", throttled ? 91 : 55}}}});
  }
  emit({{"type", "done"}});
  return 0;
}

// The job file, read and deleted; its key taken out (as ptxbench-worker does). Null when unreadable.
json read_job(const std::string& path) {
  if (path.empty()) return json::object();
  std::ifstream in(path);
  json job = json::parse(in, nullptr, false);
  ::unlink(path.c_str());
  if (job.is_discarded() || !job.is_object()) return nullptr;
  if (auto k = job.find("channel_key"); k != job.end() && k->is_string()) {
    channel_key = k->get<std::string>();
    channel->set_key(channel_key);
    job.erase(k);
  }
  return job;
}

}  // namespace

int main(int argc, char** argv) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // a simulated GPU stage never outlives its harness
  std::string job_file;
  int device = 0, result_fd = -1;
  bool probing = false, info_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--job" && i + 1 < argc) job_file = argv[++i];
    else if (a == "--result-fd" && i + 1 < argc) result_fd = std::stoi(argv[++i]);
    else if (a == "--device" && i + 1 < argc) device = std::stoi(argv[++i]);
    else if (a == "--probe") probing = true;
    else if (a == "--info") info_only = true;
  }
  channel = std::make_unique<ResultChannel>(result_fd);
  json job = read_job(job_file);
  if (job.is_null()) {
    std::fprintf(stderr, "ptxbench-fake-gpu-worker: job file %s is not a JSON object\n", job_file.c_str());
    return 64;
  }
  if (info_only) return info();
  if (probing || job.value("mode", "") == "probe") return probe(job.value("device", device));
  if (job.value("mode", "") == "reference_pool") return reference_pool(job);
  return stage(job);
}
