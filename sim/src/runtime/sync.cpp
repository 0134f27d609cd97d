#include "pathlock/sim/runtime/sync.hpp"

#include <algorithm>
#include <exception>
#include <string>
#include <string_view>

#include "executor.hpp"
#include "pathlock/sim/runtime/runtime.hpp"

namespace pathlock::sim::runtime::detail {

namespace {
// The owner of a lock taken outside any run (building or checking state).
constexpr std::uint32_t kOutsideRun = kNoThread - 1;

bool is_spin_lock(const LockState& state) noexcept { return std::string_view(state.kind) == "spin lock"; }

// A spin lock is held for a few instructions and never across a blocking
// call: a thread that sleeps holding one makes every other thread that
// wants it spin for as long.
void check_not_under_spin_lock(Executor& executor, const char* call, const Where& where) {
  LogicalThread& me = executor.thread(thread_index(executor));
  if (me.spin_locks_held != 0) {
    executor.broke_rule(std::string("a blocking call (") + call + " at " + where.file_name() + ":" +
                        std::to_string(where.line()) + ") while holding a spin lock");
  }
}
}  // namespace

void lock(LockState& state, const Where& where) {
  Executor* executor = active_executor();
  if (executor == nullptr) {
    if (state.owner != kNoThread) std::terminate();  // would block forever outside a run
    state.owner = kOutsideRun;
    return;
  }
  if (!is_spin_lock(state)) check_not_under_spin_lock(*executor, state.kind, where);
  step(*executor, Operation{.what = "lock", .where = where, .wait_word = &state.owner, .wait_value = kNoThread,
                            .object = state.kind, .object_declared = state.declared});
  state.owner = thread_index(*executor);
  if (is_spin_lock(state)) ++executor->thread(state.owner).spin_locks_held;
  wrote(*executor);
}

void unlock(LockState& state, const Where& where) {
  if (Executor* executor = active_executor()) {
    step(*executor, Operation{.what = "unlock", .where = where, .object = state.kind, .object_declared = state.declared});
    if (is_spin_lock(state) && state.owner != kNoThread) --executor->thread(state.owner).spin_locks_held;
    state.owner = kNoThread;
    wrote(*executor);
    return;
  }
  state.owner = kNoThread;
}

bool held_by_caller(const LockState& state) noexcept {
  const Executor* executor = active_executor();
  return state.owner == (executor == nullptr ? kOutsideRun : thread_index(*executor));
}

std::cv_status wait(CondVarState& cv, LockState& mutex, const std::chrono::nanoseconds* deadline,
                    const Where& where) {
  Executor* executor = active_executor();
  if (executor == nullptr) {
    // Nobody could notify: outside a run only an expired wait makes sense.
    if (deadline == nullptr) std::terminate();
    return std::cv_status::timeout;
  }
  check_not_under_spin_lock(*executor, "condition variable wait", where);
  step(*executor, Operation{.what = "wait: release the mutex", .where = where, .object = "condition variable",
                            .object_declared = cv.declared});
  const std::uint32_t me = thread_index(*executor);
  mutex.owner = kNoThread;
  std::uint32_t* wake = arm_wake(*executor);
  cv.waiters[cv.count++] = me;
  wrote(*executor);
  Operation sleep{.what = "wait: woken", .where = where, .wait_word = wake, .wait_value = 1,
                  .object = "condition variable", .object_declared = cv.declared};
  if (deadline != nullptr) sleep.deadline = *deadline;
  step(*executor, sleep);
  const bool by_deadline = timed_out(*executor);
  if (by_deadline) {
    // Still queued: nobody notified it.
    auto* end = cv.waiters.begin() + cv.count;
    auto* it = std::find(cv.waiters.begin(), end, me);
    if (it != end) {
      std::copy(it + 1, end, it);
      --cv.count;
    }
  }
  lock(mutex, where);
  return by_deadline ? std::cv_status::timeout : std::cv_status::no_timeout;
}

void notify(CondVarState& cv, NotifyMode mode, const Where& where) {
  Executor* executor = active_executor();
  if (executor == nullptr) return;  // outside a run nobody waits
  step(*executor, Operation{.what = mode == NotifyMode::kOne ? "notify_one" : "notify_all", .where = where,
                            .object = "condition variable", .object_declared = cv.declared});
  const std::uint32_t woken = mode == NotifyMode::kOne ? std::min<std::uint32_t>(cv.count, 1) : cv.count;
  for (std::uint32_t i = 0; i < woken; ++i) *wake_word(*executor, cv.waiters[i]) = 1;
  std::copy(cv.waiters.begin() + woken, cv.waiters.begin() + cv.count, cv.waiters.begin());
  cv.count -= woken;
  if (woken > 0) wrote(*executor);
}

}  // namespace pathlock::sim::runtime::detail
