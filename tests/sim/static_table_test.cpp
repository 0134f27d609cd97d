#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>

#include "pathlock/model/error.hpp"
#include "pathlock/sim/static_table.hpp"
#include "support/broken_orders.hpp"

namespace pathlock::sim {
namespace {

const StaticAnalysis& default_analysis() {
  static const StaticAnalysis a = analyze_static(impl::builtin_schemes(), TreeSpec{});
  return a;
}

const SchemeTable& table_of(const StaticAnalysis& a, std::string_view name) {
  for (const auto& t : a.schemes) {
    if (t.scheme->name() == name) return t;
  }
  throw std::runtime_error("no such scheme in the analysis");
}

TEST(StaticTable, ScoresOfTheFourSchemesAreTheDesignNotes) {
  const auto& a = default_analysis();
  const std::map<std::string, std::pair<model::Score, model::Score>> want{
      {"global-mutex", {{0, 4}, {0, 8}}}, {"global-rw", {{2, 4}, {3, 8}}},
      {"path-rw", {{3, 4}, {7, 8}}},      {"path-rwa", {{4, 4}, {8, 8}}},
      {"path-rwa-joined", {{4, 4}, {8, 8}}}};
  ASSERT_EQ(a.schemes.size(), want.size());
  for (const auto& t : a.schemes) {
    const auto& [s4, s8] = want.at(t.scheme->name());
    EXPECT_EQ(t.score4, s4) << t.scheme->name();
    EXPECT_EQ(t.score8, s8) << t.scheme->name();
  }
}

TEST(StaticTable, EveryCategoryOccursAndEverySchemeBlocksTheUnsafeOnes) {
  for (const auto& t : default_analysis().schemes) {
    for (const auto& c : t.categories) {
      EXPECT_GT(c.pairs, 0u);
      if (model::info(c.category).must == model::Requirement::kBlock) {
        EXPECT_EQ(c.verdict, model::Verdict::kBlocks) << t.scheme->name();
        EXPECT_EQ(c.blocked_pairs, c.pairs) << t.scheme->name();
      }
    }
  }
}

TEST(StaticTable, CategoryWitnessesAreRealPairsOfTheirCategory) {
  for (const auto& t : default_analysis().schemes) {
    for (const auto& c : t.categories) {
      const bool must_allow = model::info(c.category).must == model::Requirement::kAllow;
      if (must_allow && c.verdict == model::Verdict::kBlocks) {
        ASSERT_TRUE(c.witness.has_value()) << t.scheme->name();
        const auto& w = *c.witness;
        EXPECT_EQ(model::categorize(w.first.request(), w.second.request()), c.category);
        EXPECT_TRUE(impl::plans_conflict(*t.scheme, w.first_plan, w.second_plan).has_value());
        EXPECT_FALSE(model::conflicts(w.first.request(), w.second.request()));
      }
    }
  }
}

TEST(StaticTable, PairCountsAddUp) {
  const auto& a = default_analysis();
  EXPECT_EQ(a.pairs, a.operations * (a.operations + 1) / 2);
  for (const auto& t : a.schemes) {
    std::uint64_t pairs = 0, unsafe = 0, over = 0, conflicting = 0;
    for (const auto& k : t.by_kind) {
      pairs += k.pairs;
      unsafe += k.unsafe;
      over += k.over_blocked;
      conflicting += k.conflicting;
      EXPECT_EQ(k.blocked, k.conflicting - k.unsafe + k.over_blocked);
    }
    EXPECT_EQ(pairs, a.pairs);
    EXPECT_EQ(unsafe, t.unsafe_pairs);
    EXPECT_EQ(over, t.over_blocked_pairs);
    EXPECT_EQ(conflicting, t.conflicting_pairs);
  }
}

bool reads_above_own_write(const model::Request& r) {
  for (const auto& rp : r.reads()) {
    for (const auto& wp : r.writes()) {
      if (rp.is_proper_ancestor_of(wp)) return true;
    }
  }
  return false;
}

// Known result, recorded rather than hidden: path-rwa (per-role modes, the
// scheme as first proposed) lets conflicting multi-path pairs hold their locks together. Every such pair
// has a request that reads an ancestor of a path it writes (a copy into its own
// subtree), and the corrected variant has none.
TEST(StaticTable, KnownResultPathRwaIsUnsafeForCopiesIntoTheirOwnSubtree) {
  const auto& a = default_analysis();
  const auto& rwa = table_of(a, "path-rwa");
  EXPECT_FALSE(rwa.safe());
  EXPECT_GT(rwa.unsafe_pairs, 0u);
  ASSERT_FALSE(rwa.unsafe_witnesses.empty());
  for (const auto& w : rwa.unsafe_witnesses) {
    EXPECT_TRUE(model::conflicts(w.first.request(), w.second.request()));
    EXPECT_FALSE(w.lock_conflict.has_value());
    EXPECT_TRUE(reads_above_own_write(w.first.request()) || reads_above_own_write(w.second.request()));
  }
  // Every unsafe pair has that shape: count the pairs without it that are
  // unsafe, over the whole enumeration.
  const auto ops = enumerate_operations(a.paths);
  const auto& s = impl::path_rwa_scheme();
  std::uint64_t unsafe_with_shape = 0;
  for (std::size_t j = 0; j < ops.size(); ++j) {
    const auto rj = ops[j].request();
    const auto pj = impl::plan_for(s, rj);
    for (std::size_t i = 0; i <= j; ++i) {
      const auto ri = ops[i].request();
      if (!model::conflicts(ri, rj) || impl::plans_conflict(s, impl::plan_for(s, ri), pj)) continue;
      ASSERT_TRUE(reads_above_own_write(ri) || reads_above_own_write(rj))
          << ops[i].to_string() << " with " << ops[j].to_string();
      ++unsafe_with_shape;
    }
  }
  EXPECT_EQ(unsafe_with_shape, rwa.unsafe_pairs);
  EXPECT_EQ(rwa.over_blocked_pairs, 0u);
  EXPECT_EQ(rwa.join_defects.size(), 1u);
}

TEST(StaticTable, CorrectedSchemeIsSafeAndExact) {
  const auto& t = table_of(default_analysis(), "path-rwa-joined");
  EXPECT_TRUE(t.exact());
  EXPECT_GT(t.conflicting_pairs, 0u);
}

TEST(StaticTable, CoarserSchemesAreSafeButOverBlock) {
  for (const char* name : {"global-mutex", "global-rw", "path-rw"}) {
    const auto& t = table_of(default_analysis(), name);
    EXPECT_TRUE(t.safe()) << name;
    EXPECT_GT(t.over_blocked_pairs, 0u) << name;
  }
}

TEST(StaticTable, VerdictsDoNotDependOnTheTreeOrTheOrder) {
  const auto& base = default_analysis();
  std::vector<impl::Scheme> reordered;
  for (const auto* s : impl::builtin_schemes()) reordered.push_back(s->with_order(impl::LockOrder::deepest_first(), s->name()));
  std::vector<const impl::Scheme*> ptrs;
  for (const auto& s : reordered) ptrs.push_back(&s);
  const auto other = analyze_static(ptrs, TreeSpec{2, 3});
  for (std::size_t i = 0; i < base.schemes.size(); ++i) {
    EXPECT_EQ(other.schemes[i].verdicts, base.schemes[i].verdicts) << ptrs[i]->name();
    EXPECT_EQ(other.schemes[i].safe(), base.schemes[i].safe()) << ptrs[i]->name();
    EXPECT_EQ(other.schemes[i].exact(), base.schemes[i].exact()) << ptrs[i]->name();
  }
}

TEST(StaticTable, BadTreesAreRejected) {
  const auto problem_with = [](TreeSpec tree, std::uint64_t max_pairs = kDefaultMaxPairs) -> std::string {
    try {
      (void)analyze_static(impl::builtin_schemes(), tree, {}, max_pairs);
    } catch (const model::InputError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_NE(problem_with({0, 2}).find("depth 0 is out of range"), std::string::npos);
  EXPECT_NE(problem_with({7, 2}).find("depth 7"), std::string::npos);
  EXPECT_NE(problem_with({2, 0}).find("fanout 0"), std::string::npos);
  EXPECT_NE(problem_with({3, 1}).find("no pair of category 3"), std::string::npos);
  EXPECT_NE(problem_with({3, 2}, 1000).find("over the limit of 1000"), std::string::npos);
}

// The size computed from depth and fanout alone is the size enumerated.
TEST(StaticTable, TableSizeIsTheEnumeratedSize) {
  for (int depth = 1; depth <= 3; ++depth) {
    for (int fanout = 1; fanout <= 3; ++fanout) {
      const auto paths = generate_tree({depth, fanout});
      const auto ops = enumerate_operations(paths);
      const TableSize size = table_size({depth, fanout});
      EXPECT_EQ(size.paths, paths.size()) << depth << " " << fanout;
      EXPECT_EQ(size.operations, ops.size()) << depth << " " << fanout;
      EXPECT_EQ(size.pairs, ops.size() * (ops.size() + 1) / 2) << depth << " " << fanout;
    }
  }
  // Depth 6, fanout 8: 299,593 paths, about 1.8e11 operations; the pairs do
  // not fit in 64 bits and saturate instead of wrapping around.
  const TableSize largest = table_size({kMaxTreeDepth, kMaxTreeFanout});
  EXPECT_EQ(largest.paths, 299'593u);
  EXPECT_EQ(largest.operations, 3 * largest.paths + 2 * largest.paths * (largest.paths - 1));
  EXPECT_EQ(largest.pairs, TableSize::kSaturated);
  EXPECT_EQ(table_size({4, 8}).operations, 43'828'203u);  // README, "Bounded inputs"
}

// The largest trees --depth and --fanout allow are refused before anything is
// enumerated: whatever --max-pairs says, the operations would not fit in memory.
TEST(StaticTable, TreesTooLargeForMemoryAreRefusedWhateverMaxPairsSays) {
  for (const TreeSpec tree : {TreeSpec{6, 8}, TreeSpec{4, 8}}) {
    for (const std::uint64_t max_pairs : {kDefaultMaxPairs, TableSize::kSaturated}) {
      try {
        (void)analyze_static(impl::builtin_schemes(), tree, {}, max_pairs);
        ADD_FAILURE() << "accepted depth " << tree.depth << " fanout " << tree.fanout;
      } catch (const model::InputError& e) {
        const std::string why = e.what();
        const bool by_pairs = why.find("set by --max-pairs") != std::string::npos;
        const bool by_memory =
            why.find(fmt::format("over the limit of {} operations for {} schemes", max_table_operations(5), 5)) !=
            std::string::npos;
        EXPECT_TRUE(max_pairs == kDefaultMaxPairs ? by_pairs : by_memory) << why;
      }
    }
  }
}

TEST(Tree, NamesShareStringPrefixes) {
  EXPECT_EQ(child_names(4), (std::vector<std::string>{"a", "ab", "b", "bc"}));
  const auto paths = generate_tree({2, 2});
  EXPECT_EQ(paths.size(), 7u);
  const auto ops = enumerate_operations(paths);
  EXPECT_EQ(ops.size(), 7u * 3 + 7u * 6 * 2);
  EXPECT_LE(model::arity(ops.front().kind), model::arity(ops.back().kind));
}

TEST(StaticTable, ProgressReachesTheEnd) {
  std::uint64_t last = 0, total = 0;
  (void)analyze_static(impl::builtin_schemes(), TreeSpec{2, 2},
                       [&](std::uint64_t d, std::uint64_t t) { last = d; total = t; });
  EXPECT_GT(total, 0u);
  EXPECT_EQ(last, total);
}

}  // namespace
}  // namespace pathlock::sim

// --- Claims checked before the merge shortcut ---------------------------------

namespace pathlock::sim {
namespace {

// The pairs the merge would have judged differently from every step pair.
std::uint64_t merge_errors(const impl::Scheme& scheme, const StaticAnalysis& a) {
  const auto ops = enumerate_operations(a.paths);
  std::vector<impl::Plan> plans;
  for (const auto& op : ops) plans.push_back(impl::plan_for(scheme, op.request()));
  std::uint64_t wrong = 0;
  for (std::size_t j = 0; j < plans.size(); ++j) {
    for (std::size_t i = 0; i <= j; ++i) {
      wrong += impl::plans_conflict(scheme, plans[i], plans[j]).has_value() !=
               every_step_pair_conflict(scheme, plans[i], plans[j]).has_value();
    }
  }
  return wrong;
}

void expect_broken_claim_falls_back(const impl::Scheme& broken, PlanClaim claim) {
  const impl::Scheme* one[] = {&broken};
  const auto a = analyze_static(one, TreeSpec{});
  const auto& t = a.schemes.front();
  const auto& c = t.claims.claims[static_cast<std::size_t>(claim)];
  EXPECT_EQ(c.status, ClaimStatus::kBroken) << to_string(claim);
  ASSERT_TRUE(c.witness.has_value());
  EXPECT_FALSE(c.witness->paths.empty());
  EXPECT_EQ(t.claims.computation, PairComputation::kEveryStepPair);
  // The merge would have reported pairs that are not there...
  EXPECT_GT(merge_errors(broken, a), 0u);
  // ...the table reports those of the general computation: the plans take
  // the same locks in the same modes as path-rwa-joined's, which is exact.
  EXPECT_EQ(t.unsafe_pairs, 0u);
  EXPECT_EQ(t.over_blocked_pairs, 0u);
  EXPECT_EQ(t.score4, (model::Score{4, 4}));
}

TEST(StaticTableClaims, AnOrderThatTiesSiblingsIsReportedAndNotMerged) {
  const impl::LockOrder order("ties-siblings", "claims strict and total; ties /a and /ab", &testing::ties_siblings,
                              impl::Ancestry::kAncestorsFirst, impl::Totality::kStrictTotal);
  const auto broken = impl::path_rwa_joined_scheme().with_order(order, "broken-order");
  ASSERT_TRUE(broken.canonical_plans());
  expect_broken_claim_falls_back(broken, PlanClaim::kStrictTotalOrder);
}

TEST(StaticTableClaims, PlansAgainstTheirOrderAreReportedAndNotMerged) {
  const impl::LockOrder order("deepest-first-lying", "deepest first, claims ancestors first",
                              &testing::deepest_first, impl::Ancestry::kAncestorsFirst,
                              impl::Totality::kStrictTotal);
  const auto broken = impl::path_rwa_joined_scheme().with_order(order, "broken-plans");
  expect_broken_claim_falls_back(broken, PlanClaim::kStrictlyIncreasing);
  const impl::Scheme* one[] = {&broken};
  const auto a = analyze_static(one, TreeSpec{});
  const auto& w = *a.schemes.front().claims.claims[static_cast<std::size_t>(PlanClaim::kStrictlyIncreasing)].witness;
  ASSERT_TRUE(w.operation.has_value() && w.plan.has_value());
  EXPECT_EQ(w.paths.size(), 2u);
  EXPECT_EQ(a.schemes.front().claims.claims[0].status, ClaimStatus::kHolds);  // the order itself is fine
}

TEST(StaticTableClaims, BuiltinSchemesKeepEveryClaimAndMerge) {
  for (const auto& t : default_analysis().schemes) {
    EXPECT_FALSE(t.claims.any_broken()) << t.scheme->name();
    EXPECT_EQ(t.claims.computation, PairComputation::kMerge) << t.scheme->name();
  }
  EXPECT_EQ(default_analysis().model_disagreements, 0u);
}

}  // namespace
}  // namespace pathlock::sim
