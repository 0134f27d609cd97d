#include <algorithm>
#include <bit>
#include <cstdint>
#include <tuple>
#include <vector>

#include "pathlock/impl/path_lock_gate.hpp"
#include "pathlock/impl/scheme.hpp"

namespace pathlock::impl {
namespace {

bool valid_gate_set(const Scheme& scheme, std::uint32_t set) {
  const auto n = scheme.mode_count();
  for (std::uint8_t a = 0; a < n; ++a) {
    if (((set >> a) & 1U) == 0) continue;
    for (std::uint8_t b = 0; b < n; ++b) {
      if (((set >> b) & 1U) == 0) continue;
      if (!scheme.compatible(ModeId{a}, ModeId{b})) return false;
      // A task that takes two of these modes on one lock holds their join.
      if (((set >> scheme.join(ModeId{a}, ModeId{b}).index) & 1U) == 0) return false;
    }
  }
  return true;
}

}  // namespace

std::vector<std::uint32_t> gate_mode_sets(const Scheme& scheme) {
  const std::uint32_t all = (1U << scheme.mode_count()) - 1;
  std::vector<std::uint32_t> valid;
  for (std::uint32_t set = 1; set <= all; ++set) {
    if (valid_gate_set(scheme, set)) valid.push_back(set);
  }
  std::vector<std::uint32_t> maximal;
  for (const std::uint32_t set : valid) {
    const bool contained = std::any_of(valid.begin(), valid.end(),
                                       [&](std::uint32_t other) { return other != set && (set & ~other) == 0; });
    if (!contained) maximal.push_back(set);
  }
  // Folders first: a set holding both ancestor modes, then one holding the
  // read-ancestor mode; larger before smaller; then by mask, for a fixed order.
  const std::uint32_t read_ancestor = 1U << scheme.mode_for(Role::kReadAncestor).index;
  const std::uint32_t ancestors = read_ancestor | 1U << scheme.mode_for(Role::kWriteAncestor).index;
  const auto rank = [&](std::uint32_t set) {
    return std::make_tuple((set & ancestors) == ancestors ? 0 : 1, (set & read_ancestor) != 0 ? 0 : 1,
                           -std::popcount(set), set);
  };
  std::sort(maximal.begin(), maximal.end(), [&](std::uint32_t a, std::uint32_t b) { return rank(a) < rank(b); });
  return maximal;
}

std::uint32_t exclusive_gate_modes(const Scheme& scheme) {
  std::uint32_t modes = 0;
  for (std::uint8_t m = 0; m < scheme.mode_count(); ++m) {
    if (!scheme.compatible(ModeId{m}, ModeId{m})) modes |= 1U << m;
  }
  return modes;
}

}  // namespace pathlock::impl
