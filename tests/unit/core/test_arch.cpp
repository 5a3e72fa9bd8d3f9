#include <gtest/gtest.h>

#include "core/arch.h"
#include "core/error.h"

using namespace ptxbench;

TEST(Arch, KnownArchsMapToTheirGpuAndPack) {
  EXPECT_EQ(arch_info("sm_90a").compute_capability, "9.0");
  EXPECT_EQ(arch_info("sm_90a").pack, "hopper");
  EXPECT_EQ(arch_info("sm_100a").compute_capability, "10.0");
  EXPECT_EQ(arch_info("sm_100a").pack, "blackwell");
}

TEST(Arch, UnknownArchListsTheKnownOnes) {
  try {
    arch_info("sm_80");
    FAIL();
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("sm_80"), std::string::npos);
    EXPECT_NE(what.find("sm_90a"), std::string::npos);
    EXPECT_NE(what.find("sm_100a"), std::string::npos);
  }
}
