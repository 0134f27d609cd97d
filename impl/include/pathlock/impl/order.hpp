#pragma once
// Acquisition orders: strict total orders on locks (named by paths).
//
// A task acquires its plan in strictly increasing order of its scheme's order
// and waits for at most one lock at a time. Then no deadlock is possible,
// whatever the order, as long as it is one strict total order shared by all
// tasks. The order is pluggable: the built-in ones are below, a scheme file
// may define its own as a list of keys (OrderKey), and code may pass any
// comparison function.

#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pathlock/model/path.hpp"

namespace pathlock::impl {

// What an order promises about a path and its ancestors; planning uses it to
// skip sorting a one-path request, whose locks it emits shallowest first.
enum class Ancestry : std::uint8_t {
  kAncestorsFirst,  // every path sorts after each of its proper ancestors
  kUnspecified,     // no promise: plans are sorted
};

// Whether an order is a strict total order. Only strict total orders make
// acquisition deadlock-free; the other kind exists so that the checker can be
// shown to reject it.
enum class Totality : std::uint8_t { kStrictTotal, kNotTotal };

// One key of an order defined as data. Keys are applied in sequence; the
// first that tells two paths apart decides.
enum class OrderKeyKind : std::uint8_t {
  kDepth,       // number of components ("/" is 0)
  kComponents,  // component by component, each compared by bytes; a path
                // before its extensions ("/a" < "/a/b" < "/ab")
  kRank,        // position in an explicit list of paths
};
enum class Direction : std::uint8_t { kAscending, kDescending };  // depth, components
// Where a rank key puts the paths its list leaves out; they tie among
// themselves, and the next key decides between them.
enum class Unranked : std::uint8_t { kBefore, kAfter };

std::string_view to_string(OrderKeyKind kind) noexcept;  // "depth", "components", "rank"
std::string_view to_string(Direction direction) noexcept;  // "ascending", "descending"
std::string_view to_string(Unranked rest) noexcept;        // "before", "after"

struct OrderKey {
  OrderKeyKind by = OrderKeyKind::kComponents;
  Direction direction = Direction::kAscending;  // kDepth, kComponents
  std::vector<model::Path> ranked;              // kRank: the paths, first first
  Unranked rest = Unranked::kAfter;             // kRank

  static OrderKey depth(Direction d) { return {OrderKeyKind::kDepth, d, {}, Unranked::kAfter}; }
  static OrderKey components(Direction d) { return {OrderKeyKind::kComponents, d, {}, Unranked::kAfter}; }
  static OrderKey rank(std::vector<model::Path> paths, Unranked rest) {
    return {OrderKeyKind::kRank, Direction::kAscending, std::move(paths), rest};
  }
  friend bool operator==(const OrderKey&, const OrderKey&) = default;
};

inline constexpr std::size_t kMaxOrderKeys = 16;
inline constexpr std::size_t kMaxRankedPaths = 4096;  // per rank key

// The first problem of a key list, if any: `field` locates it ("keys[1]",
// "keys[1].paths[2]"), `problem` says what it is.
struct OrderKeyProblem {
  std::string field;
  std::string problem;
};
std::optional<OrderKeyProblem> order_key_problem(std::span<const OrderKey> keys);

// What the keys promise, computed from them (see order.cpp for the proofs):
// total iff a components key is reached; ancestors first iff a depth- or
// components-ascending key decides every path against its ancestors before
// any other key can put a descendant first.
Totality totality_of(std::span<const OrderKey> keys) noexcept;
Ancestry ancestry_of(std::span<const OrderKey> keys) noexcept;

// How an order is defined, which decides how a scheme file names it.
enum class OrderDefinition : std::uint8_t {
  kBuiltin,   // by name ("ancestor-first")
  kKeys,      // by its keys (a user-defined order)
  kFunction,  // by a comparison function in code; exported by name only
};

class LockOrder {
 public:
  // Compares canonical path text ("/", "/a/b"). Must be a strict total order:
  // antisymmetric, transitive, and returning `equal` only for equal paths.
  using Compare = std::strong_ordering (*)(std::string_view, std::string_view);

  LockOrder(std::string name, std::string description, Compare compare_fn,
            Ancestry ancestry = Ancestry::kUnspecified, Totality totality = Totality::kStrictTotal)
      : name_(std::move(name)),
        description_(std::move(description)),
        compare_(compare_fn),
        ancestry_(ancestry),
        totality_(totality) {}

  // An order defined by keys. Its description, ancestry and totality are
  // computed from the keys. Throws InputError(kBadParameter) naming the
  // first problem (order_key_problem), an empty name or a built-in's name.
  static LockOrder from_keys(std::string name, std::vector<OrderKey> keys);

  Ancestry ancestry() const noexcept { return ancestry_; }
  Totality totality() const noexcept { return totality_; }
  OrderDefinition definition() const noexcept { return definition_; }
  // The keys that define the order; the built-ins have them too (their
  // function is the fast path for the same comparison). Empty for kFunction.
  std::span<const OrderKey> keys() const noexcept;

  const std::string& name() const noexcept { return name_; }
  const std::string& description() const noexcept { return description_; }
  // Built-in and function orders call their function (the hot path of
  // planning); orders from keys interpret the keys.
  std::strong_ordering compare(std::string_view a, std::string_view b) const noexcept {
    if (compare_ != nullptr) [[likely]] return compare_(a, b);
    return compare_by_keys(a, b);
  }
  bool less(std::string_view a, std::string_view b) const noexcept { return compare(a, b) < 0; }
  std::strong_ordering compare(const model::Path& a, const model::Path& b) const noexcept {
    return compare(std::string_view(a.str()), std::string_view(b.str()));
  }
  bool less(const model::Path& a, const model::Path& b) const noexcept { return compare(a, b) < 0; }

  // Same definition: name, description, promises and keys (or function).
  friend bool operator==(const LockOrder& a, const LockOrder& b) noexcept;

  // Default: ancestor first (shallower depth first), then lexicographic by
  // component.
  static const LockOrder& ancestor_first();
  // Lexicographic by component alone (pre-order of the tree): ancestors still
  // come first, since a path precedes its extensions.
  static const LockOrder& preorder();
  // Deepest first, then lexicographic by component: the reverse of the
  // design notes' depth rule, and still a strict total order.
  static const LockOrder& deepest_first();

  static std::span<const LockOrder* const> builtins();
  // nullptr if no built-in order has that name.
  static const LockOrder* find(std::string_view name);

 private:
  struct KeyTable;  // the keys, with each rank list indexed by path text

  LockOrder(std::string name, std::string description, Compare compare_fn, std::vector<OrderKey> keys,
            OrderDefinition definition);
  std::strong_ordering compare_by_keys(std::string_view a, std::string_view b) const noexcept;

  std::string name_;
  std::string description_;
  Compare compare_;  // nullptr: compare by keys_
  Ancestry ancestry_;
  Totality totality_;
  OrderDefinition definition_ = OrderDefinition::kFunction;
  std::shared_ptr<const KeyTable> keys_;  // immutable, shared by copies
};

}  // namespace pathlock::impl
