// Listens for Xid and double-bit ECC events through NVML's event set on one long-lived thread.
#include "service/health/xid_events.h"

#include <nvml.h>

#include <thread>
#include <utility>

#include "service/health/nvml_library.h"

namespace ptxbench {
namespace {

using HandleByIndexFn = decltype(&nvmlDeviceGetHandleByIndex_v2);
using SetCreateFn = decltype(&nvmlEventSetCreate);
using SetFreeFn = decltype(&nvmlEventSetFree);
using SupportedFn = decltype(&nvmlDeviceGetSupportedEventTypes);
using RegisterFn = decltype(&nvmlDeviceRegisterEvents);
using WaitFn = decltype(&nvmlEventSetWait_v2);

class NvmlXidSource final : public XidSource {
 public:
  explicit NvmlXidSource(const std::vector<int>& devices) {
    NvmlLibrary& nvml = NvmlLibrary::instance();
    if (!nvml.available()) {
      status_ = "not watched: " + nvml.error();
      return;
    }
    auto by_index = reinterpret_cast<HandleByIndexFn>(nvml.symbol("nvmlDeviceGetHandleByIndex_v2"));
    auto create = reinterpret_cast<SetCreateFn>(nvml.symbol("nvmlEventSetCreate"));
    auto supported = reinterpret_cast<SupportedFn>(nvml.symbol("nvmlDeviceGetSupportedEventTypes"));
    auto reg = reinterpret_cast<RegisterFn>(nvml.symbol("nvmlDeviceRegisterEvents"));
    free_ = reinterpret_cast<SetFreeFn>(nvml.symbol("nvmlEventSetFree"));
    wait_ = reinterpret_cast<WaitFn>(nvml.symbol("nvmlEventSetWait_v2"));
    if (!by_index || !create || !supported || !reg || !free_ || !wait_) {
      status_ = "not watched: this NVML lacks the event functions";
      return;
    }
    if (nvmlReturn_t e = create(&set_); e != NVML_SUCCESS) {
      status_ = "not watched: nvmlEventSetCreate returned " + std::to_string(e);
      set_ = nullptr;
      return;
    }
    std::string watched, refused;
    for (int d : devices) {
      nvmlDevice_t h = nullptr;
      unsigned long long types = 0;
      const unsigned long long wanted = nvmlEventTypeXidCriticalError | nvmlEventTypeDoubleBitEccError;
      nvmlReturn_t e = by_index(static_cast<unsigned>(d), &h);
      if (e == NVML_SUCCESS) e = supported(h, &types);
      if (e == NVML_SUCCESS && (types & wanted) == 0) e = NVML_ERROR_NOT_SUPPORTED;
      if (e == NVML_SUCCESS) e = reg(h, types & wanted, set_);
      std::string& list = e == NVML_SUCCESS ? watched : refused;
      list += (list.empty() ? "" : ", ") + ("GPU " + std::to_string(d)) +
              (e == NVML_SUCCESS ? "" : " (NVML error " + std::to_string(e) + ")");
      if (e == NVML_SUCCESS) handles_.emplace_back(h, d);
    }
    status_ = handles_.empty() ? "not watched: event registration refused for " + refused
                               : "watching Xid and double-bit ECC events on " + watched +
                                     (refused.empty() ? "" : "; refused for " + refused);
  }
  ~NvmlXidSource() override {
    if (set_ && free_) free_(set_);
  }
  bool available() const override { return !handles_.empty(); }
  std::string status() const override { return status_; }

  std::optional<XidEvent> wait(std::chrono::milliseconds timeout) override {
    if (!available()) {
      std::this_thread::sleep_for(timeout);
      return std::nullopt;
    }
    nvmlEventData_t data{};
    if (wait_(set_, &data, static_cast<unsigned>(timeout.count())) != NVML_SUCCESS) return std::nullopt;  // timeout
    XidEvent ev;
    for (const auto& [h, d] : handles_)
      if (h == data.device) ev.device = d;
    ev.double_bit_ecc = data.eventType == nvmlEventTypeDoubleBitEccError;
    ev.xid = ev.double_bit_ecc ? 0 : data.eventData;
    return ev;
  }

 private:
  std::string status_;
  nvmlEventSet_t set_ = nullptr;
  SetFreeFn free_ = nullptr;
  WaitFn wait_ = nullptr;
  std::vector<std::pair<nvmlDevice_t, int>> handles_;
};

}  // namespace

std::unique_ptr<XidSource> make_nvml_xid_source(const std::vector<int>& devices) {
  return std::make_unique<NvmlXidSource>(devices);
}

}  // namespace ptxbench
