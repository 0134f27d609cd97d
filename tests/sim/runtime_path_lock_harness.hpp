#pragma once
// A harness for running the lock that ships on the deterministic runtime:
// each thread makes one call into the lock; between steps no two
// conflicting requests may be granted at once (judged by the model); at the
// end no lock entry may be active, no acquisition waiting, and the lock's
// own invariants (check_invariants) must hold.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/model/conflict.hpp"
#include "pathlock/model/request.hpp"
#include "pathlock/sim/runtime/allocation.hpp"
#include "pathlock/sim/runtime/path_lock.hpp"
#include "pathlock/sim/runtime/runtime.hpp"

namespace pathlock::sim::runtime::testing {

using P = DeterministicPlatform;
using Guard = DeterministicPathLock::Guard;

// The requests granted now, as the threads see them: entered after the
// call returned granted, left before the guard is released (a subset of the
// lock's own hold intervals, so two conflicting ones here are a real
// violation).
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
  P::StopSource stop;
  // Holding "long": blocked until a deadline nobody else can hasten, so a
  // waiter spins out its spin phase and goes to sleep in some schedules.
  P::Mutex sleep_mutex;
  P::CondVar sleep_cv;
  void hold_for_a_while() {
    std::unique_lock<P::Mutex> held(sleep_mutex);
    sleep_cv.wait_until(held, P::Clock::now() + std::chrono::milliseconds(1));
  }
};

enum class Injection : std::uint8_t { kNone, kAllocationFailures };
enum class Stopper : std::uint8_t { kNone, kThreadRequestsStop };

// Across the runs of a search: which (call, status) pairs occurred.
struct Statuses {
  std::vector<std::pair<std::size_t, AcquireStatus>> seen;
  void add(std::size_t call, AcquireStatus s) {
    if (!saw(call, s)) seen.emplace_back(call, s);
  }
  bool saw(std::size_t call, AcquireStatus s) const {
    return std::find(seen.begin(), seen.end(), std::pair{call, s}) != seen.end();
  }
};

struct CallsOptions {
  Injection injection = Injection::kNone;
  Stopper stopper = Stopper::kNone;  // a last thread whose one step is request_stop
  std::shared_ptr<Statuses> statuses{};  // optional
};

// One thread's call: the request (granted ones are checked against each
// other) and how it is made.
struct Call {
  model::Request request;
  std::function<Guard(Shared&, const model::Request&)> make;
};

inline Program calls(std::vector<Call> list, const CallsOptions& options = {}) {
  auto shared = std::make_shared<Shared>();
  auto owned = std::make_shared<std::vector<Call>>(std::move(list));
  Program program;
  for (std::size_t index = 0; index < owned->size(); ++index) {
    program.threads.emplace_back([shared, owned, index, options] {
      const Call& call = (*owned)[index];
      Guard guard;
      try {
        std::optional<AllocationFailureScope> scope;
        if (options.injection == Injection::kAllocationFailures) scope.emplace();
        guard = call.make(*shared, call.request);
      } catch (const std::bad_alloc&) {
        // the call failed cleanly: checked at the end (nothing left behind)
      }
      if (options.statuses) options.statuses->add(index, guard.status());
      if (!guard) {
        if (guard.lock_count() != 0) throw std::logic_error("a failed call holds locks");
        return;
      }
      shared->granted.enter(&call.request);
      shared->hold_for_a_while();
      shared->granted.leave(&call.request);
    });
  }
  if (options.stopper == Stopper::kThreadRequestsStop) {
    program.threads.emplace_back([shared] { shared->stop.request_stop(); });
  }
  program.after_each_step = [shared] { return shared->granted.conflicting(); };
  program.at_end = [shared]() -> std::optional<std::string> {
    if (const std::size_t active = shared->lock.active_locks(); active != 0) {
      return std::to_string(active) + " lock entries active after every call returned and every guard was released";
    }
    if (const std::size_t waiting = shared->lock.waiting_acquisitions(); waiting != 0) {
      return std::to_string(waiting) + " acquisitions still waiting after every call returned";
    }
    if (std::string broken = shared->lock.check_invariants(); !broken.empty()) return broken;
    return std::nullopt;
  };
  return program;
}

inline Call acquire(model::Request r) {
  return {std::move(r), [](Shared& s, const model::Request& q) { return s.lock.acquire(q); }};
}
inline Call acquire_with_stop(model::Request r) {
  return {std::move(r), [](Shared& s, const model::Request& q) { return s.lock.acquire(q, s.stop.get_token()); }};
}
inline Call acquire_for(model::Request r, std::chrono::nanoseconds timeout) {
  return {std::move(r), [timeout](Shared& s, const model::Request& q) { return s.lock.acquire_for(q, timeout); }};
}
inline Call try_acquire(model::Request r) {
  return {std::move(r), [](Shared& s, const model::Request& q) { return s.lock.try_acquire(q); }};
}

// What the passing runs did: the longest run, and how many runs had a
// waiter spin, sleep, or a deadline pass.
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

struct Searched {
  ExploreResult result;
  Coverage coverage;
};

// The bound of a two-thread search that needs two preemptions to reach every
// race it aims at: one under a sanitizer, where the two-preemption search
// took about two minutes a test (against 6-8 s in the release build, which
// runs it in full); the one-preemption schedules still reach each race.
#ifdef PATHLOCK_SANITIZED
inline constexpr std::size_t kTwoPreemptionsOrOneSanitized = 1;
#else
inline constexpr std::size_t kTwoPreemptionsOrOneSanitized = 2;
#endif

// Exhaustive within `bound` preemptions; prints what it explored and how long it took.
Searched search(const char* what, const std::function<Program()>& make, std::size_t bound);

// The failure's description, schedule and trace, for a test's message.
std::string describe_failure(const ExploreResult& r);

}  // namespace pathlock::sim::runtime::testing
