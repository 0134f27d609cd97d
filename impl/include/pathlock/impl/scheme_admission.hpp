#pragma once
// Is a scheme sound enough for the production lock? PathLock refuses, unless
// told otherwise (PathLockOptions::scheme_admission), a scheme whose plans can
// deadlock (locks not taken once each in one strict total order) or whose
// joined modes let a conflicting request in (a join weaker than one of its
// operands). The harness still runs such schemes on purpose, to show that
// its checkers catch them.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pathlock/impl/scheme.hpp"

namespace pathlock::impl {

enum class SchemeDefectKind : std::uint8_t {
  kRequestOrder,   // locks taken in request order, not sorted
  kPerRoleModes,   // a lock taken once per role mode instead of once in the join
  kOrderNotTotal,  // the order ties distinct paths (or is no order at all)
  kWeakJoin,       // join(a, b) is compatible with a mode that a or b conflicts with
};
std::string_view to_string(SchemeDefectKind kind) noexcept;  // "request order", ...

struct SchemeDefect {
  SchemeDefectKind kind = SchemeDefectKind::kWeakJoin;
  std::string explanation;  // "join(R, WA) = WA is compatible with W, which R conflicts with"
};

// Every defect of `scheme`, by kind in the order above; empty iff it is sound.
std::vector<SchemeDefect> scheme_defects(const Scheme& scheme);

// Throws std::invalid_argument naming the scheme and each defect (and how to
// use it anyway) if it has any.
void require_sound_scheme(const Scheme& scheme);

}  // namespace pathlock::impl
