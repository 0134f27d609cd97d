#pragma once
// The verification kit's broken schemes and orders: they exist to show that
// the checkers (check, explore, check-lock, SPIN) reject them, so they live
// here rather than among the lock's built-ins, and PathLock refuses them by
// default (impl/scheme_admission.hpp).

#include <span>
#include <string_view>

#include "pathlock/impl/order.hpp"
#include "pathlock/impl/scheme.hpp"

namespace pathlock::sim {

// By depth alone: NOT a strict total order (siblings, and /a and /ab, tie;
// planning keeps tied locks in request order). Defined by keys, so that a
// scheme file carries it as data ("acquisition.order": {"name":
// "depth-only", "keys": [{"by": "depth", ...}]}).
const impl::LockOrder& depth_only_order();

// The orders `--order` and a scenario's "order" may name: the lock's
// built-in orders, then depth-only.
std::span<const impl::LockOrder* const> harness_orders();
// nullptr if no harness order has that name.
const impl::LockOrder* find_harness_order(std::string_view name);

// `base` with one edit to its specification, under a new name.
impl::Scheme scheme_variant(const impl::Scheme& base, void (*edit)(impl::SchemeSpec&), const char* name);

// The three broken variants of path-rwa-joined that proofs/flaws.md shows
// deadlocking (each breaks deadlock freedom's hypothesis H1): locks in
// request order, one lock per role mode, and the depth-only order.
impl::Scheme request_order_variant();
impl::Scheme per_role_variant();
impl::Scheme depth_only_variant();

}  // namespace pathlock::sim
