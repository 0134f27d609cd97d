#include "pathlock/impl/thread_slots.hpp"

#include <atomic>
#include <bitset>
#include <cstddef>
#include <mutex>

namespace pathlock::impl {
namespace {

struct Registry {
  std::mutex mu;
  std::bitset<kRecycledThreadSlots> taken;        // guarded by mu
  std::atomic<std::size_t> overflow{kRecycledThreadSlots};
};

// Never destroyed: a thread may exit (and give its number back) after
// static destruction has begun.
Registry& registry() noexcept {
  static Registry* const r = new Registry;
  return *r;
}

// A thread's claim on its number, given back by its thread_local
// destructor. Allocates nothing, so it cannot fail.
class Claim {
 public:
  Claim() noexcept {
    Registry& r = registry();
    const std::lock_guard<std::mutex> hold(r.mu);
    for (std::size_t i = 0; i < kRecycledThreadSlots; ++i) {
      if (!r.taken[i]) {
        r.taken[i] = true;
        slot_ = i;
        return;
      }
    }
    slot_ = r.overflow.fetch_add(1, std::memory_order_relaxed);
  }
  ~Claim() {
    if (slot_ >= kRecycledThreadSlots) return;
    Registry& r = registry();
    const std::lock_guard<std::mutex> hold(r.mu);
    r.taken[slot_] = false;
  }
  Claim(const Claim&) = delete;
  Claim& operator=(const Claim&) = delete;
  std::size_t slot() const noexcept { return slot_; }

 private:
  std::size_t slot_ = 0;
};

}  // namespace

std::size_t this_thread_slot() noexcept {
  thread_local const Claim claim;
  return claim.slot();
}

}  // namespace pathlock::impl
