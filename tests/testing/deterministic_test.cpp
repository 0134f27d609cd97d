// pathlock::testing on the deterministic runtime: PathLock with every sound
// scheme passes; every broken scheme the project ships fails, exactly and
// replayably, within 30 s.
#include <gtest/gtest.h>

#include <chrono>

#include <algorithm>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/model/conflict.hpp"
#include "pathlock/sim/variants.hpp"
#include "pathlock/testing/deterministic.hpp"

namespace pathlock::testing {
namespace {

// The defaults (two-task scenarios, one preemption, a few PCT runs), seeded.
DeterministicOptions seeded(std::uint64_t seed, int scenarios) {
  DeterministicOptions options;
  options.seed = seed;
  options.scenarios = scenarios;
  return options;
}

TEST(Deterministic, PathLockPassesWithTheRecommendedScheme) {
  const auto result = check_path_lock_deterministic(*impl::find_builtin_scheme("path-rwa-joined"), seeded(1, 20));
  EXPECT_TRUE(result.passed()) << result.report();
  EXPECT_FALSE(result.stopped_by_time_budget);
}

struct Broken {
  const char* name;
  impl::Scheme (*make)();
  const char* failure;  // a phrase of what breaks
};

void PrintTo(const Broken& broken, std::ostream* out) { *out << broken.name; }

impl::Scheme path_rwa() { return *impl::find_builtin_scheme("path-rwa"); }

class DeterministicBroken : public ::testing::TestWithParam<Broken> {};

TEST_P(DeterministicBroken, FailsExactlyAndReplays) {
  const impl::Scheme scheme = GetParam().make();
  DeterministicOptions options;  // the defaults: the target is for the call as it comes
  options.seed = 2;
#ifdef PATHLOCK_SANITIZED
  // A sanitizer runs the same search ~10-15x slower (depth_only: 5 s in a
  // release build, past the default 60 s under AddressSanitizer once the
  // gate index made the lock's steps more numerous).
  options.time_budget = std::chrono::seconds(300);
#endif
  const auto result = check_path_lock_deterministic(scheme, options);
  ASSERT_EQ(result.verdict, DeterministicVerdict::kFailed) << result.report();
#ifndef PATHLOCK_SANITIZED
  EXPECT_LT(result.seconds, 30.0);  // the target, on 2 cores
#endif
  EXPECT_NE(result.failure.find(GetParam().failure), std::string::npos) << result.report();
  EXPECT_LE(result.scenario.tasks.size(), 2U) << result.report();
  const auto again = replay_path_lock_deterministic(scheme, result.scenario, result.schedule);
  EXPECT_EQ(again.verdict, DeterministicVerdict::kFailed) << again.report();
  EXPECT_EQ(again.failure, result.failure);
  EXPECT_NE(result.report().find("replay: pathlock::testing::replay_path_lock_deterministic"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Variants, DeterministicBroken,
    ::testing::Values(Broken{"path_rwa", &path_rwa, "mutual exclusion broken"}, Broken{"request_order", &sim::request_order_variant, "deadlock"},
                      Broken{"per_role", &sim::per_role_variant, "deadlock"},
                      Broken{"depth_only", &sim::depth_only_variant, "deadlock"}),
    [](const ::testing::TestParamInfo<Broken>& param_info) { return std::string(param_info.param.name); });

TEST(Deterministic, RefusesScenariosLargerThanTheRuntimeRuns) {
  DeterministicOptions options;
  options.shape.max_tasks = 5;
  EXPECT_THROW(check_path_lock_deterministic(*impl::find_builtin_scheme("path-rwa-joined"), options),
               std::invalid_argument);
}

}  // namespace
}  // namespace pathlock::testing

namespace pathlock::testing {
namespace {

// A user's lock written on a Platform: one mutex and condition variable, a
// list of granted requests; a request waits until nothing it conflicts with
// is granted. kAfterWritesOnly is a plausible "optimisation" with a lost
// wake-up: a reader's release wakes no one (readers never block readers),
// but a writer may wait for that reader.
enum class Wakeup : std::uint8_t { kAfterEveryRelease, kAfterWritesOnly };

template <typename P, Wakeup kWakeup>
class ListLock {
 public:
  using Handle = std::size_t;  // the grant's number
  Handle acquire(const model::Request& request) {
    std::unique_lock held(mutex_);
    changed_.wait(held, [&] {
      for (const auto& [number, granted] : granted_) {
        if (model::conflicts(granted, request)) return false;
      }
      return true;
    });
    granted_.emplace_back(++grants_, request);
    return grants_;
  }
  void release(Handle handle) {
    std::unique_lock held(mutex_);
    const auto released = std::find_if(granted_.begin(), granted_.end(),
                                       [&](const auto& entry) { return entry.first == handle; });
    const bool wrote = !released->second.writes().empty();
    granted_.erase(released);
    if (kWakeup == Wakeup::kAfterEveryRelease || wrote) changed_.notify_all();
  }

 private:
  typename P::Mutex mutex_;
  typename P::CondVar changed_;
  std::size_t grants_ = 0;
  std::vector<std::pair<std::size_t, model::Request>> granted_;
};

// Grants everything at once: unsafe.
struct GrantEverythingLock {
  using Handle = int;
  Handle acquire(const model::Request&) { return 0; }
  void release(Handle) {}
};

TEST(DeterministicOwnLock, ALockThatGrantsEverythingIsUnsafe) {
  const auto result = check_lock_deterministic([] { return GrantEverythingLock(); }, seeded(5, 30));
  ASSERT_EQ(result.verdict, DeterministicVerdict::kFailed) << result.report();
  EXPECT_NE(result.failure.find("and they conflict"), std::string::npos) << result.report();
  EXPECT_EQ(result.scenario.tasks.size(), 2U) << result.report();
}

TEST(DeterministicOwnLock, AListLockOnThePlatformPasses) {
  const auto result =
      check_lock_deterministic([] { return ListLock<DeterministicPlatform, Wakeup::kAfterEveryRelease>(); }, seeded(3, 30));
  EXPECT_TRUE(result.passed()) << result.report();
}

TEST(DeterministicOwnLock, ALostWakeupIsFoundShrunkAndReplays) {
  const auto make = [] { return ListLock<DeterministicPlatform, Wakeup::kAfterWritesOnly>(); };
  const auto result = check_lock_deterministic(make, seeded(4, 100));
  ASSERT_EQ(result.verdict, DeterministicVerdict::kFailed) << result.report();
  EXPECT_NE(result.failure.find("deadlock"), std::string::npos) << result.report();
  EXPECT_EQ(result.scenario.to_string(), "T0: read /; T1: write /") << result.report();
  const auto again = replay_lock_deterministic(make, result.scenario, result.schedule);
  EXPECT_EQ(again.verdict, DeterministicVerdict::kFailed) << again.report();
  EXPECT_NE(result.report().find("replay: pathlock::testing::replay_lock_deterministic(make_lock, "),
            std::string::npos);
}

}  // namespace
}  // namespace pathlock::testing
