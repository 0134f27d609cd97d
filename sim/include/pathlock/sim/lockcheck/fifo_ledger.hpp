#pragma once
// The fairness judge of `check-lock`: each lock's arrival order, kept from
// the facts the lock tells its platform (impl::LockEvent), never read from
// the lock's own queues, and every grant judged against it.
//
// Per lock L, not per request: a request may wait at an ancestor while a
// later one, compatible there, passes on to the lock where they conflict;
// the lock promises FIFO on each lock, not across locks. A grant of mode m on
// L to task g overtakes a waiter w iff w still waits on L, w queued on L
// before g asked for L, and the scheme says m and w's mode are incompatible.
// g asked for L when it queued there (a waiter), when it was granted at once,
// or, through a gate's fast path, when its slot was published (kAsked:
// that increment is the grant's moment, the re-read of the gate only
// confirms it).
//
// A scheme promises FIFO (no waiter is ever overtaken) or bounded bypass (a
// waiter is overtaken at most `max_bypass` times); an overtake beyond the
// promise is a violation.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pathlock/impl/platform.hpp"
#include "pathlock/impl/scheme.hpp"
#include "pathlock/sim/runtime/runtime.hpp"

namespace pathlock::sim::lockcheck {

enum class FairnessKind : std::uint8_t { kFifo, kBoundedBypass, kNone };

struct FairnessPromise {
  FairnessKind kind = FairnessKind::kFifo;
  std::size_t max_bypass = 0;  // overtakes a waiter may suffer (0 for kFifo; kNone: unjudged)
};

// What `scheme` promises about the order of grants on one lock: its
// Scheme::fairness() and bypass_bound(). kNone: overtakes are counted, never
// reported.
FairnessPromise fairness_promise(const impl::Scheme& scheme);

class FifoLedger {
 public:
  FifoLedger(const impl::Scheme& scheme, FairnessPromise promise) : scheme_(scheme), promise_(promise) {}

  // One fact from the lock. Returns the violation, if this grant overtakes
  // a waiter beyond the promise.
  std::optional<std::string> observe(const runtime::LockObservation& seen);

  // Tasks waiting on some lock, by this ledger's account.
  std::size_t waiting() const noexcept;

 private:
  struct Arrival {
    impl::TaskId task;
    impl::ModeId mode;
    std::uint64_t order;      // when it asked for the lock, in this ledger's count of facts
    std::size_t overtaken = 0;
    // Queued in the lock's exclusive gate's own queue: the gate's pseudo
    // holder, granted when the gate closes, stands for it (no overtaking).
    bool at_gate = false;
  };
  struct LockOrder {
    std::vector<Arrival> waiting;  // queued, in arrival order
    std::vector<Arrival> asking;   // published fast, not yet granted or withdrawn
  };
  std::optional<std::string> granted(const std::string& lock, LockOrder& order, impl::TaskId task,
                                     impl::ModeId mode, std::uint64_t now);
  std::string who(impl::TaskId task) const;

  const impl::Scheme& scheme_;
  FairnessPromise promise_;
  std::map<std::string, LockOrder, std::less<>> locks_;
  std::uint64_t facts_ = 0;
};

}  // namespace pathlock::sim::lockcheck
