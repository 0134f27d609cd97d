#pragma once
// Pair categories and concurrency scores (proofs/design.md, "Pair categories
// and scores").
//
// For two single-path requests on paths a and b, the category is the pair of
// accesses and whether a and b are related:
//
//   #  pair  related  must
//   1  W, R  yes      block
//   2  W, W  yes      block
//   3  W, W  no       allow
//   4  W, R  no       allow
//   5  R, R  yes      allow
//   6  R, R  no       allow
//
// Score out of 4 (the design notes' six-row table): categories 3-6 that a
// scheme never blocks.
// Score out of 8 (the design notes' lineage table): the symmetric 4x4 table
// over R(Lc(p)), R(L(p)), W(Lc(p)), W(L(p)); a cell whose two sides are
// both L(p) is a related pair, any cell with an Lc(p) side is an unrelated
// one. Of its 10 distinct cells, 8 must allow (category 6 twice, 5 once, 4 three times, 3 twice) and 2 must
// block (categories 1 and 2).

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "pathlock/model/request.hpp"

namespace pathlock::model {

enum class PairCategory : std::uint8_t {
  kWriteReadRelated = 1,
  kWriteWriteRelated = 2,
  kWriteWriteUnrelated = 3,
  kWriteReadUnrelated = 4,
  kReadReadRelated = 5,
  kReadReadUnrelated = 6,
};
inline constexpr std::size_t kCategoryCount = 6;

enum class Relation { kRelated, kUnrelated };
enum class Requirement { kBlock, kAllow };
enum class Verdict { kAllows, kBlocks };

struct CategoryInfo {
  PairCategory category;
  int number;         // 1..6, as in the design notes
  Access first;       // the stronger access first: W before R
  Access second;
  Relation relation;
  Requirement must;
};

std::span<const CategoryInfo, kCategoryCount> all_categories() noexcept;
const CategoryInfo& info(PairCategory category) noexcept;
std::size_t index_of(PairCategory category) noexcept;  // 0..5
// "W, R related".
std::string_view label(PairCategory category) noexcept;
std::string_view to_string(Access access) noexcept;        // "R" / "W"
std::string_view to_string(Requirement requirement) noexcept;  // "block" / "allow"
std::string_view to_string(Verdict verdict) noexcept;      // "allows" / "blocks"

// The category of two single-path requests; nullopt if either names more than
// one path.
std::optional<PairCategory> categorize(const Request& a, const Request& b);
PairCategory categorize(Access a, Access b, Relation relation) noexcept;

// --- The 4x4 lineage table ---------------------------------------------------
enum class LineageSide { kComplement, kLineage };  // Lc(p) or L(p)
struct LineageAxis {
  Access access;
  LineageSide side;
};
// The design notes' axis order: R(Lc(p)), R(L(p)), W(Lc(p)), W(L(p)).
inline constexpr std::array<LineageAxis, 4> kLineageAxes{{
    {Access::kRead, LineageSide::kComplement},
    {Access::kRead, LineageSide::kLineage},
    {Access::kWrite, LineageSide::kComplement},
    {Access::kWrite, LineageSide::kLineage},
}};
// "R(Lc(p))".
std::string label(LineageAxis axis);
PairCategory category_of_cell(LineageAxis row, LineageAxis column) noexcept;

// --- Scores -------------------------------------------------------------------
// A scheme's verdict on every category, indexed by index_of(category).
using CategoryVerdicts = std::array<Verdict, kCategoryCount>;

struct Score {
  int achieved;
  int possible;
  friend bool operator==(const Score&, const Score&) = default;
};
Score score_out_of_4(const CategoryVerdicts& verdicts) noexcept;
Score score_out_of_8(const CategoryVerdicts& verdicts) noexcept;

}  // namespace pathlock::model
