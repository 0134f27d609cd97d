// check-lock's runner on the lock that ships.
//
// Allocation failures: every built-in program, with one allocation failure
// injected at each allocation point inside a lock call (acquire and release)
// along every schedule without preemptions, passes. Each of these failed on
// the lock before its exception-safety fixes (a gate closed with fast holders
// and no pseudo hold; a waiter queued without its sleeper record; a hold
// recorded past a guard's inline room after the grant; an entry created and
// then left neither idle nor active; a noexcept release that allocated).

#include <gtest/gtest.h>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/sim/lockcheck/check_lock.hpp"
#include "pathlock/sim/runtime/allocation.hpp"

namespace pathlock::sim::lockcheck {
namespace {

CheckLockOptions quick_options(AllocationFailures failures, std::size_t preemptions = 0) {
  CheckLockOptions options;
  options.preemptions = preemptions;
  options.pct_runs = 10;
  options.allocation_failures = failures;
  return options;
}

void expect_case_passes(const CaseResult& r) {
  EXPECT_TRUE(r.verdict == CaseVerdict::kPass || r.verdict == CaseVerdict::kExpectedDeadlock)
      << r.program << " under " << describe(r.setting) << ": " << to_string(r.verdict) << "\n"
      << r.failure << "\n"
      << r.trace << "replay schedule: " << r.schedule;
}

class BuiltinProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(BuiltinProgram, PassesWithAnAllocationFailureAtEveryPoint) {
  if (!runtime::allocation_injection_linked()) GTEST_SKIP() << "no allocation-failure injection in sanitizer builds";
  const LockProgram program = find_program(GetParam(), {});
  for (const LockSetting setting : {LockSetting{RootGateSetting::kOn, 1, 1}, LockSetting{RootGateSetting::kOff, 2, 0}}) {
    expect_case_passes(check_case(impl::path_rwa_joined_scheme(), program, setting,
                                  quick_options(AllocationFailures::kOnePerRun)));
  }
}

std::vector<std::string> builtin_names() {
  std::vector<std::string> names;
  for (const auto& p : builtin_programs()) names.push_back(p.name);
  return names;
}
INSTANTIATE_TEST_SUITE_P(LockCheck, BuiltinProgram, ::testing::ValuesIn(builtin_names()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

// The nested program that the model says can deadlock is reported as that.
TEST(LockCheck, ADeadlockTheModelPredictsIsNotAFailure) {
  const CaseResult r = check_case(impl::path_rwa_joined_scheme(), find_program("nested-behind-writer", {}),
                                  LockSetting{}, quick_options(AllocationFailures::kOff, 1));
  EXPECT_TRUE(r.model_predicts_deadlock);
  EXPECT_EQ(r.verdict, CaseVerdict::kExpectedDeadlock) << r.failure;
  EXPECT_NE(r.failure.find("deadlock"), std::string::npos) << r.failure;
}

// A failing run's schedule replays to the same failure.
TEST(LockCheck, TheScheduleOfAFailureReplaysIt) {
  const LockProgram program = find_program("nested-behind-writer", {});
  const CaseResult found =
      check_case(impl::path_rwa_joined_scheme(), program, LockSetting{}, quick_options(AllocationFailures::kOff, 1));
  ASSERT_FALSE(found.schedule.empty());
  const CaseResult replayed = replay_case(impl::path_rwa_joined_scheme(), program, LockSetting{}, found.schedule,
                                          quick_options(AllocationFailures::kOff));
  EXPECT_EQ(replayed.verdict, CaseVerdict::kExpectedDeadlock);
  EXPECT_EQ(replayed.failure, found.failure);
}

TEST(LockCheck, RandomProgramsAreDeterministicAndNamed) {
  const RandomFamily family{7, 5, 4, 3};
  const auto a = random_programs(family);
  const auto b = random_programs(family);
  ASSERT_EQ(a.size(), 5U);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(describe(a[i]), describe(b[i]));
    EXPECT_EQ(describe(find_program(a[i].name, family)), describe(a[i]));
    EXPECT_GE(a[i].threads.size(), 2U);
    EXPECT_LE(a[i].threads.size(), 4U);
  }
  EXPECT_THROW(find_program("no-such-program", family), model::InputError);
  EXPECT_THROW(random_programs({1, 1, 5, 1}), model::InputError);
}

}  // namespace
}  // namespace pathlock::sim::lockcheck
