#include "runner/input_guard.h"

#include "core/error.h"
#include "runner/detail/cuda_check.h"
#include "runner/device_ops.h"

namespace ptxbench {

void InputGuard::reserve(int slots, size_t inputs) {
  slots_ = slots, inputs_ = inputs;
  fp_.ensure(size_t(slots) * 2 * inputs);
}

void InputGuard::write(const Workload& w, int slot, int which, cudaStream_t s) {
  const auto in = w.inputs();
  if (in.size() != inputs_ || slot < 0 || slot >= slots_) fail("InputGuard used without reserve() for this workload");
  for (size_t i = 0; i < in.size(); ++i)
    fingerprint(in[i].data, in[i].bytes, fp_.get() + (size_t(slot) * 2 + which) * inputs_ + i, s);
}

void InputGuard::after_call(const Workload& w, int slot, cudaStream_t s) { write(w, slot, 0, s); }
void InputGuard::after_regeneration(const Workload& w, int slot, cudaStream_t s) { write(w, slot, 1, s); }

std::vector<std::string> InputGuard::changed(const Workload& w, int count) {
  const auto in = w.inputs();
  std::vector<unsigned long long> h(size_t(count) * 2 * inputs_);
  PTXBENCH_CUDA(cudaDeviceSynchronize());
  if (!h.empty()) PTXBENCH_CUDA(cudaMemcpy(h.data(), fp_.get(), h.size() * sizeof(h[0]), cudaMemcpyDeviceToHost));
  std::vector<std::string> out(count);
  for (int slot = 0; slot < count; ++slot) {
    std::vector<std::string> names;
    for (size_t i = 0; i < inputs_; ++i)
      if (h[(size_t(slot) * 2) * inputs_ + i] != h[(size_t(slot) * 2 + 1) * inputs_ + i]) names.push_back(in[i].name);
    for (size_t i = 0; i < names.size(); ++i)
      out[slot] += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return out;
}

}  // namespace ptxbench
