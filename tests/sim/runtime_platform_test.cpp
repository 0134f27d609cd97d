// DeterministicPlatform's waits with deadlines (the virtual clock), stop
// tokens and their callbacks, run on the deterministic runtime.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <new>

#include "pathlock/sim/runtime/platform.hpp"
#include "pathlock/sim/runtime/strategies/dfs_strategy.hpp"

namespace pathlock::sim::runtime {
namespace {

using P = DeterministicPlatform;
using namespace std::chrono_literals;

ExploreResult dfs(const std::function<Program()>& make, std::size_t bound) {
  DfsStrategy strategy(bound);
  return explore(make, strategy, {});
}

struct Waiting {
  P::Mutex mutex;
  P::CondVar ready_cv;
  bool ready = false;
  std::cv_status status = std::cv_status::no_timeout;
  P::Clock::time_point woke_at;
};

// Nobody notifies: the only way on is the deadline, which the runtime
// offers as a choice once no thread can step; the clock jumps to it.
TEST(RuntimeClock, AWaitNobodyNotifiesEndsAtItsDeadline) {
  auto finished = std::make_shared<std::vector<Waiting*>>();
  const auto make = [finished] {
    auto s = std::make_shared<Waiting>();
    Program program;
    program.threads.emplace_back([s, finished] {
      std::unique_lock<P::Mutex> held(s->mutex);
      s->status = s->ready_cv.wait_until(held, P::Clock::now() + 5ms);
      s->woke_at = P::Clock::now();
      finished->push_back(s.get());
    });
    program.at_end = [s]() -> std::optional<std::string> {
      if (s->status != std::cv_status::timeout) return "the wait did not time out";
      if (s->woke_at.time_since_epoch() != 5ms) return "the clock is not at the deadline";
      return std::nullopt;
    };
    return program;
  };
  const ExploreResult r = dfs(make, 2);
  EXPECT_EQ(r.outcome, ExploreOutcome::kAllPassed) << (r.first_bad_run ? r.first_bad_run->detail : "");
  EXPECT_EQ(r.runs, 1u);
  EXPECT_EQ(finished->size(), 1u);
}

// The same wait without a deadline is a deadlock, and the report says who
// waits on what.
TEST(RuntimeClock, AWaitWithoutDeadlineNobodyNotifiesIsADeadlock) {
  const auto make = [] {
    auto s = std::make_shared<Waiting>();
    Program program;
    program.threads.emplace_back([s] {
      std::unique_lock<P::Mutex> held(s->mutex);
      s->ready_cv.wait(held);
    });
    return program;
  };
  const ExploreResult r = dfs(make, 0);
  ASSERT_EQ(r.outcome, ExploreOutcome::kFailureFound);
  EXPECT_EQ(r.first_bad_run->outcome, RunOutcome::kDeadlock);
  EXPECT_NE(r.first_bad_run->detail.find("thread 0 at wait: woken"), std::string::npos) << r.first_bad_run->detail;
}

// A notify racing a deadline: the search sees both endings (the timeout
// is a choice even while the notifier can still step), and the waiter
// never misses a notify that came before its wait (it checks `ready`).
TEST(RuntimeClock, NotifyAgainstDeadlineExploresBothEndings) {
  auto outcomes = std::make_shared<std::vector<std::cv_status>>();
  const auto make = [outcomes] {
    auto s = std::make_shared<Waiting>();
    Program program;
    program.threads.emplace_back([s, outcomes] {
      std::unique_lock<P::Mutex> held(s->mutex);
      const bool ready = s->ready_cv.wait_until(held, P::Clock::now() + 1s, [&] { return s->ready; });
      outcomes->push_back(ready ? std::cv_status::no_timeout : std::cv_status::timeout);
    });
    program.threads.emplace_back([s] {
      std::unique_lock<P::Mutex> held(s->mutex);
      s->ready = true;
      s->ready_cv.notify_one();
    });
    return program;
  };
  EXPECT_EQ(dfs(make, 2).outcome, ExploreOutcome::kAllPassed);
  EXPECT_NE(std::count(outcomes->begin(), outcomes->end(), std::cv_status::timeout), 0);
  EXPECT_NE(std::count(outcomes->begin(), outcomes->end(), std::cv_status::no_timeout), 0);
}

struct Stopping {
  P::StopSource source;
  P::Atomic<int> callbacks_run;
  int callback_running = 0;  // 1 while the callback body runs
  bool callback_gone = false;
};

// The stop request is a thread of its own, so the search picks its moment:
// before the callback is registered (it runs at once, on the registering
// thread), while it is registered (it runs on the requesting thread), or
// after it is gone (it never runs). The callback never runs twice, and its
// destructor, finding it running on the other thread, waits for it through
// the runtime: the callback never runs after its destructor returned.
TEST(RuntimeStop, CallbackRunsAtMostOnceAndItsDestructorWaitsForIt) {
  auto ran_on = std::make_shared<std::vector<std::size_t>>();  // by run: the thread, or 9 for never
  const auto make = [ran_on] {
    auto s = std::make_shared<Stopping>();
    Program program;
    program.threads.emplace_back([s, ran_on] {
      std::size_t on = 9;
      {
        StopCallback callback(s->source.get_token(), [s, &on] {
          s->callback_running = 1;
          s->callbacks_run.fetch_add(1);
          on = P::thread_slot();
          s->callbacks_run.fetch_add(0);
          s->callback_running = 0;
        });
        s->callbacks_run.load();
      }
      s->callback_gone = true;
      ran_on->push_back(on);
    });
    program.threads.emplace_back([s] { s->source.request_stop(); });
    program.after_each_step = [s]() -> std::optional<std::string> {
      if (s->callback_gone && s->callback_running == 1) return "the callback runs after its destructor returned";
      return std::nullopt;
    };
    program.at_end = [s]() -> std::optional<std::string> {
      const int runs = s->callbacks_run.load();
      if (runs > 1) return "the callback ran " + std::to_string(runs) + " times";
      return std::nullopt;
    };
    return program;
  };
  const ExploreResult r = dfs(make, 2);
  EXPECT_EQ(r.outcome, ExploreOutcome::kAllPassed)
      << (r.first_bad_run ? r.first_bad_run->detail + "\n" + format_trace(*r.first_bad_run) : "");
  for (std::size_t on : {0u, 1u, 9u}) EXPECT_NE(std::count(ran_on->begin(), ran_on->end(), on), 0) << on;
  std::printf("stop callback against request_stop, <= 2 preemptions: %zu schedules\n", r.runs);
}

// A callback may destroy its own StopCallback, as std::stop_callback's
// may: a coroutine that a stop resumes (co_await acquire_async) ends, and
// its frame with the callback, inside the callback. request_stop then
// leaves the node alone: the room it lived in is not written again.
TEST(RuntimeStop, ACallbackMayDestroyItsOwnStopCallback) {
  using Callback = StopCallback<std::function<void()>>;
  alignas(Callback) unsigned char room[sizeof(Callback)];
  constexpr unsigned char kFreed = 0xAB;
  P::StopSource source;
  Callback* callback = nullptr;
  int runs = 0;
  callback = new (room) Callback(source.get_token(), [&runs, &callback, &room] {
    // (Copied out first: the lambda dies with the callback.)
    Callback* self = callback;
    unsigned char* where = room;
    ++runs;
    self->~Callback();
    std::memset(where, kFreed, sizeof(Callback));
  });
  EXPECT_TRUE(source.request_stop());
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(std::count(room, room + sizeof(Callback), kFreed), static_cast<std::ptrdiff_t>(sizeof(Callback)))
      << "request_stop wrote into the callback after the callback destroyed it";
}

TEST(RuntimeStop, StopRequestedSeesTheRequestOnlyAfterIt) {
  const auto make = [] {
    auto source = std::make_shared<P::StopSource>();
    auto seen = std::make_shared<P::Atomic<int>>();
    Program program;
    program.threads.emplace_back([source, seen] {
      if (source->get_token().stop_requested()) seen->store(1);
    });
    program.threads.emplace_back([source] { EXPECT_TRUE(source->request_stop()); });
    return program;
  };
  EXPECT_EQ(dfs(make, 1).outcome, ExploreOutcome::kAllPassed);
  EXPECT_FALSE(P::StopToken().stop_possible());
}

}  // namespace
}  // namespace pathlock::sim::runtime
