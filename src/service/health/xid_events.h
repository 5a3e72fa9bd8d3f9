// Where the reliability monitor hears of Xid and double-bit ECC events: NVML's event set, read
// by one long-lived thread of the serving process (a one-shot health probe cannot see events of
// the past). A host without the driver, or a driver that refuses event registration (some
// containers), gives a source that is not available and says why: the monitor then relies on
// its probes alone and `service status` says so.
#pragma once
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptxbench {

struct XidEvent {
  int device = -1;             // NVML index (= CUDA ordinal under CUDA_DEVICE_ORDER=PCI_BUS_ID)
  unsigned long long xid = 0;  // 0 for a double-bit ECC event
  bool double_bit_ecc = false;
};

class XidSource {
 public:
  virtual ~XidSource() = default;
  virtual bool available() const = 0;
  virtual std::string status() const = 0;  // what is watched, or why nothing is
  // The next event, or nothing after `timeout`.
  virtual std::optional<XidEvent> wait(std::chrono::milliseconds timeout) = 0;
};

// NVML's events for these devices (NVML indices).
std::unique_ptr<XidSource> make_nvml_xid_source(const std::vector<int>& devices);

}  // namespace ptxbench
