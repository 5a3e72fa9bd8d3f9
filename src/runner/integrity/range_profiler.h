// CUPTI's range profiler over any list of metrics that fits ONE pass of the hardware counters: user
// ranges, replayed by nobody, so nothing is patched and no call runs twice. Each range's value per
// metric, in the order given (NaN: not collected). The work counters (work_counters.h) and the
// counter-semantics probe (bench/counter_semantics) are built on it.
#pragma once
#include <cuda.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ptxbench {

// How many passes `metrics` need on `chip` (CUPTI's host side, no GPU); `availability` is the
// device's counter availability image, or null for the chip's full set. Throws, naming a metric
// the chip does not know.
size_t passes_of(const std::string& chip, const uint8_t* availability, const std::vector<std::string>& metrics);

struct RangeValues {
  std::string range;
  std::vector<double> values;  // one per metric, in the profiler's order; NaN: not collected
};

class RangeProfiler {
 public:
  // `choose(chip, availability)` names the metrics once the chip (CUPTI's name: "GH100",
  // "GB100"...) and the device's counter availability image are known; it may throw Error. Null with
  // `why` set when this GPU, driver or chip cannot count them in one pass (a tool's reason, or
  // choose's). `ctx` null: the calling thread's current context.
  using Chooser = std::function<std::vector<std::string>(const std::string& chip, const uint8_t* availability)>;
  static std::unique_ptr<RangeProfiler> create(CUcontext ctx, int device, size_t max_ranges, const Chooser& choose,
                                               std::string* why);
  ~RangeProfiler();
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;

  const std::string& chip() const { return chip_; }
  const std::vector<std::string>& metrics() const { return metrics_; }
  void start();                         // a session: ranges may be pushed from now on (sessions may repeat)
  void push(const std::string& range);  // the next work enqueued belongs to this range (same-named
                                        // ranges of one session add up: name each one apart)
  void pop();
  std::vector<RangeValues> stop();  // after the session's work completed: each range's values

 private:
  RangeProfiler() = default;
  struct State;
  std::unique_ptr<State> s_;
  std::string chip_;
  std::vector<std::string> metrics_;
};

}  // namespace ptxbench
