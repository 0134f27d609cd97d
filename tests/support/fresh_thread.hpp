#pragma once
// A request tried from a thread of its own: its gate cache and plan memo
// start empty, and it holds nothing of the calling thread's.

#include <thread>

#include "pathlock/path_lock.hpp"

namespace pathlock::testing_support {

// Runs `body` on a thread of its own, and waits for it.
template <typename Body>
void on_fresh_thread(Body body) {
  std::thread t(body);
  t.join();
}

// `request` tried by another thread now: what it gets (released at once).
inline AcquireStatus tried_elsewhere(PathLock& lock, const model::Request& request) {
  AcquireStatus status = AcquireStatus::kReleased;
  on_fresh_thread([&] { status = lock.try_acquire(request).status(); });
  return status;
}

}  // namespace pathlock::testing_support
