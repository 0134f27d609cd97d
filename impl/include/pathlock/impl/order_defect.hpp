#pragma once
// Is a LockOrder a strict total order on a given set of paths? Acquisition is
// deadlock-free only under one strict total order; this finds why an order is
// not one, with the paths that show it, so that a checker can report it.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pathlock/impl/order.hpp"
#include "pathlock/model/path.hpp"

namespace pathlock::impl {

// The property of a strict total order that fails, and its witness.
enum class OrderProperty : std::uint8_t {
  kIrreflexive,    // a path does not compare equal to itself      (witness: a)
  kAntisymmetric,  // compare(a, b) is not the reverse of compare(b, a) (a, b)
  kTransitive,     // a < b and b < c, but c < a                   (a, b, c)
  kTotal,          // two distinct paths compare equal             (a, b)
};
std::string_view to_string(OrderProperty property) noexcept;  // "irreflexivity", ...

struct OrderDefect {
  OrderProperty property = OrderProperty::kTotal;
  std::vector<model::Path> witness;  // 1, 2 or 3 paths, as in OrderProperty
  std::string explanation;           // "/a and /ab compare equal", with the results
};

// Every pair is compared both ways, so the cost is quadratic: at most this
// many distinct paths (about 8 million pairs).
inline constexpr std::size_t kMaxOrderCheckPaths = 4096;

// The first defect of `order` on `paths` (duplicates ignored), or nullopt if
// it is a strict total order on them. Paths are visited in component order
// and pairs in that order, so the witness is deterministic and small paths
// come first. Throws InputError(kBadParameter) over kMaxOrderCheckPaths.
std::optional<OrderDefect> find_order_defect(const LockOrder& order, std::span<const model::Path> paths);

}  // namespace pathlock::impl
