#include "pathlock/impl/order.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "pathlock/model/error.hpp"

namespace pathlock::impl {
namespace {

using model::compare_path_text;
using model::path_text_depth;

std::strong_ordering by_depth_then_components(std::string_view a, std::string_view b) {
  if (auto c = path_text_depth(a) <=> path_text_depth(b); c != 0) return c;
  return compare_path_text(a, b);
}

std::strong_ordering by_components(std::string_view a, std::string_view b) { return compare_path_text(a, b); }

std::strong_ordering deepest_then_components(std::string_view a, std::string_view b) {
  if (auto c = path_text_depth(b) <=> path_text_depth(a); c != 0) return c;
  return compare_path_text(a, b);
}

std::string describe_keys(std::span<const OrderKey> keys) {
  std::string out;
  for (const auto& k : keys) {
    if (!out.empty()) out += ", then ";
    if (k.by != OrderKeyKind::kRank) {
      out += fmt::format("{} {}", to_string(k.by), to_string(k.direction));
      continue;
    }
    constexpr std::size_t kShown = 4;
    std::string listed;
    for (std::size_t i = 0; i < std::min(k.ranked.size(), kShown); ++i) {
      listed += (i == 0 ? "" : ", ") + k.ranked[i].str();
    }
    if (k.ranked.size() > kShown) listed += fmt::format(", ... ({} paths)", k.ranked.size());
    out += fmt::format("rank {} (the rest {})", listed, to_string(k.rest));
  }
  return out;
}

[[noreturn]] void bad(std::string what) {
  throw model::InputError(model::InputProblem::kBadParameter, std::move(what));
}

}  // namespace

std::string_view to_string(OrderKeyKind kind) noexcept {
  switch (kind) {
    case OrderKeyKind::kDepth: return "depth";
    case OrderKeyKind::kComponents: return "components";
    case OrderKeyKind::kRank: return "rank";
  }
  return "?";
}

std::string_view to_string(Direction direction) noexcept {
  return direction == Direction::kAscending ? "ascending" : "descending";
}

std::string_view to_string(Unranked rest) noexcept { return rest == Unranked::kBefore ? "before" : "after"; }

std::optional<OrderKeyProblem> order_key_problem(std::span<const OrderKey> keys) {
  if (keys.empty()) return OrderKeyProblem{"keys", "is empty; give at least one key"};
  if (keys.size() > kMaxOrderKeys) {
    return OrderKeyProblem{"keys", fmt::format("has {} keys; at most {}", keys.size(), kMaxOrderKeys)};
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::string at = fmt::format("keys[{}]", i);
    if (i > 0 && keys[i - 1].by == OrderKeyKind::kComponents) {
      return OrderKeyProblem{at, fmt::format("is never used: keys[{}] (components) already tells every two "
                                             "distinct paths apart",
                                             i - 1)};
    }
    const auto& ranked = keys[i].ranked;
    if (keys[i].by != OrderKeyKind::kRank) {
      if (!ranked.empty()) return OrderKeyProblem{at, "lists paths, but only a rank key has a list"};
      continue;
    }
    if (keys[i].direction != Direction::kAscending) {
      return OrderKeyProblem{at, "a rank key has no direction: list the paths in the order wanted"};
    }
    if (ranked.empty()) return OrderKeyProblem{at + ".paths", "is empty; list at least one path"};
    if (ranked.size() > kMaxRankedPaths) {
      return OrderKeyProblem{at + ".paths", fmt::format("has {} paths; at most {}", ranked.size(), kMaxRankedPaths)};
    }
    for (std::size_t p = 1; p < ranked.size(); ++p) {
      const auto first = std::find(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(p), ranked[p]);
      if (first != ranked.begin() + static_cast<std::ptrdiff_t>(p)) {
        return OrderKeyProblem{fmt::format("{}.paths[{}]", at, p),
                               fmt::format("\"{}\" is listed twice (also at {}.paths[{}])", ranked[p].str(), at,
                                           first - ranked.begin())};
      }
    }
  }
  return std::nullopt;
}

// Two distinct paths differ in their component lists, so a components key
// decides every pair; depth and rank keys leave ties (paths of one depth;
// paths a rank list leaves out). So the keys are total iff one is components.
Totality totality_of(std::span<const OrderKey> keys) noexcept {
  const bool total = std::any_of(keys.begin(), keys.end(),
                                 [](const OrderKey& k) { return k.by == OrderKeyKind::kComponents; });
  return total ? Totality::kStrictTotal : Totality::kNotTotal;
}

// Follow the keys for a pair (ancestor A, descendant D). An ascending depth
// or components key decides every such pair with A first (A is shallower, and
// a prefix of D); a descending one decides every pair the wrong way. A rank
// key decides a pair where one path is listed: with the rest before, some
// listed path has an unlisted descendant (there are infinitely many), which
// then comes first; with the rest after, A comes first iff every listed
// path's proper ancestors are listed before it. Pairs both unlisted tie and
// go on to the next key; keys that run out leave ties, which promise nothing.
Ancestry ancestry_of(std::span<const OrderKey> keys) noexcept {
  for (const auto& k : keys) {
    if (k.by != OrderKeyKind::kRank) {
      return k.direction == Direction::kAscending ? Ancestry::kAncestorsFirst : Ancestry::kUnspecified;
    }
    if (k.rest == Unranked::kBefore) return Ancestry::kUnspecified;
    for (auto p = k.ranked.begin(); p != k.ranked.end(); ++p) {
      for (const auto& ancestor : p->proper_ancestors()) {
        if (std::find(k.ranked.begin(), p, ancestor) == p) return Ancestry::kUnspecified;
      }
    }
  }
  return Ancestry::kUnspecified;
}

struct LockOrder::KeyTable {
  explicit KeyTable(std::vector<OrderKey> k) : keys(std::move(k)) {
    for (const auto& key : keys) {
      auto& index = rank_index.emplace_back();
      for (std::size_t i = 0; i < key.ranked.size(); ++i) index.emplace_back(key.ranked[i].str(), i);
      std::sort(index.begin(), index.end());
    }
  }

