#include "pathlock/impl/order.hpp"

#include <array>

namespace pathlock::impl {
namespace {

std::strong_ordering by_depth_then_components(const model::Path& a, const model::Path& b) {
  if (auto c = a.depth() <=> b.depth(); c != 0) return c;
  return a <=> b;
}

std::strong_ordering by_components(const model::Path& a, const model::Path& b) { return a <=> b; }

std::strong_ordering deepest_then_components(const model::Path& a, const model::Path& b) {
  if (auto c = b.depth() <=> a.depth(); c != 0) return c;
  return a <=> b;
}

}  // namespace

const LockOrder& LockOrder::ancestor_first() {
  static const LockOrder order("ancestor-first",
                               "ancestor first (by depth), then lexicographic by component",
                               &by_depth_then_components);
  return order;
}

const LockOrder& LockOrder::preorder() {
  static const LockOrder order("preorder", "lexicographic by component (tree pre-order)",
                               &by_components);
  return order;
}

const LockOrder& LockOrder::deepest_first() {
  static const LockOrder order("deepest-first",
                               "deepest first (by depth), then lexicographic by component",
                               &deepest_then_components);
  return order;
}

std::span<const LockOrder* const> LockOrder::builtins() {
  static const std::array<const LockOrder*, 3> all{&ancestor_first(), &preorder(),
                                                   &deepest_first()};
  return all;
}

const LockOrder* LockOrder::find(std::string_view name) {
  for (const auto* order : builtins()) {
    if (order->name() == name) return order;
  }
  return nullptr;
}

}  // namespace pathlock::impl
