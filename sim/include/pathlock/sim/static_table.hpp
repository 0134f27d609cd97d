#pragma once
// The static concurrency table of a scheme, computed from its plans.
//
// Every unordered pair of operations over a generated tree (the same operation
// twice included) is judged twice, independently:
//   the specification  model::conflicts(A, B)              (the oracle)
//   the scheme         impl::plans_conflict(plan(A), plan(B))
// and the results are folded into:
//   - the six pair categories (single-path pairs): a category is blocked iff
//     some pair of it has conflicting plans (one blocked pair is enough to
//     call the category blocked);
//   - both scores, derived from the category verdicts;
//   - unsafe pairs: the requests conflict but the plans can be held together;
//   - over-blocked pairs: the plans conflict but the requests do not.
// Witnesses are the first pairs found, and pairs are visited smallest first.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pathlock/impl/plan.hpp"
#include "pathlock/impl/scheme.hpp"
#include "pathlock/model/category.hpp"
#include "pathlock/model/conflict.hpp"
#include "pathlock/sim/plan_claims.hpp"
#include "pathlock/sim/tree.hpp"

namespace pathlock::sim {

// Two operations, their plans, and why they do or do not conflict.
struct PairWitness {
  model::Operation first;
  model::Operation second;
  impl::Plan first_plan;
  impl::Plan second_plan;
  std::optional<impl::PlanConflict> lock_conflict;       // set iff the plans conflict
  std::optional<model::ConflictWitness> spec_conflict;  // set iff the requests conflict
};

struct CategoryResult {
  model::PairCategory category;
  model::Verdict verdict = model::Verdict::kAllows;
  std::uint64_t pairs = 0;          // pairs of this category enumerated
  std::uint64_t blocked_pairs = 0;  // of which the plans conflict
  // For a category that must be allowed: a pair the scheme blocks.
  // For a category that must be blocked: a pair the scheme allows.
  std::optional<PairWitness> witness;
};

// Counts for one pair of operation kinds (first <= second).
struct KindPairResult {
  model::OpKind first;
  model::OpKind second;
  std::uint64_t pairs = 0;
  std::uint64_t conflicting = 0;  // the requests conflict
  std::uint64_t blocked = 0;      // the plans conflict
  std::uint64_t unsafe = 0;       // conflicting, yet not blocked
  std::uint64_t over_blocked = 0; // blocked, yet not conflicting
};

inline constexpr std::size_t kMaxUnsafeWitnesses = 5;

struct SchemeTable {
  const impl::Scheme* scheme = nullptr;
  std::array<CategoryResult, model::kCategoryCount> categories;
  model::CategoryVerdicts verdicts{};
  model::Score score4{0, 0};
  model::Score score8{0, 0};
  std::uint64_t pairs = 0;
  std::uint64_t conflicting_pairs = 0;
  std::uint64_t unsafe_pairs = 0;
  std::vector<PairWitness> unsafe_witnesses;  // the first kMaxUnsafeWitnesses
  std::uint64_t over_blocked_pairs = 0;
  std::optional<PairWitness> over_blocked_witness;
  std::vector<KindPairResult> by_kind;
  std::vector<impl::JoinDefect> join_defects;
  // The scheme's claims checked on the plans above, and how the pairs were
  // judged: by the merge only if every claim held (plan_claims.hpp).
  PlanClaims claims;

  bool safe() const noexcept { return unsafe_pairs == 0; }
  // Plans conflict exactly when the requests do.
  bool exact() const noexcept { return unsafe_pairs == 0 && over_blocked_pairs == 0; }
};

// A pair on which the model's two formulations disagree (the bug is then in
// the model, not in a scheme): on whether they conflict (model::conflicts
// against model::key_prefix::conflicts), or on their category
// (model::categorize against model::key_prefix::category_number).
enum class ModelPredicate : std::uint8_t { kConflicts, kCategory };
struct ModelDisagreement {
  model::Operation first;
  model::Operation second;
  ModelPredicate predicate = ModelPredicate::kConflicts;
  bool primary_conflicts = false;  // model::conflicts
  bool second_conflicts = false;   // model::key_prefix::conflicts
  std::optional<int> primary_category;  // kCategory: the categories' numbers, if any
  std::optional<int> second_category;
};
std::string to_string(const ModelDisagreement& d);

struct StaticAnalysis {
  TreeSpec tree;
  std::uint64_t model_disagreements = 0;
  std::optional<ModelDisagreement> first_model_disagreement;
  std::vector<model::Path> paths;
  std::uint64_t operations = 0;
  std::uint64_t pairs = 0;
  std::vector<SchemeTable> schemes;
};

inline constexpr std::uint64_t kDefaultMaxPairs = 50'000'000;

// How big a table a tree makes, computed from depth and fanout alone, before
// anything is enumerated. Counts that do not fit in 64 bits saturate at
// kSaturated (the tree is then refused whatever the limits).
struct TableSize {
  static constexpr std::uint64_t kSaturated = UINT64_MAX;
  std::uint64_t paths = 0;       // the root and every folder below it
  std::uint64_t operations = 0;  // 3 per path, plus rename and copy per ordered pair of paths
  std::uint64_t pairs = 0;       // unordered pairs of operations, each with itself included
};
TableSize table_size(const TreeSpec& tree);

// The most operations a table over `schemes` schemes may hold, whatever
// --max-pairs says. Every operation is kept in memory with its request and one
// plan per scheme. Measured resident memory (depth 4, fanout 4: 233,243
// operations) was about 260 bytes per operation plus 290 per operation and
// scheme (five built-in schemes: 389 MB; each twice: 719 MB; path-rwa-joined
// alone, the largest plans: 156 MB); the constants round that up to 512 and
// 512, and the cap keeps the table under kTableMemoryBudget, well inside a
// 24 GiB machine.
inline constexpr std::uint64_t kTableBytesPerOperation = 512;
inline constexpr std::uint64_t kTableBytesPerOperationAndScheme = 512;
inline constexpr std::uint64_t kTableMemoryBudget = std::uint64_t{4} << 30;
constexpr std::uint64_t max_table_operations(std::size_t schemes) {
  return kTableMemoryBudget / (kTableBytesPerOperation + kTableBytesPerOperationAndScheme * schemes);
}

// Called now and then with (pairs done, pairs in all).
using Progress = std::function<void(std::uint64_t, std::uint64_t)>;

// Throws InputError(kBadParameter) if the tree is out of range, if it has
// more than `max_pairs` pairs or max_table_operations operations (both checked
// before anything is allocated), or if some pair category does not occur in it.
StaticAnalysis analyze_static(std::span<const impl::Scheme* const> schemes, const TreeSpec& tree,
                              const Progress& progress = {},
                              std::uint64_t max_pairs = kDefaultMaxPairs);

}  // namespace pathlock::sim
