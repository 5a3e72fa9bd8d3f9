// ptxbench-health-probe: the reliability monitor's probe of one GPU, between jobs, in a fresh
// process (so a fresh context), launched like the worker (judge/worker_client.h: its sandbox,
// a private job file carrying the result channel's key, read and deleted first):
//   ptxbench-health-probe --job FILE --probe --device N --result-fd FD
//   ptxbench-health-probe --info --job FILE --result-fd FD    (the capabilities probe: hello, done)
// A known kernel with a known checksum (a hash of every index, summed on the GPU and on the CPU),
// a calibration kernel (a fixed FMA chain over every SM, median of 7 timed runs: thermal
// screening compares it with the GPU's own calibration at start), and NVML's clocks,
// temperature, throttle reasons and volatile uncorrected ECC count. Signed lines on FD
// (runner/result_channel.h, the worker's own channel):
// {"type":"hello"...}, {"type":"health", "checksum_ok", "calibration_ms", "gpu_state",
// "ecc_uncorrected"}, {"type":"done"}; a CUDA failure is {"type":"fatal", ...}.
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/worker_protocol.h"
#include "probes/nvml_monitor.h"
#include "runner/calibration_kernel.cuh"
#include "runner/result_channel.h"
#include "service/health/nvml_library.h"

using ptxbench::json;

namespace {

std::unique_ptr<ptxbench::ResultChannel> channel;

void emit(const json& j) { channel->emit(j); }

// The job file, read and deleted; the channel keyed with its `channel_key`. False when unreadable.
bool read_job(const std::string& path, json& job) {
  if (path.empty()) return true;
  std::ifstream in(path);
  job = json::parse(in, nullptr, false);
  unlink(path.c_str());
  if (job.is_discarded() || !job.is_object()) return false;
  if (auto k = job.find("channel_key"); k != job.end() && k->is_string()) {
    try {
      channel->set_key(k->get<std::string>());
    } catch (const std::exception&) {
      return false;
    }
    job.erase(k);
  }
  return true;
}

__host__ __device__ unsigned mix(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

__global__ void checksum_kernel(unsigned n, unsigned long long* sum) {
  unsigned long long local = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    local += mix(i) & 0xffffu;
  atomicAdd(sum, local);
}

std::string check(cudaError_t e, const char* what) {
  return e == cudaSuccess ? "" : std::string(what) + ": " + cudaGetErrorString(e);
}

}  // namespace

int main(int argc, char** argv) {
  int device = 0, result_fd = -1;
  bool info = false;
  std::string job_file;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--info") info = true;
    else if (a == "--probe") continue;
    else if (i + 1 >= argc) break;
    else if (a == "--device") device = std::stoi(argv[++i]);
    else if (a == "--result-fd") result_fd = std::stoi(argv[++i]);
    else if (a == "--job") job_file = argv[++i];
  }
  channel = std::make_unique<ptxbench::ResultChannel>(result_fd);
  json job = json::object();
  if (!read_job(job_file, job)) {
    std::fprintf(stderr, "ptxbench-health-probe: job file %s is not a JSON object with a hex channel_key\n",
                 job_file.c_str());
    return 64;
  }
  if (!info) device = job.value("device", device);
  std::string error = check(cudaSetDevice(device), "cudaSetDevice");
  if (error.empty()) error = check(cudaFree(nullptr), "creating the context");
  cudaDeviceProp prop{};
  if (error.empty()) error = check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  if (!error.empty()) {
    emit({{"type", "fatal"}, {"verdict", "infra_error"}, {"message", error}});
    return 5;
  }
  emit({{"type", "hello"},
        {"gpu", prop.name},
        {"cc", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
        {"device", device},
        {ptxbench::kWorkerProtocolKey, ptxbench::kWorkerProtocolVersion}});
  if (info) {
    emit({{"type", "done"}});
    return 0;
  }

  // The known kernel.
  constexpr unsigned kN = 1u << 22;
  unsigned long long expected = 0, got = 0;
  for (unsigned i = 0; i < kN; ++i) expected += mix(i) & 0xffffu;
  unsigned long long* sum = nullptr;
  float* sink = nullptr;
  error = check(cudaMalloc(&sum, sizeof *sum), "cudaMalloc");
  if (error.empty()) error = check(cudaMalloc(&sink, sizeof *sink), "cudaMalloc");
  if (error.empty()) error = check(cudaMemset(sum, 0, sizeof *sum), "cudaMemset");
  if (error.empty()) {
    checksum_kernel<<<prop.multiProcessorCount * 4, 256>>>(kN, sum);
    error = check(cudaDeviceSynchronize(), "the known kernel");
  }
  if (error.empty()) error = check(cudaMemcpy(&got, sum, sizeof got, cudaMemcpyDeviceToHost), "cudaMemcpy");
  const bool checksum_ok = error.empty() && got == expected;
  char detail[160];
  std::snprintf(detail, sizeof detail, "checksum %llu, expected %llu", got, expected);

  // The calibration kernel (runner/calibration_kernel.cuh: the worker times the same one).
  double calibration_ms = 0;
  if (checksum_ok) {
    calibration_ms = std::max(0.0, ptxbench::time_calibration_kernel(prop.multiProcessorCount, sink, 0));
    error = check(cudaGetLastError(), "the calibration kernel");
  }

  ptxbench::NvmlMonitor nvml(device);
  json health = {{"type", "health"},
                 {"checksum_ok", checksum_ok && error.empty()},
                 {"detail", error.empty() ? std::string(detail) : error},
                 {"calibration_ms", calibration_ms},
                 {"gpu_state", nvml.read().to_json()}};
  char pci[32] = "";
  if (cudaDeviceGetPCIBusId(pci, sizeof pci, device) == cudaSuccess)
    if (auto ecc = ptxbench::NvmlLibrary::instance().uncorrected_ecc_volatile(pci)) health["ecc_uncorrected"] = *ecc;
  emit(health);
  emit({{"type", "done"}});
  return 0;
}
