#pragma once
// The specification: which requests must never hold their locks together.
// This is the oracle that judges every scheme; impl/ never calls it.

#include <optional>

#include "pathlock/model/path.hpp"
#include "pathlock/model/request.hpp"

namespace pathlock::model {

// p and q are related iff q is in L(p), the lineage of p: p itself, an
// ancestor of p, or a descendant of p. Symmetric.
bool related(const Path& p, const Path& q) noexcept;

// Why two requests conflict: `first` (accessed by request A with `first_access`)
// is related to `second` (accessed by B with `second_access`), and at least
// one of the two accesses is a write.
struct ConflictWitness {
  Path first;
  Access first_access;
  Path second;
  Access second_access;
};

// A and B conflict iff some path written by one is related to some path read
// or written by the other.
bool conflicts(const Request& a, const Request& b);
std::optional<ConflictWitness> conflict_witness(const Request& a, const Request& b);

}  // namespace pathlock::model
