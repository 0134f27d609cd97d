// The lock that ships (BasicPathLock on the deterministic runtime), searched
// exhaustively within a preemption bound: after every step no two
// conflicting requests are granted at once (judged by the model), and at
// the end no lock entry is left active.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/model/conflict.hpp"
#include "pathlock/model/request.hpp"
#include "pathlock/sim/runtime/path_lock.hpp"
#include "pathlock/sim/runtime/strategies/dfs_strategy.hpp"

namespace pathlock::sim::runtime {
namespace {

using model::Path;

// The requests granted now, as the threads see them: entered after acquire
// returned, left before the guard is released (a subset of the lock's own
// hold intervals, so two conflicting ones here are a real violation).
struct Granted {
  std::vector<const model::Request*> now;
  void enter(const model::Request* r) { now.push_back(r); }
  void leave(const model::Request* r) { now.erase(std::find(now.begin(), now.end(), r)); }
  std::optional<std::string> conflicting() const {
    for (std::size_t i = 0; i < now.size(); ++i) {
      for (std::size_t j = i + 1; j < now.size(); ++j) {
        if (model::conflicts(*now[i], *now[j])) {
          return now[i]->to_string() + " and " + now[j]->to_string() + " are granted at once";
        }
      }
    }
    return std::nullopt;
  }
};

struct Shared {
  Shared() : lock(impl::path_rwa_joined_scheme(), PathLockOptions{.shards = 2, .max_idle_locks_per_shard = 4}) {}
  DeterministicPathLock lock;
  Granted granted;
  // Holding "long": blocked until a deadline nobody else can hasten, so a
  // waiter spins out its spin phase and goes to sleep in some schedules.
  DeterministicPlatform::Mutex sleep_mutex;
  DeterministicPlatform::CondVar sleep_cv;
  void hold_for_a_while() {
    std::unique_lock<DeterministicPlatform::Mutex> held(sleep_mutex);
    sleep_cv.wait_until(held, DeterministicPlatform::Clock::now() + std::chrono::milliseconds(1));
  }
};

enum class Locking : std::uint8_t { kEveryThreadLocks, kLastThreadSkipsTheLock };

Program conflicting_writes_and_a_reader(std::size_t threads, Locking locking = Locking::kEveryThreadLocks) {
  static const std::vector<model::Request> requests = {
      model::write(Path::parse("/a")).request(),
      model::write(Path::parse("/a/b")).request(),
      model::read(Path::parse("/a/b")).request(),
  };
  auto shared = std::make_shared<Shared>();
  Program program;
  for (std::size_t t = 0; t < threads; ++t) {
    const model::Request* request = &requests[t];
    const bool skips = locking == Locking::kLastThreadSkipsTheLock && t + 1 == threads;
    program.threads.emplace_back([shared, request, skips] {
      DeterministicPathLock::Guard guard;
      if (!skips) guard = shared->lock.acquire(*request);
      if (!skips && guard.status() != AcquireStatus::kGranted) throw std::logic_error("acquire was not granted");
      shared->granted.enter(request);
      shared->hold_for_a_while();
      shared->granted.leave(request);
    });
  }
  program.after_each_step = [shared] { return shared->granted.conflicting(); };
  program.at_end = [shared]() -> std::optional<std::string> {
    if (const std::size_t active = shared->lock.active_locks(); active != 0) {
      return std::to_string(active) + " lock entries active after every guard was released";
    }
    return std::nullopt;
  };
  return program;
}

// What the passing runs did: the longest run, and how many runs had a
// waiter spin or sleep (so the search reaches the lock's waiting code).
struct Coverage {
  std::size_t longest = 0;
  std::size_t spun = 0;
  std::size_t slept = 0;
  void add(const RunResult& run) {
    longest = std::max(longest, run.trace.size());
    const auto did = [&](std::string_view op) {
      return std::any_of(run.trace.begin(), run.trace.end(), [&](const TraceStep& s) { return s.operation == op; });
    };
    spun += did("pause") ? 1u : 0u;
    slept += did("wait: woken") ? 1u : 0u;
  }
};

void search(std::size_t threads, std::size_t bound) {
  DfsStrategy dfs(bound);
  Coverage coverage;
  ExploreOptions options;
  options.max_runs = 100'000;
  options.on_run = [&](const RunResult& run) { coverage.add(run); };
  const auto start = std::chrono::steady_clock::now();
  const ExploreResult r = explore([threads] { return conflicting_writes_and_a_reader(threads); }, dfs, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("PathLock, %zu threads, <= %zu preemptions: %s, %zu schedules in %.2f s "
              "(longest %zu steps; a waiter spun in %zu, slept in %zu)\n",
              threads, bound, std::string(outcome_name(r.outcome)).c_str(), r.runs, seconds, coverage.longest,
              coverage.spun, coverage.slept);
  EXPECT_GT(coverage.spun, 0u);
  EXPECT_GT(coverage.slept, 0u);
  EXPECT_EQ(r.outcome, ExploreOutcome::kAllPassed)
      << (r.first_bad_run ? r.first_bad_run->detail + "\nschedule: " + format_schedule(r.first_bad_run->schedule) +
                                "\n" + format_trace(*r.first_bad_run)
                          : "");
}

TEST(RuntimePathLock, TwoConflictingWritesWithinTwoPreemptions) { search(2, 2); }

TEST(RuntimePathLock, TwoWritesAndAReaderWithinOnePreemption) { search(3, 1); }

// The same check on the same program catches a thread that does not lock.
TEST(RuntimePathLock, TheCheckCatchesAThreadThatSkipsTheLock) {
  DfsStrategy dfs(1);
  const ExploreResult r =
      explore([] { return conflicting_writes_and_a_reader(2, Locking::kLastThreadSkipsTheLock); }, dfs, {});
  ASSERT_EQ(r.outcome, ExploreOutcome::kFailureFound);
  EXPECT_NE(r.first_bad_run->detail.find("are granted at once"), std::string::npos) << r.first_bad_run->detail;
}

}  // namespace
}  // namespace pathlock::sim::runtime
