#include "pathlock/model/category.hpp"

#include <fmt/format.h>

#include "pathlock/model/conflict.hpp"

namespace pathlock::model {
namespace {

constexpr std::array<CategoryInfo, kCategoryCount> kCategories{{
    {PairCategory::kWriteReadRelated, 1, Access::kWrite, Access::kRead, Relation::kRelated,
     Requirement::kBlock},
    {PairCategory::kWriteWriteRelated, 2, Access::kWrite, Access::kWrite, Relation::kRelated,
     Requirement::kBlock},
    {PairCategory::kWriteWriteUnrelated, 3, Access::kWrite, Access::kWrite, Relation::kUnrelated,
     Requirement::kAllow},
    {PairCategory::kWriteReadUnrelated, 4, Access::kWrite, Access::kRead, Relation::kUnrelated,
     Requirement::kAllow},
    {PairCategory::kReadReadRelated, 5, Access::kRead, Access::kRead, Relation::kRelated,
     Requirement::kAllow},
    {PairCategory::kReadReadUnrelated, 6, Access::kRead, Access::kRead, Relation::kUnrelated,
     Requirement::kAllow},
}};

constexpr std::array<std::string_view, kCategoryCount> kLabels{
    "W, R related", "W, W related", "W, W unrelated",
    "W, R unrelated", "R, R related", "R, R unrelated"};

}  // namespace

std::span<const CategoryInfo, kCategoryCount> all_categories() noexcept { return kCategories; }

std::size_t index_of(PairCategory category) noexcept {
  return static_cast<std::size_t>(category) - 1;
}

const CategoryInfo& info(PairCategory category) noexcept { return kCategories[index_of(category)]; }

std::string_view label(PairCategory category) noexcept { return kLabels[index_of(category)]; }

std::string_view to_string(Access access) noexcept { return access == Access::kRead ? "R" : "W"; }
std::string_view to_string(Requirement requirement) noexcept {
  return requirement == Requirement::kBlock ? "block" : "allow";
}
std::string_view to_string(Verdict verdict) noexcept {
  return verdict == Verdict::kBlocks ? "blocks" : "allows";
}

PairCategory categorize(Access a, Access b, Relation relation) noexcept {
  for (const auto& c : kCategories) {
    const bool same = (c.first == a && c.second == b) || (c.first == b && c.second == a);
    if (same && c.relation == relation) return c.category;
  }
  return PairCategory::kReadReadUnrelated;  // unreachable: the table covers every case
}

std::optional<PairCategory> categorize(const Request& a, const Request& b) {
  if (!a.is_single_path() || !b.is_single_path()) return std::nullopt;
  const Relation rel =
      related(a.single_path(), b.single_path()) ? Relation::kRelated : Relation::kUnrelated;
  return categorize(a.single_access(), b.single_access(), rel);
}

std::string label(LineageAxis axis) {
  return fmt::format("{}({})", to_string(axis.access),
                     axis.side == LineageSide::kLineage ? "L(p)" : "Lc(p)");
}

PairCategory category_of_cell(LineageAxis row, LineageAxis column) noexcept {
  const bool both_in_lineage =
      row.side == LineageSide::kLineage && column.side == LineageSide::kLineage;
  return categorize(row.access, column.access,
                    both_in_lineage ? Relation::kRelated : Relation::kUnrelated);
}

Score score_out_of_4(const CategoryVerdicts& verdicts) noexcept {
  Score s{0, 0};
  for (const auto& c : kCategories) {
    if (c.must != Requirement::kAllow) continue;
    ++s.possible;
    if (verdicts[index_of(c.category)] == Verdict::kAllows) ++s.achieved;
  }
  return s;
}

Score score_out_of_8(const CategoryVerdicts& verdicts) noexcept {
  Score s{0, 0};
  for (std::size_t r = 0; r < kLineageAxes.size(); ++r) {
    for (std::size_t c = r; c < kLineageAxes.size(); ++c) {  // the 10 distinct cells
      const PairCategory cat = category_of_cell(kLineageAxes[r], kLineageAxes[c]);
      if (info(cat).must != Requirement::kAllow) continue;
      ++s.possible;
      if (verdicts[index_of(cat)] == Verdict::kAllows) ++s.achieved;
    }
  }
  return s;
}

}  // namespace pathlock::model
