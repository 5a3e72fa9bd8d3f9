// The eval job's correctness list: the drawn shapes are new ones, so that each check adds a shape
// the fixed lists do not already check (and a pooled set's reference is asked for by one item).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "judge/stages/worker_jobs.h"

using namespace ptxbench;

namespace {

ProblemSpec gemm_with_a_small_draw_space() {
  ProblemSpec p = load_problem(std::filesystem::path(PTXBENCH_SOURCE_DIR) / "problems" / "gemm");
  // 2 x 3 x 3 = 18 shapes to draw from, two of them hidden ones: a draw lands on one of them
  // about once in nine, so the 2 x 300 draws below would meet them without the redraw.
  p.random_shape_max = {{"M", 256}, {"N", 384}, {"K", 192}};
  p.hidden_shapes = {{{"M", 128}, {"N", 128}, {"K", 64}}, {{"M", 256}, {"N", 384}, {"K", 192}}};
  return p;
}

}  // namespace

TEST(WorkerJobs, DrawnShapesAreNeverOnesTheFixedListsAlreadyCheck) {
  const ProblemSpec p = gemm_with_a_small_draw_space();
  ASSERT_EQ(p.random_hidden_shapes, 2);
  EvalOptions o;
  const WorkerJob base = base_job(p, "candidate.so", 1, 0);
  std::set<Shape> seen_drawn;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const WorkerJob job = eval_job(base, p, o, seed);
    std::vector<Shape> fixed, drawn;
    for (const auto& item : job.correctness) (item.drawn ? drawn : fixed).push_back(item.shape.get<Shape>());
    ASSERT_EQ(drawn.size(), 2u);
    for (const auto& d : drawn) {
      EXPECT_EQ(std::count(fixed.begin(), fixed.end(), d), 0)
          << "seed " << seed << " drew a fixed shape " << json(d).dump();
      seen_drawn.insert(d);
    }
    EXPECT_NE(drawn[0], drawn[1]) << "seed " << seed << " drew one shape twice";
  }
  // Still drawn: every one of the 16 other shapes turns up.
  EXPECT_EQ(seen_drawn.size(), 16u);
}
