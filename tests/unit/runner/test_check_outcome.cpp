// A check outcome fails, naming the inputs, when a call modified them.
#include <gtest/gtest.h>

#include "runner/workload.h"

using namespace ptxbench;

TEST(CheckOutcome, ModifiedInputsFailTheCheckAndAreNamed) {
  CheckOutcome out{true, "all outputs within tolerance", json::object()};
  fail_if_inputs_modified(out, "K and dO");
  EXPECT_FALSE(out.passed);
  EXPECT_EQ(out.summary, "the candidate modified its input K and dO (inputs must be left unchanged)");
  EXPECT_EQ(out.detail["modified_inputs"], "K and dO");
}

TEST(CheckOutcome, UnchangedInputsLeaveTheOutcomeAsItWas) {
  CheckOutcome out{false, "dQ wrong on B=1 H=1 S=128 D=64", json::object()};
  fail_if_inputs_modified(out, "");
  EXPECT_FALSE(out.passed);
  EXPECT_EQ(out.summary, "dQ wrong on B=1 H=1 S=128 D=64");
  EXPECT_FALSE(out.detail.contains("modified_inputs"));
}
