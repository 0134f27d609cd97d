#pragma once
// Lock-order comparisons that claim more than they deliver, for tests that a
// checker does not trust a scheme's claims (sim/plan_claims.hpp).

#include <compare>
#include <string_view>

#include "pathlock/model/path.hpp"

namespace pathlock::testing {

// Claims to be a strict total order, but ties siblings (/a and /ab): not
// total. (Still a strict weak order, so sorting by it is defined.)
inline std::strong_ordering ties_siblings(std::string_view a, std::string_view b) {
  const auto da = model::path_text_depth(a);
  const auto db = model::path_text_depth(b);
  if (da != db) return da <=> db;
  if (a != b && a.substr(0, a.rfind('/')) == b.substr(0, b.rfind('/'))) return std::strong_ordering::equal;
  return model::compare_path_text(a, b);
}

// A strict total order (deepest first), for a LockOrder that claims to put
// ancestors first: one-path plans are then emitted shallowest first, against
// the order.
inline std::strong_ordering deepest_first(std::string_view a, std::string_view b) {
  const auto da = model::path_text_depth(a);
  const auto db = model::path_text_depth(b);
  if (da != db) return db <=> da;
  return model::compare_path_text(a, b);
}

}  // namespace pathlock::testing
