#pragma once
// Allocation-failure injection for single-threaded unit tests: this test
// binary replaces the global operator new, and a FailAllocation scope makes
// the n-th allocation on the calling thread (0-based) throw std::bad_alloc.
// Used to run an operation once per allocation point it has, failing each in
// turn, and to check what the operation leaves behind.

#include <cstddef>
#include <optional>

namespace pathlock::testing_support {

class FailAllocation {
 public:
  // Fails the `index`-th allocation made on this thread while in scope.
  explicit FailAllocation(std::size_t index) noexcept;
  ~FailAllocation();
  FailAllocation(const FailAllocation&) = delete;
  FailAllocation& operator=(const FailAllocation&) = delete;
  // Whether the failure was injected (the operation reached that allocation).
  bool injected() const noexcept;
};

}  // namespace pathlock::testing_support
