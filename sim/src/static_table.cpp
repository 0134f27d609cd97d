#include "pathlock/sim/static_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "pathlock/model/error.hpp"
#include "pathlock/model/key_prefix.hpp"
#include "pathlock/sim/model_agreement.hpp"

namespace pathlock::sim {
namespace {

constexpr std::size_t kKinds = 5;

std::size_t kind_index(model::OpKind k) { return static_cast<std::size_t>(k); }

PairWitness make_witness(const model::Operation& a, const model::Operation& b,
                         const impl::Plan& pa, const impl::Plan& pb,
                         const std::optional<impl::PlanConflict>& lock,
                         const std::optional<model::ConflictWitness>& spec) {
  return PairWitness{a, b, pa, pb, lock, spec};
}

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t out = 0;
  return __builtin_mul_overflow(a, b, &out) ? TableSize::kSaturated : out;
}
std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t out = 0;
  return __builtin_add_overflow(a, b, &out) ? TableSize::kSaturated : out;
}

std::string count_text(std::uint64_t n) {
  return n == TableSize::kSaturated ? fmt::format("more than {}", n) : fmt::format("{}", n);
}

void check_table_size(const TreeSpec& tree, std::size_t schemes, std::uint64_t max_pairs) {
  if (tree.depth < 1 || tree.depth > kMaxTreeDepth) {
    throw model::InputError(model::InputProblem::kBadParameter,
                            fmt::format("tree depth {} is out of range 1..{}", tree.depth, kMaxTreeDepth));
  }
  if (tree.fanout < 1 || tree.fanout > kMaxTreeFanout) {
    throw model::InputError(model::InputProblem::kBadParameter,
                            fmt::format("tree fanout {} is out of range 1..{}", tree.fanout, kMaxTreeFanout));
  }
  const TableSize size = table_size(tree);
  const auto what = fmt::format("a tree of depth {} and fanout {} has {} paths, {} operations and {} pairs",
                                tree.depth, tree.fanout, size.paths, count_text(size.operations),
                                count_text(size.pairs));
  if (size.pairs > max_pairs) {
    throw model::InputError(model::InputProblem::kBadParameter,
                            fmt::format("{}, over the limit of {} pairs set by --max-pairs; use a smaller "
                                        "--depth or --fanout, or raise --max-pairs",
                                        what, max_pairs));
  }
  if (size.operations > max_table_operations(schemes)) {
    throw model::InputError(
        model::InputProblem::kBadParameter,
        fmt::format("{}, over the limit of {} operations for {} schemes (about {} bytes each in memory, {} GiB in "
                    "all), which no flag raises; use a smaller --depth or --fanout, or fewer schemes",
                    what, max_table_operations(schemes), schemes,
                    kTableBytesPerOperation + kTableBytesPerOperationAndScheme * schemes, kTableMemoryBudget >> 30));
  }
}

}  // namespace

std::string to_string(const ModelDisagreement& d) {
  if (d.predicate == ModelPredicate::kCategory) {
    const auto category = [](std::optional<int> c) {
      return c ? fmt::format("are of category {}", *c) : std::string("are of no category");
    };
    return fmt::format("model error: model::categorize says {} and {} {}; the key-prefix formulation says they {}",
                       d.first.to_string(), d.second.to_string(), category(d.primary_category),
                       category(d.second_category));
  }
  const auto says = [](bool c) { return c ? "conflict" : "do not conflict"; };
  return fmt::format("model error: model::conflicts says {} and {} {}; the key-prefix formulation says they {}",
                     d.first.to_string(), d.second.to_string(), says(d.primary_conflicts),
                     says(d.second_conflicts));
}

TableSize table_size(const TreeSpec& tree) {
  TableSize size;
  std::uint64_t level = 1;  // paths at the current depth
  for (int d = 0; d <= tree.depth; ++d) {
    size.paths = saturating_add(size.paths, level);
    level = saturating_mul(level, static_cast<std::uint64_t>(std::max(tree.fanout, 0)));
  }
  const std::uint64_t ordered = saturating_mul(size.paths, size.paths == 0 ? 0 : size.paths - 1);
  size.operations = saturating_add(saturating_mul(3, size.paths), saturating_mul(2, ordered));
  // n (n + 1) / 2 without overflowing first: halve whichever factor is even.
  const std::uint64_t n = size.operations;
  size.pairs = n == TableSize::kSaturated ? TableSize::kSaturated
               : n % 2 == 0              ? saturating_mul(n / 2, n + 1)
                                         : saturating_mul(n, (n + 1) / 2);
  return size;
}

