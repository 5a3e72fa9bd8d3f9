// A Triton candidate in the worker: the interpreter started, its kernels loaded, each call forwarded.
#include "runner/triton/triton_session.h"

#include <cuda_runtime.h>

#include <optional>

#include "core/error.h"
#include "runner/detail/cuda_check.h"
#include "runner/triton/python_library.h"

namespace ptxbench {
namespace {

struct Session {
  std::optional<PythonLibrary> python;
  PyObject* call = nullptr;
  PyObject* set_scratch = nullptr;
  ResultChannel* channel = nullptr;
};

Session& session() {
  static Session s;
  return s;
}

}  // namespace

size_t start_session(const json& triton, ResultChannel& channel) {
  Session& s = session();
  if (s.python) fail("a Triton session is already running in this worker");
  s.channel = &channel;
  const json& py = triton.at("python");
  s.python.emplace(py.at("library").get<std::string>(), py.at("home").get<std::string>(),
                   py.at("path").get<std::vector<std::string>>());
  const char* module = "ptxbench_triton.worker_side";
  PyObject* load = s.python->function(module, "load");
  PyObject* warm = s.python->function(module, "warm");
  s.call = s.python->function(module, "call");
  s.set_scratch = s.python->function(module, "set_scratch");
  const std::string loaded = s.python->call_text(load, triton.at("session").dump());
  if (loaded.starts_with("harness: ")) fail("the Triton session could not start: " + loaded.substr(9));
  if (!loaded.empty())
    channel.fatal_and_exit("runtime_error", "loading the Triton candidate: " + loaded.substr(loaded.find(": ") + 2), 4);
  const json warmed = json::parse(s.python->call_text(warm, ""), nullptr, false);
  if (warmed.is_discarded() || !warmed.is_object()) fail("the Triton warm-up returned no JSON object");
  if (warmed.contains("error"))
    channel.fatal_and_exit(
        "runtime_error", "the Triton entry's warm-up (every shape, nothing launched): " + warmed.value("error", ""), 4);
  channel.emit({{"type", "progress"}, {"stage", "triton_warm"}, {"detail", warmed}});
  return warmed.value("scratch_bytes", size_t{0});
}

void give_scratch(size_t bytes) {
  Session& s = session();
  if (!bytes) return;
  void* p = nullptr;
  PTXBENCH_CUDA(cudaMalloc(&p, bytes));  // kept for the worker's life, like the candidate's kernels
  s.python->call_two(s.set_scratch, reinterpret_cast<unsigned long long>(p), bytes);
}

}  // namespace ptxbench

extern "C" __attribute__((visibility("default"))) int ptxbench_triton_call(const unsigned long long* values,
                                                                           int count) {
  using namespace ptxbench;
  Session& s = session();
  if (!s.python) return 1;  // a shim without a session: the worker was not given the job's triton block
  std::string error;
  try {
    error = s.python->call_integers(s.call, values, count);
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (error.empty()) return 0;
  s.channel->fatal_and_exit("runtime_error", "the Triton entry raised " + error, 4);
}
