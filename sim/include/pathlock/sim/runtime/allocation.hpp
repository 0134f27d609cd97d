#pragma once
// Allocation-failure injection. A binary that links the separate
// pathlock_sim_allocation_injection object library replaces the global
// operator new; inside an AllocationFailureScope opened on a logical thread
// of a run, every allocation is a choice point (succeed or throw
// std::bad_alloc), within the run's budget of failures
// (RunOptions::allocation_failures). Elsewhere, and in binaries that do not
// link it, allocations behave as usual.

namespace pathlock::sim::runtime {

// The harness opens one around a call into the code under test.
class AllocationFailureScope {
 public:
  AllocationFailureScope() noexcept;
  ~AllocationFailureScope();
  AllocationFailureScope(const AllocationFailureScope&) = delete;
  AllocationFailureScope& operator=(const AllocationFailureScope&) = delete;
};

// The harness's own code called back from inside the code under test (an
// async handler that the lock runs): its allocations never fail, whatever
// scope encloses it.
class AllocationFailurePause {
 public:
  AllocationFailurePause() noexcept;
  ~AllocationFailurePause();
  AllocationFailurePause(const AllocationFailurePause&) = delete;
  AllocationFailurePause& operator=(const AllocationFailurePause&) = delete;

 private:
  int saved_depth_;
};

// Whether this binary links the replaced operator new (sanitizer builds
// cannot: their runtimes replace it themselves).
bool allocation_injection_linked() noexcept;

namespace detail {
// Called by the replaced operator new: whether this allocation fails.
bool allocation_should_fail();
// Called once by the replacement's static initialiser.
bool mark_allocation_injection_linked() noexcept;
}  // namespace detail

}  // namespace pathlock::sim::runtime
