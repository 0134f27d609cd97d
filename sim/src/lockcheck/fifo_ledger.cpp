#include "pathlock/sim/lockcheck/fifo_ledger.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace pathlock::sim::lockcheck {
namespace {

// Where `task` is in `from`, if it is.
std::optional<std::size_t> index_of(const auto& from, impl::TaskId task) {
  for (std::size_t i = 0; i < from.size(); ++i) {
    if (from[i].task == task) return i;
  }
  return std::nullopt;
}

}  // namespace

FairnessPromise fairness_promise(const impl::Scheme& scheme) {
  switch (scheme.fairness()) {
    case impl::Fairness::kFifo: return {FairnessKind::kFifo, 0};
    case impl::Fairness::kBoundedBypass: return {FairnessKind::kBoundedBypass, scheme.bypass_bound()};
    case impl::Fairness::kNone: break;
  }
  return {FairnessKind::kNone, 0};
}

std::string FifoLedger::who(impl::TaskId task) const {
  // DeterministicPlatform::next_task_id: (thread + 1) << 32, plus a count.
  if (task >= (impl::TaskId{1} << 32)) return fmt::format("thread {}", (task >> 32) - 1);
  // Below 2^16: a gate's pseudo holder for the fast holders of a mode.
  return fmt::format("the gate's pseudo holder for {}",
                     scheme_.mode_name(impl::ModeId{static_cast<std::uint8_t>(task)}));
}

std::optional<std::string> FifoLedger::granted(const std::string& lock, LockOrder& order, impl::TaskId task,
                                               impl::ModeId mode, std::uint64_t now) {
  // When the grantee asked for this lock: as a waiter, as a fast holder the
  // gate counted, or now (granted at once).
  std::uint64_t asked = now;
  if (const auto i = index_of(order.waiting, task)) {
    asked = order.waiting[*i].order;
    order.waiting.erase(order.waiting.begin() + static_cast<std::ptrdiff_t>(*i));
  } else if (const auto j = index_of(order.asking, task)) {
    asked = order.asking[*j].order;
    order.asking.erase(order.asking.begin() + static_cast<std::ptrdiff_t>(*j));
  }
  const bool pseudo_holder = task < (impl::TaskId{1} << 16);
  for (Arrival& w : order.waiting) {
    if (w.order >= asked || scheme_.compatible(mode, w.mode) || (pseudo_holder && w.at_gate)) continue;
    if (++w.overtaken <= promise_.max_bypass || promise_.kind == FairnessKind::kNone) continue;
    const std::string bound =
        promise_.kind == FairnessKind::kFifo
            ? std::string()
            : fmt::format(" (overtaken {} times, beyond the scheme's bound of {})", w.overtaken, promise_.max_bypass);
    return fmt::format("FIFO broken: {} was granted {} on {} while {}, queued there earlier in {}, still waits{}",
                       who(task), scheme_.mode_name(mode), lock, who(w.task), scheme_.mode_name(w.mode), bound);
  }
  return std::nullopt;
}

std::optional<std::string> FifoLedger::observe(const runtime::LockObservation& seen) {
  const std::uint64_t now = facts_++;
  auto it = locks_.find(seen.lock);
  if (it == locks_.end()) it = locks_.emplace(std::string(seen.lock), LockOrder{}).first;
  LockOrder& order = it->second;
  const auto forget = [&](std::vector<Arrival>& from) {
    if (const auto i = index_of(from, seen.task)) from.erase(from.begin() + static_cast<std::ptrdiff_t>(*i));
  };
  switch (seen.event) {
    case impl::LockEvent::kAsked: order.asking.push_back({seen.task, seen.mode, now}); break;
    case impl::LockEvent::kQueued: order.waiting.push_back({seen.task, seen.mode, now}); break;
    case impl::LockEvent::kQueuedAtGate: order.waiting.push_back({seen.task, seen.mode, now, 0, true}); break;
    case impl::LockEvent::kGranted: return granted(it->first, order, seen.task, seen.mode, now);
    case impl::LockEvent::kWithdrawn:
      forget(order.waiting);
      forget(order.asking);
      break;
    case impl::LockEvent::kReleased: break;
  }
  return std::nullopt;
}

std::size_t FifoLedger::waiting() const noexcept {
  std::size_t n = 0;
  for (const auto& [lock, order] : locks_) n += order.waiting.size();
  return n;
}

}  // namespace pathlock::sim::lockcheck
