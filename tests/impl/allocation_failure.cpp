#include "allocation_failure.hpp"

#include <cstdlib>
#include <new>

namespace pathlock::testing_support {
namespace {

struct Countdown {
  bool armed = false;
  std::size_t remaining = 0;
  bool injected = false;
};
thread_local Countdown countdown;

}  // namespace

FailAllocation::FailAllocation(std::size_t index) noexcept { countdown = {true, index, false}; }
FailAllocation::~FailAllocation() { countdown.armed = false; }
bool FailAllocation::injected() const noexcept { return countdown.injected; }

}  // namespace pathlock::testing_support

// Every other form of operator new (array, nothrow) calls this one in
// libstdc++; AddressSanitizer's runtime defines each form itself, so they
// are all replaced here (else a nothrow new, as std::stable_sort's buffer,
// is ASan's and its delete ours: a mismatch).
void* operator new(std::size_t size) {
  auto& c = pathlock::testing_support::countdown;
  if (c.armed) {
    if (c.remaining == 0) {
      c.armed = false;
      c.injected = true;
      throw std::bad_alloc();
    }
    --c.remaining;
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void* operator new[](std::size_t size) { return ::operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return ::operator new(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return ::operator new(size, tag); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
