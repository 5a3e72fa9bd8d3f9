// A call's work from the GPU's hardware counters through the range profiler, per the chip's formula.
#include "runner/integrity/work_counters.h"

#include "core/error.h"

namespace ptxbench {

std::unique_ptr<WorkCounters> WorkCounters::create(CUcontext ctx, int device, size_t max_ranges,
                                                   const std::string& math_class, std::string* why) {
  std::unique_ptr<WorkCounters> c(new WorkCounters);
  c->profiler_ = RangeProfiler::create(
      ctx, device, max_ranges,
      [&](const std::string& chip, const uint8_t*) {
        auto f = work_formula(chip, math_class);
        if (!f) fail("no work formula for " + math_class + " operands on chip " + chip);
        c->formula_ = *f;
        return f->metrics();
      },
      why);
  if (!c->profiler_) return nullptr;
  return c;
}

std::vector<CallWork> WorkCounters::stop() {
  std::vector<CallWork> out;
  const auto& names = profiler_->metrics();
  for (auto& r : profiler_->stop()) {
    CallWork w;
    w.range = r.range;
    for (size_t i = 0; i < names.size() && i < r.values.size(); ++i) w.values[names[i]] = r.values[i];
    out.push_back(std::move(w));
  }
  return out;
}

std::string check_work_formula(const std::string& chip, const std::string& math_class) {
  const auto f = work_formula(chip, math_class);
  if (!f) return "no work formula for " + math_class + " operands on chip " + chip;
  try {
    if (const size_t p = passes_of(chip, nullptr, f->metrics()); p != 1)
      return "the " + math_class + " work formula needs " + std::to_string(p) + " passes on " + chip;
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

}  // namespace ptxbench
