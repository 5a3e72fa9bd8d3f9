// Whether a candidate call changed its inputs, judged from fingerprints of inputs generated again.
#include "runner/input_guard.h"

#include <algorithm>

#include "core/error.h"
#include "runner/detail/cuda_check.h"
#include "runner/device_ops.h"

namespace ptxbench {

void InputGuard::reserve(int slots, size_t inputs) {
  slots_ = slots, inputs_ = inputs;
  fp_.ensure(size_t(slots) * 2 * inputs);
  kept_.assign(size_t(std::max(slots, 0)), {});
}

void InputGuard::write(const Workload& w, int slot, int which, cudaStream_t s) {
  const auto in = w.inputs();
  if (in.size() != inputs_ || slot < 0 || slot >= slots_) fail("InputGuard used without reserve() for this workload");
  for (size_t i = 0; i < in.size(); ++i)
    fingerprint(in[i].data, in[i].bytes, fp_.get() + (size_t(slot) * 2 + which) * inputs_ + i, s);
}

void InputGuard::before_call(const Workload& w, int slot, cudaStream_t s) {
  const auto names = w.kept_timing_inputs();
  if (names.empty()) return;
  const auto in = w.inputs();
  if (in.size() != inputs_ || slot < 0 || slot >= slots_) fail("InputGuard used without reserve() for this workload");
  const size_t needed = size_t(slots_) * inputs_;
  // A larger sampler than any before: copies of earlier samples may still be pending into the
  // buffers about to be replaced (every harness copy is on this stream).
  if (before_host_.size() < needed || before_.size() < needed) PTXBENCH_CUDA(cudaStreamSynchronize(s));
  before_.ensure(needed);
  before_host_.ensure(needed);
  auto& kept = kept_[size_t(slot)];
  kept.clear();
  for (const auto& name : names) {
    const auto it = std::find_if(in.begin(), in.end(), [&](const InputView& v) { return v.name == name; });
    if (it == in.end()) fail("the workload keeps a copy of input '" + name + "', which is not one of its inputs");
    const size_t i = size_t(it - in.begin());
    fingerprint(in[i].data, in[i].bytes, before_.get() + size_t(slot) * inputs_ + i, s);
    kept.push_back(i);
  }
  // Stream-ordered before the call: what the call may do to device memory comes after this copy.
  PTXBENCH_CUDA(cudaMemcpyAsync(before_host_.get() + size_t(slot) * inputs_, before_.get() + size_t(slot) * inputs_,
                                inputs_ * sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
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
    const auto& kept = kept_[size_t(slot)];
    std::vector<std::string> names;
    for (size_t i = 0; i < inputs_; ++i) {
      const unsigned long long regenerated = h[(size_t(slot) * 2 + 1) * inputs_ + i];
      bool differs = h[(size_t(slot) * 2) * inputs_ + i] != regenerated;
      // A kept input restored from a copy the call could reach: it must also be what it was before.
      if (std::find(kept.begin(), kept.end(), i) != kept.end())
        differs = differs || before_host_.get()[size_t(slot) * inputs_ + i] != regenerated;
      if (differs) names.push_back(in[i].name);
    }
    for (size_t i = 0; i < names.size(); ++i)
      out[slot] += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return out;
}

}  // namespace ptxbench
