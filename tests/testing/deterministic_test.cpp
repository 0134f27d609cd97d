// pathlock::testing on the deterministic runtime: PathLock with every sound
// scheme passes; every broken scheme the project ships fails, exactly and
// replayably, within 30 s.
#include <gtest/gtest.h>

#include <string>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/sim/variants.hpp"
#include "pathlock/testing/deterministic.hpp"

namespace pathlock::testing {
namespace {

DeterministicOptions seeded(std::uint64_t seed, int scenarios) {
  DeterministicOptions options;
  options.seed = seed;
  options.scenarios = scenarios;
  options.preemptions = 1;
  options.pct_runs = 10;
  return options;
}

TEST(Deterministic, PathLockPassesWithTheRecommendedScheme) {
  const auto result = check_path_lock_deterministic(*impl::find_builtin_scheme("path-rwa-joined"), seeded(1, 30));
  EXPECT_TRUE(result.passed()) << result.report();
  EXPECT_FALSE(result.stopped_by_time_budget);
}

struct Broken {
  const char* name;
  impl::Scheme (*make)();
  const char* failure;  // a phrase of what breaks
};

impl::Scheme path_rwa() { return *impl::find_builtin_scheme("path-rwa"); }

class DeterministicBroken : public ::testing::TestWithParam<Broken> {};

TEST_P(DeterministicBroken, FailsExactlyAndReplays) {
  const impl::Scheme scheme = GetParam().make();
  const auto result = check_path_lock_deterministic(scheme, seeded(2, 100));
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
