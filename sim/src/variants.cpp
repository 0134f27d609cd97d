#include "pathlock/sim/variants.hpp"

#include <algorithm>
#include <array>

namespace pathlock::sim {

impl::Scheme scheme_variant(const impl::Scheme& base, void (*edit)(impl::SchemeSpec&), const char* name) {
  impl::SchemeSpec spec = base.spec();
  spec.name = name;
  edit(spec);
  return impl::Scheme(std::move(spec));
}

const impl::LockOrder& depth_only_order() {
  static const impl::LockOrder order =
      impl::LockOrder::from_keys("depth-only", {impl::OrderKey::depth(impl::Direction::kAscending)});
  return order;
}

std::span<const impl::LockOrder* const> harness_orders() {
  static const auto all = [] {
    const auto builtins = impl::LockOrder::builtins();
    std::array<const impl::LockOrder*, 4> orders{};
    std::copy(builtins.begin(), builtins.end(), orders.begin());
    orders.back() = &depth_only_order();
    return orders;
  }();
  return all;
}

const impl::LockOrder* find_harness_order(std::string_view name) {
  for (const auto* order : harness_orders()) {
    if (order->name() == name) return order;
  }
  return nullptr;
}

impl::Scheme request_order_variant() {
  return scheme_variant(impl::path_rwa_joined_scheme(),
                        [](impl::SchemeSpec& s) { s.acquisition = impl::Acquisition::kRequestOrder; }, "request-order");
}

impl::Scheme per_role_variant() {
  return scheme_variant(impl::path_rwa_joined_scheme(),
                        [](impl::SchemeSpec& s) { s.joining = impl::ModeJoining::kPerRole; }, "per-role");
}

impl::Scheme depth_only_variant() {
  return impl::path_rwa_joined_scheme().with_order(depth_only_order(), "depth-only");
}

}  // namespace pathlock::sim
