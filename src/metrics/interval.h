// Confidence intervals used by every metric: Wilson score intervals on rates, Newcombe's hybrid
// score interval on a difference of two rates, and percentile bootstrap intervals over
// trajectories (a fixed seed, so the same input gives the same interval). docs/metrics.md.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ptxbench::metrics {

inline constexpr double kZ95 = 1.959963984540054;  // two-sided 95%

struct Interval {
  double lo = 0, hi = 0;
};

// Rate k/n with its 95% Wilson score interval; nullopt when n == 0.
struct Rate {
  long long k = 0, n = 0;
  std::optional<double> value() const;
  std::optional<Interval> wilson() const;
};
std::optional<Interval> wilson_interval(long long k, long long n, double z = kZ95);

// Newcombe (1998) method 10: the difference b - a of two independent rates, from their Wilson
// intervals. nullopt when either n is 0.
std::optional<Interval> newcombe_difference(const Rate& a, const Rate& b, double z = kZ95);

// A deterministic generator (splitmix64 seeding xoshiro256**) and an unbiased index draw, so the
// bootstrap gives the same numbers with every standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t next();
  size_t below(size_t n);  // uniform in [0, n), n > 0

 private:
  uint64_t s_[4];
};

// FNV-1a of a text: seeds one bootstrap per group so a group's interval does not depend on
// which other groups are in the report.
uint64_t seed_for(uint64_t seed, const std::string& label);

// Percentile interval (2.5% and 97.5%, linear interpolation between order statistics) of
// `statistic` over `resamples` resamples with replacement of `units` indices.
Interval bootstrap_percentile(size_t units, int resamples, uint64_t seed,
                              const std::function<double(const std::vector<size_t>&)>& statistic);
// The same for a statistic of two independent samples (each resampled on its own).
Interval bootstrap_percentile2(
    size_t units_a, size_t units_b, int resamples, uint64_t seed,
    const std::function<double(const std::vector<size_t>&, const std::vector<size_t>&)>& statistic);

// Linear-interpolation quantile (type 7) of sorted values, q in [0, 1].
double quantile_sorted(const std::vector<double>& sorted, double q);

}  // namespace ptxbench::metrics