StaticAnalysis analyze_static(std::span<const impl::Scheme* const> schemes, const TreeSpec& tree,
                              const Progress& progress, std::uint64_t max_pairs) {
  check_table_size(tree, schemes.size(), max_pairs);
  StaticAnalysis out;
  out.tree = tree;
  out.paths = generate_tree(tree);
  const auto ops = enumerate_operations(out.paths);
  const std::size_t n = ops.size();
  out.operations = n;
  out.pairs = static_cast<std::uint64_t>(n) * (n + 1) / 2;

  std::vector<model::Request> requests;
  requests.reserve(n);
  for (const auto& op : ops) requests.push_back(op.request());
  // The second formulation of the model judges every pair too.
  std::vector<model::key_prefix::Accesses> ranges;
  ranges.reserve(n);
  for (const auto& r : requests) ranges.emplace_back(r);

  // plans[s][i]: scheme s's plan for operation i.
  std::vector<std::vector<impl::Plan>> plans(schemes.size());
  for (std::size_t s = 0; s < schemes.size(); ++s) {
    plans[s].reserve(n);
    for (const auto& r : requests) plans[s].push_back(impl::plan_for(*schemes[s], r));
  }

  out.schemes.resize(schemes.size());
  for (std::size_t s = 0; s < schemes.size(); ++s) {
    auto& t = out.schemes[s];
    t.scheme = schemes[s];
    for (std::size_t c = 0; c < model::kCategoryCount; ++c) {
      t.categories[c].category = model::all_categories()[c].category;
    }
    for (std::size_t a = 0; a < kKinds; ++a) {
      for (std::size_t b = a; b < kKinds; ++b) {
        t.by_kind.push_back({static_cast<model::OpKind>(a), static_cast<model::OpKind>(b)});
      }
    }
    t.join_defects = impl::join_defects(*schemes[s]);
    t.claims = check_plan_claims(*schemes[s], out.paths, ops, plans[s]);
  }
  const auto by_kind_slot = [](model::OpKind x, model::OpKind y) {
    std::size_t a = kind_index(x);
    std::size_t b = kind_index(y);
    if (a > b) std::swap(a, b);
    // Row-major upper triangle of a kKinds x kKinds matrix.
    return a * kKinds - a * (a + 1) / 2 + b;
  };

  const ConflictPredicate primary_override = primary_conflicts_for_testing();
  std::uint64_t done = 0;
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t i = 0; i <= j; ++i) {
      const auto spec = model::conflict_witness(requests[i], requests[j]);
      const auto category = model::categorize(requests[i], requests[j]);
      const bool primary = primary_override ? primary_override(requests[i], requests[j]) : spec.has_value();
      // Both formulations judge every pair; a pair counts once however many
      // predicates it finds them disagreeing on.
      const bool second = model::key_prefix::conflicts(ranges[i], ranges[j]);
      const std::optional<int> primary_category =
          category ? std::optional<int>(model::info(*category).number) : std::nullopt;
      const std::optional<int> second_category = model::key_prefix::category_number(requests[i], requests[j]);
      if (second != primary || second_category != primary_category) {
        if (out.model_disagreements++ == 0) {
          out.first_model_disagreement =
              ModelDisagreement{ops[i], ops[j],
                                second != primary ? ModelPredicate::kConflicts : ModelPredicate::kCategory,
                                primary, second, primary_category, second_category};
        }
      }
      const std::size_t slot = by_kind_slot(ops[i].kind, ops[j].kind);
      for (std::size_t s = 0; s < schemes.size(); ++s) {
        auto& t = out.schemes[s];
        const auto lock = t.claims.computation == PairComputation::kMerge
                              ? impl::plans_conflict(*schemes[s], plans[s][i], plans[s][j])
                              : every_step_pair_conflict(*schemes[s], plans[s][i], plans[s][j]);
        const bool blocked = lock.has_value();
        ++t.pairs;
        auto& k = t.by_kind[slot];
        ++k.pairs;
        if (spec) {
          ++t.conflicting_pairs;
          ++k.conflicting;
        }
        if (blocked) ++k.blocked;
        if (spec && !blocked) {
          ++t.unsafe_pairs;
          ++k.unsafe;
          if (t.unsafe_witnesses.size() < kMaxUnsafeWitnesses) {
            t.unsafe_witnesses.push_back(
                make_witness(ops[i], ops[j], plans[s][i], plans[s][j], lock, spec));
          }
        }
        if (!spec && blocked) {
          ++t.over_blocked_pairs;
          ++k.over_blocked;
          if (!t.over_blocked_witness) {
            t.over_blocked_witness =
                make_witness(ops[i], ops[j], plans[s][i], plans[s][j], lock, spec);
          }
        }
        if (category) {
          auto& c = t.categories[model::index_of(*category)];
          ++c.pairs;
          if (blocked) ++c.blocked_pairs;
          const bool must_allow = model::info(*category).must == model::Requirement::kAllow;
          if (!c.witness && blocked == must_allow) {
            c.witness = make_witness(ops[i], ops[j], plans[s][i], plans[s][j], lock, spec);
          }
        }
      }
      ++done;
    }
    if (progress) progress(done, out.pairs);
  }

  for (auto& t : out.schemes) {
    for (std::size_t c = 0; c < model::kCategoryCount; ++c) {
      auto& cat = t.categories[c];
      // A model that disagrees with itself may leave a category empty: that
      // is reported as the model error it is (model_error_of), not as a tree
      // too small.
      if (cat.pairs == 0 && out.model_disagreements == 0) {
        throw model::InputError(
            model::InputProblem::kBadParameter,
            fmt::format("a tree of depth {} and fanout {} has no pair of category {} ({}); "
                        "use depth >= 1 and fanout >= 2",
                        tree.depth, tree.fanout, model::info(cat.category).number,
                        model::label(cat.category)));
      }
      cat.verdict = cat.blocked_pairs > 0 ? model::Verdict::kBlocks : model::Verdict::kAllows;
      t.verdicts[c] = cat.verdict;
    }
    t.score4 = model::score_out_of_4(t.verdicts);
    t.score8 = model::score_out_of_8(t.verdicts);
  }
  return out;
}

}  // namespace pathlock::sim
