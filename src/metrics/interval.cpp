// Wilson, Newcombe and seeded percentile bootstrap intervals used by every metric.
#include "metrics/interval.h"

#include <algorithm>
#include <cmath>

namespace ptxbench::metrics {

std::optional<double> Rate::value() const {
  if (n <= 0) return std::nullopt;
  return static_cast<double>(k) / static_cast<double>(n);
}
std::optional<Interval> Rate::wilson() const { return wilson_interval(k, n); }

std::optional<Interval> wilson_interval(long long k, long long n, double z) {
  if (n <= 0) return std::nullopt;
  const double nn = static_cast<double>(n), p = static_cast<double>(k) / nn, z2 = z * z;
  const double centre = p + z2 / (2 * nn);
  const double half = z * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
  const double denom = 1 + z2 / nn;
  return Interval{std::max(0.0, (centre - half) / denom), std::min(1.0, (centre + half) / denom)};
}

std::optional<Interval> newcombe_difference(const Rate& a, const Rate& b, double z) {
  auto ia = wilson_interval(a.k, a.n, z), ib = wilson_interval(b.k, b.n, z);
  if (!ia || !ib) return std::nullopt;
  const double pa = *a.value(), pb = *b.value(), d = pb - pa;
  return Interval{d - std::sqrt((pb - ib->lo) * (pb - ib->lo) + (ia->hi - pa) * (ia->hi - pa)),
                  d + std::sqrt((ib->hi - pb) * (ib->hi - pb) + (pa - ia->lo) * (pa - ia->lo))};
}

namespace {
uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Rng::Rng(uint64_t seed) {
  for (auto& s : s_) s = splitmix64(seed);
}

uint64_t Rng::next() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
  s_[2] ^= s_[0], s_[3] ^= s_[1], s_[1] ^= s_[2], s_[0] ^= s_[3], s_[2] ^= t, s_[3] = rotl(s_[3], 45);
  return result;
}

size_t Rng::below(size_t n) {
  // Rejection sampling: draws past the largest multiple of n are redrawn (no modulo bias).
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do x = next();
  while (x >= limit);
  return static_cast<size_t>(x % n);
}

uint64_t seed_for(uint64_t seed, const std::string& label) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : label) h = (h ^ c) * 0x100000001b3ULL;
  return seed ^ h;
}

double quantile_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t i = static_cast<size_t>(std::floor(pos));
  if (i + 1 >= v.size()) return v.back();
  return v[i] + (pos - static_cast<double>(i)) * (v[i + 1] - v[i]);
}

Interval bootstrap_percentile(size_t units, int resamples, uint64_t seed,
                              const std::function<double(const std::vector<size_t>&)>& statistic) {
  return bootstrap_percentile2(units, 0, resamples, seed,
                               [&](const std::vector<size_t>& a, const std::vector<size_t>&) { return statistic(a); });
}

Interval bootstrap_percentile2(
    size_t units_a, size_t units_b, int resamples, uint64_t seed,
    const std::function<double(const std::vector<size_t>&, const std::vector<size_t>&)>& statistic) {
  Rng rng(seed);
  std::vector<double> stats;
  stats.reserve(static_cast<size_t>(std::max(resamples, 0)));
  std::vector<size_t> a(units_a), b(units_b);
  for (int r = 0; r < resamples; ++r) {
    for (auto& i : a) i = rng.below(units_a);
    for (auto& i : b) i = rng.below(units_b);
    stats.push_back(statistic(a, b));
  }
  std::sort(stats.begin(), stats.end());
  return {quantile_sorted(stats, 0.025), quantile_sorted(stats, 0.975)};
}

}  // namespace ptxbench::metrics
