#pragma once
// A thread's own array of N value-initialised T (a lock's per-thread gate
// cache and plan memo): made on the thread's first request for it, freed
// when the thread exits, and never made again after that, so a thread_local
// destructor that runs later gets nullptr, never a freed array or a new one
// that nobody frees. The pointer is a plain thread_local (trivially
// destructible, constant-initialised): a lookup reads it with no guard or
// call.

#include <cstddef>
#include <new>

namespace pathlock::impl {

// Whether ThreadArray::get makes the array if the thread has none yet.
enum class ThreadArrayUse : unsigned char { kLookOnly, kMakeIfMissing };

template <typename T, std::size_t N>
class ThreadArray {
 public:
  // The calling thread's array; nullptr until made (kMakeIfMissing), if
  // it could not be made, or once the thread's destructors have freed it.
  static T* get(ThreadArrayUse use) noexcept {
    if (array_ == nullptr && use == ThreadArrayUse::kMakeIfMissing && !freed_) {
      thread_local Owner owner;  // destroyed at thread exit, with the thread's other thread_locals
      array_ = new (std::nothrow) T[N]();
    }
    return array_;
  }

 private:
  struct Owner {
    Owner() noexcept = default;
    Owner(const Owner&) = delete;
    Owner& operator=(const Owner&) = delete;
    ~Owner() {
      delete[] array_;
      array_ = nullptr;
      freed_ = true;
    }
  };
  static inline thread_local T* array_ = nullptr;
  static inline thread_local bool freed_ = false;
};

}  // namespace pathlock::impl
