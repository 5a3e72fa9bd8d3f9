// Wilson, Newcombe and the bootstrap against published or hand-computed values.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "metrics/interval.h"

using namespace ptxbench::metrics;

TEST(Wilson, PublishedValues) {
  // Newcombe (1998), Table I: 81/263 -> [0.2553, 0.3662]; 15/148 -> [0.0624, 0.1605]; 0/20 -> [0, 0.1611].
  auto a = wilson_interval(81, 263), b = wilson_interval(15, 148), c = wilson_interval(0, 20);
  EXPECT_NEAR(a->lo, 0.2553, 1e-4);
  EXPECT_NEAR(a->hi, 0.3662, 1e-4);
  EXPECT_NEAR(b->lo, 0.0624, 1e-4);
  EXPECT_NEAR(b->hi, 0.1605, 1e-4);
  EXPECT_EQ(c->lo, 0);
  EXPECT_NEAR(c->hi, 0.1611, 1e-4);
  auto all = wilson_interval(20, 20);
  EXPECT_NEAR(all->lo, 1 - 0.1611, 1e-4);
  EXPECT_EQ(all->hi, 1);
  EXPECT_FALSE(wilson_interval(0, 0));
}

TEST(Newcombe, PublishedDifference) {
  // Newcombe (1998) Table II, method 10: 56/70 - 48/80 = 0.2000, 95% CI [0.0524, 0.3339].
  auto d = newcombe_difference(Rate{48, 80}, Rate{56, 70});
  ASSERT_TRUE(d);
  EXPECT_NEAR(d->lo, 0.0524, 1e-4);
  EXPECT_NEAR(d->hi, 0.3339, 1e-4);
  EXPECT_FALSE(newcombe_difference(Rate{0, 0}, Rate{1, 2}));
}

TEST(Bootstrap, FixedSeedGivesTheSameIntervalAndItCoversTheMean) {
  const std::vector<double> v = {0.2, 0.9, 0.4, 0.5, 0.7, 0.1, 0.3, 0.8, 0.6, 0.55, 0.45, 0.65};
  auto mean = [&](const std::vector<size_t>& idx) {
    double s = 0;
    for (size_t i : idx) s += v[i];
    return s / static_cast<double>(idx.size());
  };
  const auto a = bootstrap_percentile(v.size(), 2000, 7, mean), b = bootstrap_percentile(v.size(), 2000, 7, mean);
  EXPECT_EQ(a.lo, b.lo);
  EXPECT_EQ(a.hi, b.hi);
  const auto c = bootstrap_percentile(v.size(), 2000, 8, mean);
  EXPECT_NE(a.lo, c.lo);
  // The sample mean is 0.5125 and its standard error about 0.066: the 95% interval spans about
  // +-0.13 around it.
  EXPECT_LT(a.lo, 0.5125);
  EXPECT_GT(a.hi, 0.5125);
  EXPECT_NEAR(a.hi - a.lo, 2 * 1.96 * 0.0663, 0.04);
}

TEST(Bootstrap, TheGeneratorDrawsEveryIndexWithoutBias) {
  Rng rng(1);
  std::vector<int> counts(3, 0);
  for (int i = 0; i < 30000; ++i) ++counts[rng.below(3)];
  for (int n : counts) EXPECT_NEAR(n, 10000, 400);
  // Seeds from different labels differ; the same label gives the same seed.
  EXPECT_NE(seed_for(1, "a"), seed_for(1, "b"));
  EXPECT_EQ(seed_for(1, "a"), seed_for(1, "a"));
}

TEST(Quantile, LinearInterpolation) {
  EXPECT_DOUBLE_EQ(quantile_sorted({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile_sorted({1, 2, 3, 4}, 0), 1);
  EXPECT_DOUBLE_EQ(quantile_sorted({1, 2, 3, 4}, 1), 4);
  EXPECT_DOUBLE_EQ(quantile_sorted({5}, 0.3), 5);
}
