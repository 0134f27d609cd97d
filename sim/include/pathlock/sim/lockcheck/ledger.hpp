#pragma once
// The safety judge of `check-lock`: which requests each logical thread holds,
// by the lock's own word (an acquire that returned kGranted, until its guard
// is released), and whether two threads ever hold conflicting ones at once,
// judged by the model's conflict predicate. A thread's own nested holds are
// not compared with each other: the lock would make such a thread wait for
// itself, never grant it twice.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pathlock/model/request.hpp"

namespace pathlock::sim::lockcheck {

class GrantLedger {
 public:
  explicit GrantLedger(std::size_t threads) : held_(threads) {}

  // `thread`'s acquire of `request` returned kGranted. Returns the violation
  // (the two threads and requests) if another thread holds a conflicting one.
  std::optional<std::string> granted(std::uint32_t thread, const model::Request& request);
  // `thread` is about to release its hold of `request` (the most recent one).
  void releasing(std::uint32_t thread, const model::Request& request);

  std::size_t holds(std::uint32_t thread) const noexcept { return held_[thread].size(); }
  std::size_t total_holds() const noexcept;

 private:
  std::vector<std::vector<model::Request>> held_;  // by thread, in grant order
};

}  // namespace pathlock::sim::lockcheck
