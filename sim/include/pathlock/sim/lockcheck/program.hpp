#pragma once
// The programs `check-lock` runs against the real PathLock: a few logical
// threads, each making a short list of lock calls over a small tree whose
// siblings share string prefixes (/a, /a/b, /ab, /b).
//
// Every call names a request (any of the five operations), how it waits, and
// whether its guard is released before the thread's next call or kept (a
// nested acquisition, released when the thread ends, last acquired first).
//
//   kBlocking   acquire(request): waits until granted.
//   kTry        try_acquire(request): never waits; rolls back on a busy lock.
//   kTimed      acquire_until(request, now + 1 ms of virtual time): the
//               deadline passing is a scheduler choice at every wait.
//   kStoppable  acquire(request, stop token): a stopper thread of its own
//               requests stop, at whatever point the scheduler picks.
//   kAsync      async_acquire(request, handler): the thread goes on at once;
//               the handler (inline, or on the thread whose release grants
//               it) holds the request for one step and releases it.
//   kAsyncCancelled  kAsync, and a canceller thread of its own cancels the
//               acquisition at whatever point the scheduler picks.
//   kAsyncAgain kAsync, whose handler, once it has released, starts a
//               second async acquisition of the same request (from inside
//               a handler: granted at once, its handler must run after).
//   kAwait      a coroutine's co_await acquire_async(request): the thread
//               goes on once the coroutine suspends (or has run through);
//               the code after the co_await (inline, or on the thread whose
//               release grants it) holds the request for one step and
//               releases it. A grant on another thread may come before the
//               coroutine has suspended.
//   kAwaitStoppable  kAwait with a stop token: a stopper thread of its own
//               requests stop at whatever point the scheduler picks (before
//               the co_await, while it waits, or as the grant comes); the
//               coroutine resumes once, granted or cancelled, and a stop
//               requested before the co_await began ends it cancelled.
//
// The family is a fixed list of programs, each aimed at one mechanism of the
// lock (the gates' close, drain and retirement, eviction and reuse of idle entries,
// a timeout or a stop racing a grant, try's rollback, nesting), followed by
// programs drawn from a seed. Each program runs under every point of the
// option space (gates on and off, one or two shards, zero or one idle
// entry kept).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pathlock/model/request.hpp"

namespace pathlock::sim::lockcheck {

enum class WaitStyle : std::uint8_t {
  kBlocking,
  kTry,
  kTimed,
  kStoppable,
  kAsync,
  kAsyncCancelled,
  kAsyncAgain,
  kAwait,
  kAwaitStoppable,
};
// Async acquisitions a call of this style makes (each has a ledger slot and a handler record).
std::size_t async_slots(WaitStyle style) noexcept;
enum class AfterGrant : std::uint8_t { kReleaseBeforeNext, kHoldToEnd };

std::string_view to_string(WaitStyle style) noexcept;
// A stopper thread requests stop for calls of this style.
bool takes_a_stop_token(WaitStyle style) noexcept;

struct LockCall {
  model::Operation operation;
  WaitStyle style = WaitStyle::kBlocking;
  AfterGrant after = AfterGrant::kReleaseBeforeNext;
};

struct ThreadPlan {
  std::vector<LockCall> calls;
};

struct LockProgram {
  std::string name;     // a built-in program's name, or "random-<seed>-<i>"
  std::string purpose;  // what it exercises, one line
  std::vector<ThreadPlan> threads;

  // Logical threads a run needs: the lock's threads plus one stopper per
  // stoppable call (kStoppable or kAwaitStoppable).
  std::size_t stoppable_calls() const noexcept;
  // Async calls (each holds its grant apart from its thread's) and, of
  // them, those a canceller thread cancels.
  std::size_t async_calls() const noexcept;
  std::size_t cancelled_calls() const noexcept;
  bool has_nesting() const noexcept;
};

// "T0: write(/a) hold; read(/b) try | T1: ...": one line, for reports.
std::string describe(const LockProgram& program);

enum class GateSetting : std::uint8_t { kOn, kOff };

// One point of the lock's option space.
struct LockSetting {
  GateSetting gates = GateSetting::kOn;
  std::size_t shards = 1;
  std::size_t max_idle = 0;
};
std::string describe(const LockSetting& setting);

// Every point: gates on/off x 1-2 shards x 0-1 idle entries kept.
std::vector<LockSetting> all_settings();

// The built-in programs, in a fixed order.
std::vector<LockProgram> builtin_programs();

struct RandomFamily {
  std::uint64_t seed = 1;
  std::size_t programs = 0;      // how many to draw
  std::size_t max_threads = 3;   // 2..max_threads lock threads each (at most 4)
  std::size_t max_calls = 2;     // 1..max_calls calls per thread (at most 3)
};
inline constexpr std::size_t kMaxLockThreads = 4;
inline constexpr std::size_t kMaxCallsPerThread = 3;

// Programs drawn from the family's seed; the same seed gives the same
// programs. Throws model::InputError(kBadParameter) naming a limit that is
// exceeded.
std::vector<LockProgram> random_programs(const RandomFamily& family);

// The built-in program called `name`, or the random one that `name`
// ("random-<seed>-<i>") denotes; throws model::InputError naming the known
// programs if there is none.
LockProgram find_program(std::string_view name, const RandomFamily& defaults);

}  // namespace pathlock::sim::lockcheck
