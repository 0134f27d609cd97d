#include "pathlock/model/conflict.hpp"

namespace pathlock::model {

bool related(const Path& p, const Path& q) noexcept {
  return p == q || p.is_proper_ancestor_of(q) || q.is_proper_ancestor_of(p);
}

std::optional<ConflictWitness> conflict_witness(const Request& a, const Request& b) {
  // Deliberately the plain quadratic reading of the definition: this is the
  // oracle, and it must be obviously right rather than fast.
  const auto scan = [](const std::vector<Path>& xs, Access xa, const std::vector<Path>& ys,
                       Access ya) -> std::optional<ConflictWitness> {
    for (const auto& x : xs) {
      for (const auto& y : ys) {
        if (related(x, y)) return ConflictWitness{x, xa, y, ya};
      }
    }
    return std::nullopt;
  };
  if (auto w = scan(a.writes(), Access::kWrite, b.writes(), Access::kWrite)) return w;
  if (auto w = scan(a.writes(), Access::kWrite, b.reads(), Access::kRead)) return w;
  if (auto w = scan(a.reads(), Access::kRead, b.writes(), Access::kWrite)) return w;
  return std::nullopt;
}

bool conflicts(const Request& a, const Request& b) { return conflict_witness(a, b).has_value(); }

}  // namespace pathlock::model
