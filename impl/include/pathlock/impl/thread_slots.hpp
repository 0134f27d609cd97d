#pragma once
// StdPlatform::thread_slot(): a small number per live thread, recycled when
// the thread exits, so that a lock's per-thread structures (the gates' slot
// blocks) are scanned only as far as the most threads alive at once, not as
// far as every thread the process ever started (a thread pool that is
// rebuilt, std::async, a benchmark that starts threads per run).

#include <cstddef>

namespace pathlock::impl {

// The least number no live thread holds, taken at the calling thread's
// first call and given back when it exits. Up to kRecycledThreadSlots
// numbers are recycled; beyond that many threads alive at once, each new
// thread gets a fresh number above them (never given back).
inline constexpr std::size_t kRecycledThreadSlots = 1024;

// The calling thread's number + 1 once it has one, 0 before (and again
// once its claim is given back, until it takes its number after exit):
// constant-initialised, so every fast acquire reads it with no call into
// thread_slots.cpp and no initialisation guard (one load in an executable;
// position-independent code, such as the Python module's, reaches it
// through the TLS resolver as before).
inline thread_local std::size_t t_thread_slot_plus_one = 0;
// Takes (or gives again) the calling thread's number and caches it.
std::size_t take_this_thread_slot() noexcept;

inline std::size_t this_thread_slot() noexcept {
  const std::size_t cached = t_thread_slot_plus_one;
  return cached != 0 ? cached - 1 : take_this_thread_slot();
}

}  // namespace pathlock::impl
