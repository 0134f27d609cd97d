#include <cstdint>

#include "pathlock/impl/path_lock_gate.hpp"
#include "pathlock/impl/scheme.hpp"

namespace pathlock::impl {

std::uint32_t root_gate_modes(const Scheme& scheme) {
  std::uint32_t accepted = 0;
  for (const Role role : {Role::kReadAncestor, Role::kWriteAncestor, Role::kReadTarget}) {
    std::uint32_t set = accepted | (1U << scheme.mode_for(role).index);
    for (bool grew = true; grew;) {  // close under join
      grew = false;
      for (std::uint8_t a = 0; a < scheme.mode_count(); ++a) {
        for (std::uint8_t b = 0; b < scheme.mode_count(); ++b) {
          if (((set >> a) & 1U) == 0 || ((set >> b) & 1U) == 0) continue;
          const std::uint32_t j = 1U << scheme.join(ModeId{a}, ModeId{b}).index;
          if ((set & j) == 0) {
            set |= j;
            grew = true;
          }
        }
      }
    }
    bool clique = true;
    for (std::uint8_t a = 0; a < scheme.mode_count(); ++a) {
      for (std::uint8_t b = 0; b < scheme.mode_count(); ++b) {
        if (((set >> a) & 1U) && ((set >> b) & 1U) && !scheme.compatible(ModeId{a}, ModeId{b})) clique = false;
      }
    }
    if (clique) accepted = set;
  }
  return accepted;
}

}  // namespace pathlock::impl
