#pragma once
// The executor behind run_program: one OS thread per logical thread, one
// baton. The thread holding the baton runs; at a scheduling point it
// announces its next operation, takes the strategy's choice and hands the
// baton on (or keeps it), all under one std::mutex so that the hand-off is a
// happens-before edge (ThreadSanitizer sees the same).

#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "pathlock/sim/runtime/runtime.hpp"

namespace pathlock::sim::runtime::detail {

enum class ThreadStatus : std::uint8_t { kAlive, kFinished };

struct LogicalThread {
  std::function<void()> body;
  std::thread os;
  std::condition_variable baton;
  ThreadStatus status = ThreadStatus::kAlive;
  Operation pending{.what = "start"};
  // A spinner that yielded with nothing changed since its previous yield is
  // picked only when no other thread can step.
  bool spinning_idle = false;
  std::uint64_t changes_at_last_yield = UINT64_MAX;
  std::uint32_t wake = 0;  // a condition variable's wait ends when 1
  std::uint32_t spin_locks_held = 0;  // a blocking call under one breaks the runtime's rule
  bool timed_out = false;
  std::uint64_t task_ids = 0;
};

class Executor {
 public:
  Executor(Program program, Strategy& strategy, const RunOptions& options);
  // Runs to the end; `self` keeps the executor alive for threads left parked
  // after a failure.
  static RunResult run(const std::shared_ptr<Executor>& self);

  void step(const Operation& op);
  void wrote() noexcept;
  // An allocation inside an injection scope: whether the strategy fails it.
  bool allocation_fails();
  // A rule of the code under test broken inside a step (a blocking call
  // under a spin lock): the run ends as kPropertyViolated at the next point.
  void broke_rule(std::string what);
  void observe_lock(const LockObservation& seen) {
    if (!program_.observe_lock) return;
    RuntimeSection section;  // the observer's allocations are never failed
    program_.observe_lock(seen);
  }

  std::uint32_t current() const noexcept { return current_; }
  LogicalThread& thread(std::uint32_t index) { return threads_[index]; }
  std::chrono::nanoseconds now() const noexcept { return clock_; }

 private:
  using Lock = std::unique_lock<std::mutex>;
  void thread_main(std::uint32_t index);
  void finish_thread(std::uint32_t index, Lock& lock);
  // Checks the property, picks the next step and hands the baton over.
  void schedule(std::uint32_t from, Lock& lock);
  // Blocks the calling logical thread until the baton is back (never
  // returns if the run ended without it).
  void await_baton(std::uint32_t index, Lock& lock);
  bool can_step(const LogicalThread& t) const noexcept;
  void end_run(RunOutcome outcome, std::string detail);
  std::string describe_waits() const;
  std::size_t take(const ChoicePoint& point);

  std::mutex mutex_;
  std::condition_variable controller_;
  Program program_;
  Strategy& strategy_;
  RunOptions options_;
  std::vector<LogicalThread> threads_;
  std::uint32_t current_ = kNoThread;  // the baton holder
  bool over_ = false;
  std::uint64_t changes_ = 0;
  std::chrono::nanoseconds clock_{0};
  std::size_t allocation_failures_left_ = 0;
  std::vector<Choice> options_buffer_;
  std::exception_ptr thrown_;
  std::optional<std::string> broken_rule_;
  RunResult result_;
};

}  // namespace pathlock::sim::runtime::detail
