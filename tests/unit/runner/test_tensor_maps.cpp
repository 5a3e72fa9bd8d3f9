// Issue 30: the bytes a TMA copy moves, as the harness knows them without patching code: the box
// of each tensor map the candidate encoded, and which maps each kernel was launched with; and the
// stream a driver call's work goes to, read from its parameters.
#include <gtest/gtest.h>

#include <cupti.h>

#include "runner/integrity/stream_argument.h"
#include "runner/integrity/tensor_maps.h"

using namespace ptxbench;

namespace {

std::string image(char fill) { return std::string(kTensorMapBytes, fill); }

}  // namespace

TEST(TensorMaps, TheBoxBytesFollowTheTypeTheBoxAndTheElementStrides) {
  EXPECT_DOUBLE_EQ(*tiled_box_bytes(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, {64, 128}, {1, 1}), 64 * 128 * 2);
  EXPECT_DOUBLE_EQ(*tiled_box_bytes(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, {64, 128}, {}), 64 * 128 * 4);
  EXPECT_DOUBLE_EQ(*tiled_box_bytes(CU_TENSOR_MAP_DATA_TYPE_UINT8, {128, 64, 2}, {2, 1, 1}),
                   64 * 64 * 2);  // every 2nd element
  EXPECT_DOUBLE_EQ(*im2col_box_bytes(CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 64, 32), 64 * 32 * 2);
  EXPECT_FALSE(tiled_box_bytes(99, {64}, {}));
  EXPECT_FALSE(tiled_box_bytes(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, {}, {}));
  EXPECT_FALSE(tiled_box_bytes(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, {64, 64}, {1}));
}

// A decoy: a 256x256 box over a 4x8 tensor moves 32 elements from memory per copy (the rest is
// fill), so it is credited with those, not with 128 KiB; a box inside its tensor is unchanged.
TEST(TensorMaps, TheBoxIsClippedByTheTensorsOwnDims) {
  EXPECT_DOUBLE_EQ(*tiled_box_bytes(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, {256, 256}, {}, {8, 4}), 8 * 4 * 2);
  EXPECT_DOUBLE_EQ(*tiled_box_bytes(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, {64, 128}, {1, 1}, {4096, 4096}), 64 * 128 * 2);
  EXPECT_DOUBLE_EQ(*tiled_box_bytes(CU_TENSOR_MAP_DATA_TYPE_UINT8, {128, 64}, {2, 1}, {10, 4096}),
                   5 * 64);                                                             // clip, then stride
  EXPECT_FALSE(tiled_box_bytes(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, {64, 64}, {}, {64}));  // ranks disagree
}

TEST(TensorMaps, AKernelIsCreditedWithTheSmallestKnownBoxItWasGiven) {
  TensorMapTable t;
  t.encoded(image('a'), 16384);
  t.encoded(image('b'), 512);
  t.encoded(image('c'), 65536);
  EXPECT_FALSE(t.maps_of("k"));
  t.launched("k", {image('a'), image('x')});  // 'x' was never encoded (a hand-made map, or no map at all)
  ASSERT_TRUE(t.maps_of("k"));
  EXPECT_DOUBLE_EQ(t.maps_of("k")->min_box_bytes, 16384);
  EXPECT_EQ(t.maps_of("k")->maps, 1);
  // A large map given to the kernel as well cannot raise the credit; a small one lowers it.
  t.launched("k", {image('c')});
  EXPECT_DOUBLE_EQ(t.maps_of("k")->min_box_bytes, 16384);
  t.launched("k", {image('b')});
  EXPECT_DOUBLE_EQ(t.maps_of("k")->min_box_bytes, 512);
  EXPECT_EQ(t.maps_of("k")->maps, 3);
  // Only 128-byte images are maps; a kernel given only unknown ones has none.
  t.encoded(std::string(64, 'z'), 1 << 20);
  t.launched("other", {image('x')});
  EXPECT_FALSE(t.maps_of("other"));
  EXPECT_TRUE(t.box_of(image('a')));
  EXPECT_FALSE(t.box_of(image('x')));
}

// Issue 45: a box far larger than its tensor (a 256x256 box over a 16x16 corner) moves 512 bytes a
// copy and fills 128 KiB; the timed calls' TMA bytes are credited at the smallest fill of the maps
// that kernels were launched with, a map no kernel was given changing nothing.
TEST(TensorMaps, TheSmallestFillOfTheMapsKernelsWereGivenIsKept) {
  TensorMapTable t;
  EXPECT_DOUBLE_EQ(t.min_fill(), 1.0);
  const double moved = *tiled_box_bytes(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, {256, 256}, {}, {16, 16});
  const double filled = *tiled_box_bytes(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, {256, 256}, {});
  EXPECT_DOUBLE_EQ(moved, 512);
  EXPECT_DOUBLE_EQ(filled, 131072);
  t.encoded(image('a'), MapBox{16384, 16384});
  t.encoded(image('t'), MapBox{moved, filled});
  t.launched("k", {image('a')});
  EXPECT_DOUBLE_EQ(t.min_fill(), 1.0);  // the tiny map was encoded but never given to a kernel
  EXPECT_DOUBLE_EQ(t.maps_of("k")->min_fill, 1.0);
  t.launched("side", {image('t')});
  EXPECT_DOUBLE_EQ(t.min_fill(), 512.0 / 131072);
  EXPECT_DOUBLE_EQ(t.maps_of("side")->min_fill, 512.0 / 131072);
  EXPECT_DOUBLE_EQ(t.box_of(image('t'))->filled, 131072);
}

TEST(StreamArgument, TheStreamOfCopiesPrefetchesEventsWaitsAndLaunchesIsRead) {
  const auto s = reinterpret_cast<CUstream>(0x1234);
  cuMemPrefetchAsync_v2_params prefetch{};
  prefetch.hStream = s;
  EXPECT_EQ(stream_argument("cuMemPrefetchAsync_v2_ptsz", &prefetch), s);
  cuStreamWaitEvent_params wait{};
  wait.hStream = s;
  EXPECT_EQ(stream_argument("cuStreamWaitEvent", &wait), s);
  cuStreamWriteValue32_v2_params write{};
  write.stream = s;
  EXPECT_EQ(stream_argument("cuStreamWriteValue32_v2", &write), s);
  CUlaunchConfig config{};
  config.hStream = s;
  cuLaunchKernelEx_params ex{};
  ex.config = &config;
  EXPECT_EQ(stream_argument("cuLaunchKernelEx_ptsz", &ex), s);
  cuStreamQuery_params query{};
  query.hStream = s;
  EXPECT_FALSE(stream_argument("cuStreamQuery", &query)) << "a query enqueues nothing";
  EXPECT_FALSE(stream_argument("cuMemPrefetchAsync_v2", nullptr));
}
