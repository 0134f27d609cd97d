#pragma once
// RapidCheck generators for orders defined by keys (order.hpp).

#include <rapidcheck.h>

#include <algorithm>
#include <vector>

#include "pathlock/impl/order.hpp"
#include "support/generators.hpp"

namespace pathlock::testing {

// A depth or rank key (never components), in either direction; rank lists
// hold distinct paths from the small alphabet, so they often list related
// paths and sibling prefixes (/a, /ab).
inline rc::Gen<impl::OrderKey> gen_partial_order_key() {
  return rc::gen::apply(
      [](bool rank, bool descending, std::vector<model::Path> paths, bool rest_before) {
        const auto direction = descending ? impl::Direction::kDescending : impl::Direction::kAscending;
        if (!rank) return impl::OrderKey::depth(direction);
        std::vector<model::Path> distinct;
        for (auto& p : paths) {
          if (std::find(distinct.begin(), distinct.end(), p) == distinct.end()) distinct.push_back(std::move(p));
        }
        if (distinct.empty()) distinct.push_back(model::Path::root());
        return impl::OrderKey::rank(std::move(distinct), rest_before ? impl::Unranked::kBefore : impl::Unranked::kAfter);
      },
      rc::gen::arbitrary<bool>(), rc::gen::arbitrary<bool>(),
      rc::gen::container<std::vector<model::Path>>(gen_path(3)), rc::gen::arbitrary<bool>());
}

// 1..5 depth and rank keys, then (with `tie_break`) a components key in
// either direction: a strict total order.
enum class TieBreak { kComponents, kNone };
inline rc::Gen<std::vector<impl::OrderKey>> gen_order_keys(TieBreak tie_break) {
  return rc::gen::apply(
      [tie_break](std::vector<impl::OrderKey> keys, bool descending) {
        if (tie_break == TieBreak::kComponents) {
          keys.push_back(impl::OrderKey::components(descending ? impl::Direction::kDescending
                                                               : impl::Direction::kAscending));
        }
        return keys;
      },
      rc::gen::resize(5, rc::gen::nonEmpty(rc::gen::container<std::vector<impl::OrderKey>>(gen_partial_order_key()))),
      rc::gen::arbitrary<bool>());
}

}  // namespace pathlock::testing

namespace pathlock::impl {
inline void showValue(const OrderKey& k, std::ostream& os) {
  os << to_string(k.by);
  if (k.by != OrderKeyKind::kRank) {
    os << ' ' << to_string(k.direction);
    return;
  }
  os << " [";
  for (const auto& p : k.ranked) os << p.str() << ' ';
  os << "] rest " << to_string(k.rest);
}
}  // namespace pathlock::impl