  // A path's position in key `k`'s list; the unlisted go before or after all.
  std::int64_t rank(std::size_t k, std::string_view text) const noexcept {
    const auto& index = rank_index[k];
    const auto it = std::lower_bound(index.begin(), index.end(), text,
                                     [](const auto& entry, std::string_view t) { return entry.first < t; });
    if (it != index.end() && it->first == text) return static_cast<std::int64_t>(it->second);
    return keys[k].rest == Unranked::kBefore ? -1 : static_cast<std::int64_t>(index.size());
  }

  std::vector<OrderKey> keys;
  std::vector<std::vector<std::pair<std::string, std::size_t>>> rank_index;  // per key, by text
};

LockOrder::LockOrder(std::string name, std::string description, Compare compare_fn, std::vector<OrderKey> keys,
                     OrderDefinition definition)
    : name_(std::move(name)),
      description_(std::move(description)),
      compare_(compare_fn),
      ancestry_(ancestry_of(keys)),
      totality_(totality_of(keys)),
      definition_(definition),
      keys_(std::make_shared<const KeyTable>(std::move(keys))) {}

LockOrder LockOrder::from_keys(std::string name, std::vector<OrderKey> keys) {
  if (name.empty()) bad("an order's name must not be empty");
  if (find(name) != nullptr) bad(fmt::format("\"{}\" is a built-in order's name; choose another", name));
  if (const auto problem = order_key_problem(keys)) bad(fmt::format("{}: {}", problem->field, problem->problem));
  std::string description = describe_keys(keys);
  return LockOrder(std::move(name), std::move(description), nullptr, std::move(keys), OrderDefinition::kKeys);
}

std::span<const OrderKey> LockOrder::keys() const noexcept {
  if (!keys_) return {};
  return keys_->keys;
}

std::strong_ordering LockOrder::compare_by_keys(std::string_view a, std::string_view b) const noexcept {
  const auto& keys = keys_->keys;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    std::strong_ordering c = std::strong_ordering::equal;
    switch (keys[k].by) {
      case OrderKeyKind::kDepth: c = path_text_depth(a) <=> path_text_depth(b); break;
      case OrderKeyKind::kComponents: c = compare_path_text(a, b); break;
      case OrderKeyKind::kRank: c = keys_->rank(k, a) <=> keys_->rank(k, b); break;
    }
    if (keys[k].direction == Direction::kDescending) c = 0 <=> c;
    if (c != 0) return c;
  }
  return std::strong_ordering::equal;
}

bool operator==(const LockOrder& a, const LockOrder& b) noexcept {
  const auto a_keys = a.keys();
  const auto b_keys = b.keys();
  return a.name_ == b.name_ && a.description_ == b.description_ && a.compare_ == b.compare_ &&
         a.ancestry_ == b.ancestry_ && a.totality_ == b.totality_ && a.definition_ == b.definition_ &&
         std::equal(a_keys.begin(), a_keys.end(), b_keys.begin(), b_keys.end());
}

const LockOrder& LockOrder::ancestor_first() {
  static const LockOrder order(
      "ancestor-first", "ancestor first (by depth), then lexicographic by component", &by_depth_then_components,
      {OrderKey::depth(Direction::kAscending), OrderKey::components(Direction::kAscending)},
      OrderDefinition::kBuiltin);
  return order;
}

const LockOrder& LockOrder::preorder() {
  static const LockOrder order("preorder", "lexicographic by component (tree pre-order)", &by_components,
                               {OrderKey::components(Direction::kAscending)}, OrderDefinition::kBuiltin);
  return order;
}

const LockOrder& LockOrder::deepest_first() {
  static const LockOrder order(
      "deepest-first", "deepest first (by depth), then lexicographic by component", &deepest_then_components,
      {OrderKey::depth(Direction::kDescending), OrderKey::components(Direction::kAscending)},
      OrderDefinition::kBuiltin);
  return order;
}

std::span<const LockOrder* const> LockOrder::builtins() {
  static const std::array<const LockOrder*, 3> all{&ancestor_first(), &preorder(), &deepest_first()};
  return all;
}

const LockOrder* LockOrder::find(std::string_view name) {
  for (const auto* order : builtins()) {
    if (order->name() == name) return order;
  }
  return nullptr;
}

}  // namespace pathlock::impl
