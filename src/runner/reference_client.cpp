// The worker's end of the service's reference pool: references put before the candidate, fetched after.
#include "runner/reference_client.h"

#include <vector>

#include "core/fd_messages.h"
#include "runner/detail/cuda_check.h"

namespace ptxbench {
namespace {

size_t total_bytes(const std::vector<ReferenceBuffer>& buffers) {
  size_t n = 0;
  for (const auto& b : buffers) n += b.bytes;
  return n;
}

struct Download {
  const std::vector<ReferenceBuffer>* buffers;
  cudaStream_t stream;
};

void download_into(void* data, size_t, void* ctx) {
  const auto* d = static_cast<const Download*>(ctx);
  auto* out = static_cast<char*>(data);
  for (const auto& b : *d->buffers) {
    PTXBENCH_CUDA(cudaMemcpyAsync(out, b.data, b.bytes, cudaMemcpyDeviceToHost, d->stream));
    out += b.bytes;
  }
  PTXBENCH_CUDA(cudaStreamSynchronize(d->stream));
}

json answer(int socket, const std::string& what) {
  auto r = receive_message(socket);
  if (!r) fail("the reference pool closed its socket (" + what + ")");
  return r->message;
}

}  // namespace

void discard_reference(Workload& w, cudaStream_t s) {
  for (const auto& b : w.reference_buffers()) PTXBENCH_CUDA(cudaMemsetAsync(b.data, 0, b.bytes, s));
  PTXBENCH_CUDA(cudaStreamSynchronize(s));
  w.set_reference_ready(false);
}

void ReferenceClient::put(const std::string& shape, uint64_t seed, double reference_seconds, Workload& w,
                          cudaStream_t s) {
  const auto buffers = w.reference_buffers();
  const size_t bytes = total_bytes(buffers);
  Download d{&buffers, s};
  UniqueFd file = sealed_memory_file("ptxbench-reference", bytes, download_into, &d);
  send_message(
      socket_,
      {{"op", "put"}, {"shape", shape}, {"seed", seed}, {"bytes", bytes}, {"reference_seconds", reference_seconds}},
      file.get());
  const json a = answer(socket_, "put");
  if (!a.value("ok", false))
    fail("the reference pool refused a reference made before the candidate loaded: " + a.value("why", "?"));
}

void ReferenceClient::seal() {
  send_message(socket_, {{"op", "seal"}});
  const json a = answer(socket_, "seal");
  if (!a.value("ok", false)) fail("the reference pool refused the seal: " + a.value("why", "?"));
}

void ReferenceClient::get(const std::string& shape, uint64_t seed, Workload& w, cudaStream_t s) {
  send_message(socket_, {{"op", "get"}, {"shape", shape}, {"seed", seed}});
  auto r = receive_message(socket_);
  if (!r)
    throw ReferenceRefused("the reference pool closed its socket before the harness got the reference of " + shape);
  if (!r->message.value("ok", false))
    throw ReferenceRefused("the reference pool refused the harness's request for the reference of " + shape + ": " +
                           r->message.value("why", "?"));
  const auto buffers = w.reference_buffers();
  const size_t bytes = total_bytes(buffers), announced = r->message.value("bytes", size_t(0));
  if (!r->fd || announced != bytes)
    fail("the reference pool's set for " + shape + " has " + std::to_string(announced) +
         " bytes, this workload's reference " + std::to_string(bytes));
  ReadOnlyMapping map(r->fd.get(), bytes);
  const char* in = static_cast<const char*>(map.data());
  for (const auto& b : buffers) {
    PTXBENCH_CUDA(cudaMemcpyAsync(b.data, in, b.bytes, cudaMemcpyHostToDevice, s));
    in += b.bytes;
  }
  PTXBENCH_CUDA(cudaStreamSynchronize(s));  // before the mapping goes
  w.set_reference_ready(true);
}

}  // namespace ptxbench
