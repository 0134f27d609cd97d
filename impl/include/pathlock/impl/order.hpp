#pragma once
// Acquisition orders: strict total orders on locks (named by paths).
//
// A task acquires its plan in strictly increasing order of its scheme's order
// and waits for at most one lock at a time. Seed 000's theorem: then no
// deadlock is possible, whatever the order, as long as it is one strict total
// order shared by all tasks. The order is pluggable: any function that is a
// strict total order on paths will do; the built-in ones are below.

#include <compare>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "pathlock/model/path.hpp"

namespace pathlock::impl {

// What an order promises about a path and its ancestors; planning uses it to
// skip sorting a one-path request, whose locks it emits shallowest first.
enum class Ancestry : std::uint8_t {
  kAncestorsFirst,  // every path sorts after each of its proper ancestors
  kUnspecified,     // no promise: plans are sorted
};

// Whether an order is a strict total order. Only strict total orders make
// acquisition deadlock-free (seed 000's theorem); the other kind exists so
// that the checker can be shown to reject it.
enum class Totality : std::uint8_t { kStrictTotal, kNotTotal };

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

  Ancestry ancestry() const noexcept { return ancestry_; }
  Totality totality() const noexcept { return totality_; }

  const std::string& name() const noexcept { return name_; }
  const std::string& description() const noexcept { return description_; }
  std::strong_ordering compare(std::string_view a, std::string_view b) const noexcept { return compare_(a, b); }
  bool less(std::string_view a, std::string_view b) const noexcept { return compare_(a, b) < 0; }
  std::strong_ordering compare(const model::Path& a, const model::Path& b) const noexcept {
    return compare_(a.str(), b.str());
  }
  bool less(const model::Path& a, const model::Path& b) const noexcept { return compare_(a.str(), b.str()) < 0; }

  // Default (seed 000): ancestor first (shallower depth first), then
  // lexicographic by component.
  static const LockOrder& ancestor_first();
  // Lexicographic by component alone (pre-order of the tree): ancestors still
  // come first, since a path precedes its extensions.
  static const LockOrder& preorder();
  // Deepest first, then lexicographic by component: the reverse of the
  // design notes' depth rule, and still a strict total order.
  static const LockOrder& deepest_first();
  // By depth alone: NOT a strict total order (siblings tie; planning keeps
  // tied locks in request order). For showing that `pathlock check` rejects
  // a non-total order; never use it for real.
  static const LockOrder& depth_only();

  static std::span<const LockOrder* const> builtins();
  // nullptr if no built-in order has that name.
  static const LockOrder* find(std::string_view name);

 private:
  std::string name_;
  std::string description_;
  Compare compare_;
  Ancestry ancestry_;
  Totality totality_;
};

}  // namespace pathlock::impl
