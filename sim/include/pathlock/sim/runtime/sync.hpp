#pragma once
// The runtime's own locks and condition variables: a thread blocked on one
// is not runnable (it is not spinning), an unlock or notify makes waiters
// runnable, a timed wait is "timeout-able" (the strategy may jump the
// virtual clock to its deadline). Their state is only touched by the thread
// holding the baton.

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include "pathlock/sim/runtime/where.hpp"

#include "pathlock/sim/runtime/choice.hpp"

namespace pathlock::sim::runtime::detail {

struct LockState {
  std::uint32_t owner = kNoThread;
  const char* kind = "lock";
  Where declared;
};

// Blocks (through the runtime) until the lock is free, then takes it.
void lock(LockState& state, const Where& where);
void unlock(LockState& state, const Where& where);
// Whether the calling logical thread holds it (outside a run: anybody does).
bool held_by_caller(const LockState& state) noexcept;

struct CondVarState {
  std::array<std::uint32_t, kMaxThreads> waiters{};  // FIFO, oldest first
  std::uint32_t count = 0;
  Where declared;
};

// Releases `mutex`, waits for a notify (or the deadline, in virtual time),
// takes `mutex` again.
std::cv_status wait(CondVarState& cv, LockState& mutex,
                    const std::chrono::nanoseconds* deadline, const Where& where);
enum class NotifyMode : std::uint8_t { kOne, kAll };
void notify(CondVarState& cv, NotifyMode mode, const Where& where);

}  // namespace pathlock::sim::runtime::detail
