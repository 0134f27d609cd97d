#include "pathlock/impl/order.hpp"

#include <array>

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

// Not a strict total order: paths of equal depth compare equal.
std::strong_ordering by_depth_only(std::string_view a, std::string_view b) {
  return path_text_depth(a) <=> path_text_depth(b);
}

}  // namespace

const LockOrder& LockOrder::ancestor_first() {
  static const LockOrder order("ancestor-first",
                               "ancestor first (by depth), then lexicographic by component",
                               &by_depth_then_components, Ancestry::kAncestorsFirst);
  return order;
}

const LockOrder& LockOrder::preorder() {
  static const LockOrder order("preorder", "lexicographic by component (tree pre-order)",
                               &by_components, Ancestry::kAncestorsFirst);
  return order;
}

const LockOrder& LockOrder::deepest_first() {
  static const LockOrder order("deepest-first",
                               "deepest first (by depth), then lexicographic by component",
                               &deepest_then_components);
  return order;
}

const LockOrder& LockOrder::depth_only() {
  static const LockOrder order("depth-only",
                               "by depth alone, NOT a total order: paths of equal depth tie, "
                               "and ties keep request order (a deliberately broken order)",
                               &by_depth_only, Ancestry::kAncestorsFirst, Totality::kNotTotal);
  return order;
}

std::span<const LockOrder* const> LockOrder::builtins() {
  static const std::array<const LockOrder*, 4> all{&ancestor_first(), &preorder(),
                                                   &deepest_first(), &depth_only()};
  return all;
}

const LockOrder* LockOrder::find(std::string_view name) {
  for (const auto* order : builtins()) {
    if (order->name() == name) return order;
  }
  return nullptr;
}

}  // namespace pathlock::impl
