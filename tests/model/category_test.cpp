#include <gtest/gtest.h>

#include <map>

#include "pathlock/model/category.hpp"

namespace pathlock::model {
namespace {

Path P(std::string_view s) { return Path::parse(s); }

TEST(Category, SinglePathPairs) {
  EXPECT_EQ(categorize(write(P("/a")).request(), read(P("/a/b")).request()),
            PairCategory::kWriteReadRelated);
  EXPECT_EQ(categorize(read(P("/a/b")).request(), write(P("/a")).request()),
            PairCategory::kWriteReadRelated);
  EXPECT_EQ(categorize(write(P("/a")).request(), remove(P("/")).request()),
            PairCategory::kWriteWriteRelated);
  EXPECT_EQ(categorize(write(P("/a/b")).request(), write(P("/a/bc")).request()),
            PairCategory::kWriteWriteUnrelated);
  EXPECT_EQ(categorize(read(P("/b")).request(), write(P("/a")).request()),
            PairCategory::kWriteReadUnrelated);
  EXPECT_EQ(categorize(read(P("/a")).request(), read(P("/a")).request()),
            PairCategory::kReadReadRelated);
  EXPECT_EQ(categorize(read(P("/a")).request(), read(P("/b")).request()),
            PairCategory::kReadReadUnrelated);
  EXPECT_EQ(categorize(copy(P("/a"), P("/b")).request(), read(P("/b")).request()), std::nullopt);
}

TEST(Category, OnlyRelatedPairsWithAWriteMustBlock) {
  for (const auto& c : all_categories()) {
    const bool has_write = c.first == Access::kWrite || c.second == Access::kWrite;
    EXPECT_EQ(c.must == Requirement::kBlock, has_write && c.relation == Relation::kRelated)
        << label(c.category);
    EXPECT_EQ(index_of(c.category) + 1, static_cast<std::size_t>(c.number));
  }
}

TEST(Category, LineageTableCellsAreTheirCategories) {
  // proofs/design.md, "Pair categories and scores": of the 10 distinct
  // cells, the 8 allowed are category 6 twice, 5 once, 4 three times and 3
  // twice; the 2 blocked are categories 1 and 2.
  std::map<int, int> allowed;
  std::map<int, int> blocked;
  for (std::size_t r = 0; r < kLineageAxes.size(); ++r) {
    for (std::size_t c = r; c < kLineageAxes.size(); ++c) {
      const auto& i = info(category_of_cell(kLineageAxes[r], kLineageAxes[c]));
      (i.must == Requirement::kAllow ? allowed : blocked)[i.number]++;
    }
  }
  EXPECT_EQ(allowed, (std::map<int, int>{{3, 2}, {4, 3}, {5, 1}, {6, 2}}));
  EXPECT_EQ(blocked, (std::map<int, int>{{1, 1}, {2, 1}}));
}

CategoryVerdicts blocking(std::initializer_list<int> numbers) {
  CategoryVerdicts v;
  v.fill(Verdict::kAllows);
  for (int n : numbers) v[static_cast<std::size_t>(n - 1)] = Verdict::kBlocks;
  return v;
}

TEST(Score, BothFormsFromVerdicts) {
  EXPECT_EQ(score_out_of_4(blocking({1, 2, 3, 4, 5, 6})), (Score{0, 4}));
  EXPECT_EQ(score_out_of_8(blocking({1, 2, 3, 4, 5, 6})), (Score{0, 8}));
  EXPECT_EQ(score_out_of_4(blocking({1, 2, 3, 4})), (Score{2, 4}));
  EXPECT_EQ(score_out_of_8(blocking({1, 2, 3, 4})), (Score{3, 8}));
  EXPECT_EQ(score_out_of_4(blocking({1, 2, 5})), (Score{3, 4}));
  EXPECT_EQ(score_out_of_8(blocking({1, 2, 5})), (Score{7, 8}));
  EXPECT_EQ(score_out_of_4(blocking({1, 2})), (Score{4, 4}));
  EXPECT_EQ(score_out_of_8(blocking({1, 2})), (Score{8, 8}));
  // Blocking a must-block category earns nothing, allowing it costs nothing:
  // safety is reported separately.
  EXPECT_EQ(score_out_of_8(blocking({})), (Score{8, 8}));
}

}  // namespace
}  // namespace pathlock::model
