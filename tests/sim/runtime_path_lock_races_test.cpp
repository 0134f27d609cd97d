// The lock that ships on the deterministic runtime, at its races: a
// deadline or a stop request against the grant, a try that rolls back what
// it took while another thread wants it, an allocation failure in the
// middle of an acquire. Each search is exhaustive within its preemption
// bound; the checks are the harness's (no conflicting grants at once,
// nothing left active or waiting at the end).
#include <gtest/gtest.h>

#include "pathlock/sim/runtime/strategies/replay_strategy.hpp"
#include "sim/runtime_path_lock_harness.hpp"

namespace pathlock::sim::runtime::testing {
namespace {

using model::Path;
using namespace std::chrono_literals;

model::Request write(const char* p) { return model::write(Path::parse(p)).request(); }
model::Request read(const char* p) { return model::read(Path::parse(p)).request(); }
model::Request rename(const char* from, const char* to) {
  return model::rename(Path::parse(from), Path::parse(to)).request();
}

// A waiter with a deadline of 1 ms against a holder that holds for 1 ms:
// the deadline passes before the grant in some schedules, not in others.
TEST(RuntimePathLockRaces, DeadlineAgainstGrant) {
  CallsOptions options{.statuses = std::make_shared<Statuses>()};
  const Searched s = search("write /a, write /a/b for 1 ms", [&] {
    return calls({acquire(write("/a")), acquire_for(write("/a/b"), 1ms)}, options);
  }, kTwoPreemptionsOrOneSanitized);
  EXPECT_EQ(s.result.outcome, ExploreOutcome::kAllPassed) << describe_failure(s.result);
  EXPECT_TRUE(options.statuses->saw(1, AcquireStatus::kGranted));
  EXPECT_TRUE(options.statuses->saw(1, AcquireStatus::kTimedOut));
}

// A stop request (its own thread, so the search picks the moment) against
// a waiter that the holder's release would grant.
TEST(RuntimePathLockRaces, StopRequestAgainstGrant) {
  CallsOptions options{.stopper = Stopper::kThreadRequestsStop, .statuses = std::make_shared<Statuses>()};
  const Searched s = search("write /a, read /a/b until stopped, request_stop", [&] {
    return calls({acquire(write("/a")), acquire_with_stop(read("/a/b"))}, options);
  }, 1);
  EXPECT_EQ(s.result.outcome, ExploreOutcome::kAllPassed) << describe_failure(s.result);
  EXPECT_TRUE(options.statuses->saw(1, AcquireStatus::kGranted));
  EXPECT_TRUE(options.statuses->saw(1, AcquireStatus::kCancelled));
}

// A try that takes /a/x, then finds /b/c held and gives /a/x back, while a
// third thread waits for /a/x.
TEST(RuntimePathLockRaces, TryRollsBackWhileAnotherWaitsForWhatItTook) {
#ifdef PATHLOCK_SANITIZED
  GTEST_SKIP() << "a 3-thread exhaustive search (~24,000 runs): the release build runs it; too slow under a sanitizer";
#endif
  CallsOptions options{.statuses = std::make_shared<Statuses>()};
  const Searched s = search("write /b/c, try rename /a/x /b/c, write /a/x", [&] {
    return calls({acquire(write("/b/c")), try_acquire(rename("/a/x", "/b/c")), acquire(write("/a/x"))}, options);
  }, 1);
  EXPECT_EQ(s.result.outcome, ExploreOutcome::kAllPassed) << describe_failure(s.result);
  EXPECT_TRUE(options.statuses->saw(1, AcquireStatus::kGranted));
  EXPECT_TRUE(options.statuses->saw(1, AcquireStatus::kWouldBlock));
}

// An allocation failure at any point of either acquire (here: after the
// entry was taken, inside the queue) leaves no entry active. Before the lock
// settled the entry on a throw, this search failed with "1 lock entries
// active after every call returned and every guard was released".
TEST(RuntimePathLockRaces, AllocationFailureAfterTakingAnEntryLeavesNothingActive) {
  if (!allocation_injection_linked()) GTEST_SKIP() << "this build cannot replace operator new (a sanitizer's runtime does)";
  const auto make = [] {
    return calls({acquire(write("/a")), acquire(write("/a/b"))}, {.injection = Injection::kAllocationFailures});
  };
  const Searched s = search("write /a, write /a/b, one allocation failure", make, 1);
  EXPECT_EQ(s.result.outcome, ExploreOutcome::kAllPassed)
      << (s.result.first_bad_run ? s.result.first_bad_run->detail : std::string());
}

}  // namespace
}  // namespace pathlock::sim::runtime::testing

