// The store's in-memory BM25 index (store/text_index.h), which the repair notes' retrieval reads.
#include <gtest/gtest.h>

#include "store/text_index.h"

using namespace ptxbench;

TEST(TextIndex, MatchesRankByBm25WithThePrimaryFieldWeighedMore) {
  TextIndex idx("test index");
  idx.add(0, "runtime error illegal address", "wgmma tma", "a");
  idx.add(1, "incorrect tolerance", "wgmma tma mbarrier", "b");
  idx.add(2, "compile error", "illegal", "c");  // the word only among the features
  const auto m = idx.search({"illegal"}, 2.0);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].document, 0u) << "the signature's word weighs twice the feature's";
  EXPECT_EQ(m[1].document, 2u);
  EXPECT_GT(m[0].score, m[1].score);
  EXPECT_TRUE(idx.search({"nothing"}, 2.0).empty());
  EXPECT_TRUE(idx.search({}, 2.0).empty());
}

TEST(TextIndex, TiesKeepTheOrderTheDocumentsWereAdded) {
  TextIndex idx("test index");
  for (size_t i = 0; i < 4; ++i) idx.add(i, "same words", "same", "doc");
  const auto m = idx.search({"same"}, 2.0);
  ASSERT_EQ(m.size(), 4u);
  for (size_t i = 0; i < m.size(); ++i) EXPECT_EQ(m[i].document, i);
}
