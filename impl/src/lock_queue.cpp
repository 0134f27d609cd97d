#include "pathlock/impl/lock_queue.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace pathlock::impl {
namespace {

std::uint32_t bit(ModeId m) { return 1U << m.index; }

}  // namespace

bool LockQueue::compatible_with_mask(const Scheme& scheme, ModeId mode,
                                     std::uint32_t mask) const noexcept {
  for (std::uint8_t m = 0; mask != 0; ++m, mask >>= 1) {
    if ((mask & 1U) && !scheme.compatible(mode, ModeId{m})) return false;
  }
  return true;
}

AcquireOutcome LockQueue::acquire(const Scheme& scheme, TaskId task, ModeId mode) {
  keep_room(1);  // before any change: room for this request, granted now or later
  // A task's own holds count like anyone's: no re-entrancy.
  if (compatible_with_mask(scheme, mode, held_mask_ | queued_mask_)) {
    holders_.push_back({task, mode});
    held_mask_ |= bit(mode);
    return AcquireOutcome::kGranted;
  }
  waiters_.push_back({task, mode});
  queued_mask_ |= bit(mode);
  return AcquireOutcome::kQueued;
}

bool LockQueue::try_acquire(const Scheme& scheme, TaskId task, ModeId mode) {
  if (!compatible_with_mask(scheme, mode, held_mask_ | queued_mask_)) return false;
  keep_room(1);
  holders_.push_back({task, mode});
  held_mask_ |= bit(mode);
  return true;
}

void LockQueue::recompute_masks() {
  held_mask_ = 0;
  queued_mask_ = 0;
  for (const auto& h : holders_) held_mask_ |= bit(h.mode);
  for (const auto& w : waiters_) queued_mask_ |= bit(w.mode);
}

std::size_t LockQueue::grants_after(const Scheme& scheme, std::uint32_t held, const LockEntry* gone) const noexcept {
  std::uint32_t ahead = 0;
  std::size_t n = 0;
  for (const LockEntry& w : waiters_) {
    if (&w == gone) continue;
    if (compatible_with_mask(scheme, w.mode, held | ahead)) {
      held |= bit(w.mode);
      ++n;
    } else {
      ahead |= bit(w.mode);
    }
  }
  return n;
}

void LockQueue::reserve_holders(std::size_t more) { keep_room(more); }

void LockQueue::grant_waiters(const Scheme& scheme) noexcept {
  std::uint32_t ahead = 0;  // modes of waiters still ahead
  std::size_t kept = 0;
  for (std::size_t i = 0; i < waiters_.size(); ++i) {
    const LockEntry w = waiters_[i];
    if (compatible_with_mask(scheme, w.mode, held_mask_ | ahead)) {
      holders_.push_back(w);  // within the room (see Room), or reserved by the caller
      held_mask_ |= bit(w.mode);
    } else {
      ahead |= bit(w.mode);
      waiters_[kept++] = w;
    }
  }
  waiters_.resize(kept);
  queued_mask_ = ahead;
}

LockQueue::Granted LockQueue::remove_granting(const Scheme& scheme, std::vector<LockEntry>& from, TaskId task) {
  const auto it = std::find_if(from.begin(), from.end(), [task](const LockEntry& e) { return e.task == task; });
  if (it == from.end()) return {Granted::Outcome::kNotFound, 0};
  const auto at = it - from.begin();
  // A copied queue lacks the room: make it before any change (strong guarantee).
  if (holders_.capacity() < holders_.size() + waiters_.size()) keep_room(0);
  from.erase(from.begin() + at);
  recompute_masks();
  const std::size_t before = holders_.size();
  if (!waiters_.empty()) grant_waiters(scheme);
  return {Granted::Outcome::kDone, holders_.size() - before};
}

bool LockQueue::remove_and_grant(const Scheme& scheme, std::vector<LockEntry>& from, TaskId task,
                                 std::vector<LockEntry>& granted) {
  const auto it = std::find_if(from.begin(), from.end(), [task](const LockEntry& e) { return e.task == task; });
  if (it == from.end()) return false;
  if (!waiters_.empty()) {
    // Room in `granted` before any change (strong guarantee).
    std::uint32_t held = 0;
    for (const auto& h : holders_) {
      if (&h != &*it) held |= bit(h.mode);
    }
    granted.reserve(granted.size() + grants_after(scheme, held, &from == &waiters_ ? &*it : nullptr));
  }
  const auto [outcome, count] = remove_granting(scheme, from, task);
  const auto fresh = last_granted(count);
  granted.insert(granted.end(), fresh.begin(), fresh.end());
  return outcome == Granted::Outcome::kDone;
}

bool LockQueue::release(const Scheme& scheme, TaskId task, std::vector<LockEntry>& granted) {
  return remove_and_grant(scheme, holders_, task, granted);
}

bool LockQueue::cancel(const Scheme& scheme, TaskId task, std::vector<LockEntry>& granted) {
  return remove_and_grant(scheme, waiters_, task, granted);
}

void LockQueue::blockers(const Scheme& scheme, TaskId waiter, std::vector<TaskId>& out) const {
  const auto me = std::find_if(waiters_.begin(), waiters_.end(),
                               [waiter](const LockEntry& w) { return w.task == waiter; });
  if (me == waiters_.end()) return;
  for (const auto& h : holders_) {
    if (!scheme.compatible(h.mode, me->mode)) out.push_back(h.task);
  }
  for (auto w = waiters_.begin(); w != me; ++w) {
    if (!scheme.compatible(w->mode, me->mode)) out.push_back(w->task);
  }
}

std::string LockQueue::check_invariants(const Scheme& scheme) const {
  std::uint32_t held = 0;
  for (std::size_t i = 0; i < holders_.size(); ++i) {
    held |= bit(holders_[i].mode);
    for (std::size_t j = 0; j < i; ++j) {
      if (!scheme.compatible(holders_[i].mode, holders_[j].mode)) {
        return fmt::format("holders {} ({}) and {} ({}) are incompatible", holders_[i].task,
                           scheme.mode_name(holders_[i].mode), holders_[j].task,
                           scheme.mode_name(holders_[j].mode));
      }
    }
  }
  if (held != held_mask_) return "held mask does not match the holders";
  std::uint32_t ahead = 0;
  for (const auto& w : waiters_) {
    if (compatible_with_mask(scheme, w.mode, held | ahead)) {
      return fmt::format("waiter {} ({}) could be granted", w.task, scheme.mode_name(w.mode));
    }
    ahead |= bit(w.mode);
  }
  if (ahead != queued_mask_) return "queued mask does not match the waiters";
  return {};
}

}  // namespace pathlock::impl
