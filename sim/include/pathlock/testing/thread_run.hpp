#pragma once
// One run of a scenario against a lock on real threads: a thread per task
// takes the task's operations in turn (blocking, or by try-acquire or timed
// acquire where the lock offers them, chosen per operation from the seed),
// pausing for seeded short times before it asks and while it holds, so that
// the threads meet inside each other's critical sections. The Shadow judges
// every grant; a watchdog declares a hang when no task moves for the hang
// timeout, and samples the waiters for over-blocking.
//
// The operating system schedules the threads: a run replays its scenario and
// its pauses, not its interleaving. Threads of a hung run cannot be stopped:
// they are detached, and they and the lock they wait on are leaked.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "pathlock/testing/lock_under_test.hpp"
#include "pathlock/testing/scenario.hpp"
#include "pathlock/testing/shadow.hpp"

namespace pathlock::testing {

// What the threads do between steps.
enum class Pauses : std::uint8_t {
  kSeeded,  // seeded: none, a yield, a short spin or a 20 us sleep, before asking and while holding
  kNone,    // straight through (a shrunk schedule: the failure needs no pauses)
};

struct RunOptions {
  std::chrono::milliseconds hang_timeout{1000};
  Pauses pauses = Pauses::kSeeded;
};

struct RunOutcome {
  Verdict verdict = Verdict::kPassed;
  std::string detail;
  std::vector<std::string> waits;  // at a hang
  std::uint64_t fifo_inversions = 0;
  std::uint64_t over_blocked_samples = 0;
  bool failed() const noexcept { return verdict != Verdict::kPassed; }
};

namespace detail {

enum class AcquireStyle : std::uint8_t { kBlocking, kTry, kTimed };

inline void pause(std::mt19937_64& rng, Pauses pauses) {
  if (pauses == Pauses::kNone) return;
  switch (rng() % 6) {
    case 0:
      std::this_thread::yield();
      break;
    case 1: {
      // A short spin the compiler keeps: about a microsecond.
      std::atomic<int> spins{0};
      while (spins.fetch_add(1, std::memory_order_relaxed) < 200) {
      }
      break;
    }
    case 2:
      std::this_thread::sleep_for(std::chrono::microseconds(20));
      break;
    default:
      break;
  }
}

template <LockUnderTest L>
struct RunState {
  template <typename F>
  RunState(F& make_lock, const Scenario& s) : lock(make_lock()), scenario(s), shadow(s) {}
  L lock;
  Scenario scenario;
  Shadow shadow;
  std::atomic<bool> start{false};
  std::unique_ptr<std::atomic<bool>[]> finished;
};

template <LockUnderTest L>
AcquireStyle style_for(std::mt19937_64& rng) {
  const auto pick = rng() % 4;
  if constexpr (TryLockUnderTest<L>) {
    if (pick == 0) return AcquireStyle::kTry;
  }
  if constexpr (TimedLockUnderTest<L>) {
    if (pick == 1) return AcquireStyle::kTimed;
  }
  return AcquireStyle::kBlocking;
}

template <LockUnderTest L>
void run_task(RunState<L>& state, std::size_t task, std::uint64_t seed, Pauses pauses) {
  std::mt19937_64 rng(seed * 1000003ULL + task);
  while (!state.start.load(std::memory_order_acquire)) std::this_thread::yield();
  const auto& operations = state.scenario.tasks[task];
  for (std::size_t i = 0; i < operations.size(); ++i) {
    const int id = state.shadow.operation_id(task, i);
    const model::Request& request = state.shadow.request(id);
    const AcquireStyle style = style_for<L>(rng);
    pause(rng, pauses);
    state.shadow.arrive(task, id);
    std::optional<typename L::Handle> handle;
    try {
      if constexpr (TryLockUnderTest<L>) {
        if (style == AcquireStyle::kTry) handle = state.lock.try_acquire(request);
      }
      if constexpr (TimedLockUnderTest<L>) {
        if (style == AcquireStyle::kTimed) handle = state.lock.try_acquire_for(request, std::chrono::microseconds(50));
      }
      if (style == AcquireStyle::kBlocking) handle.emplace(state.lock.acquire(request));
    } catch (const std::exception& e) {
      state.shadow.lock_error(task, id, e.what());
      break;
    } catch (...) {
      state.shadow.lock_error(task, id, "an exception not derived from std::exception");
      break;
    }
    if (!handle) {
      state.shadow.give_up(task);
      continue;
    }
    state.shadow.grant(task, id);
    pause(rng, pauses);
    state.shadow.release(task);
    try {
      state.lock.release(std::move(*handle));
    } catch (const std::exception& e) {
      state.shadow.lock_error(task, id, std::string("release: ") + e.what());
      break;
    } catch (...) {
      state.shadow.lock_error(task, id, "release: an exception not derived from std::exception");
      break;
    }
  }
  state.finished[task].store(true, std::memory_order_release);
}

}  // namespace detail

// Runs `scenario` once against a fresh lock from `make_lock()`.
template <typename F, LockUnderTest L = std::invoke_result_t<F&>>
RunOutcome run_once(F& make_lock, const Scenario& scenario, std::uint64_t seed, const RunOptions& options = {}) {
  auto state = std::make_shared<detail::RunState<L>>(make_lock, scenario);
  const std::size_t tasks = scenario.tasks.size();
  state->finished = std::make_unique<std::atomic<bool>[]>(tasks);
  std::vector<std::thread> threads;
  threads.reserve(tasks);
  try {
    for (std::size_t t = 0; t < tasks; ++t) {
      threads.emplace_back([state, t, seed, pauses = options.pauses] { detail::run_task(*state, t, seed, pauses); });
    }
  } catch (...) {
    // No thread to be had: the started tasks run to their end (the missing
    // ones hold nothing they could wait for), then the error goes to the caller.
    state->start.store(true, std::memory_order_release);
    for (auto& thread : threads) thread.join();
    throw;
  }
  state->start.store(true, std::memory_order_release);

  RunOutcome outcome;
  std::uint64_t progress = state->shadow.progress();
  auto last_move = std::chrono::steady_clock::now();
  std::vector<bool> finished(tasks, false);
  while (true) {
    std::size_t done = 0;
    for (std::size_t t = 0; t < tasks; ++t) done += (finished[t] = state->finished[t].load(std::memory_order_acquire));
    if (done == tasks) break;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    const std::uint64_t now_progress = state->shadow.progress();
    const auto now = std::chrono::steady_clock::now();
    if (now_progress != progress) {
      progress = now_progress;
      last_move = now;
      continue;
    }
    // Nothing moved for a whole sample: a waiter nothing explains is over-blocked.
    outcome.over_blocked_samples += state->shadow.unexplained_waiters().size();
    if (now - last_move >= options.hang_timeout) {
      // A violation or an exception recorded before is the likelier cause.
      outcome.verdict = state->shadow.verdict() != Verdict::kPassed ? state->shadow.verdict() : Verdict::kHang;
      outcome.detail = state->shadow.verdict() != Verdict::kPassed
                           ? state->shadow.detail()
                           : "no task moved for " + std::to_string(options.hang_timeout.count()) + " ms";
      outcome.waits = state->shadow.describe_waits(finished);
      for (auto& thread : threads) thread.detach();  // they keep `state` alive
      outcome.fifo_inversions = state->shadow.fifo_inversions();
      return outcome;
    }
  }
  for (auto& thread : threads) thread.join();
  state->shadow.check_intervals();
  outcome.verdict = state->shadow.verdict();
  outcome.detail = state->shadow.detail();
  outcome.fifo_inversions = state->shadow.fifo_inversions();
  return outcome;
}

}  // namespace pathlock::testing
