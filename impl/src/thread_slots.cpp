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

// Set when this thread's claim is given back. Trivially destructible, so
// valid while every other thread_local destructor runs: one that runs after
// the claim's (and takes a lock) must not use the number, which a new
// thread may hold by then.
thread_local bool t_claim_given_back = false;

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
    t_claim_given_back = true;
    t_thread_slot_plus_one = 0;  // a later call takes the number after exit
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

std::size_t take_this_thread_slot() noexcept {
  std::size_t slot = 0;
  if (t_claim_given_back) {
    // A fresh number above the recycled ones, never given back: distinct
    // from every live thread's (and, being large, no gate block). Taken
    // once: the cache keeps it from here on.
    slot = registry().overflow.fetch_add(1, std::memory_order_relaxed);
  } else {
    thread_local const Claim claim;
    slot = claim.slot();
  }
  t_thread_slot_plus_one = slot + 1;
  return slot;
}

}  // namespace pathlock::impl
