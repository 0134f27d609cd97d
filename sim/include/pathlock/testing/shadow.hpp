#pragma once
// The shadow checker of one run on real threads: what each task asks, holds
// and waits for, judged by the model's conflict predicate.
//
// No global mutex orders the tasks (one would hide the races it looks for).
// Each task numbers its grant (after the lock granted) and its release
// (before it releases) from one atomic counter, whose read-modify-writes are
// totally ordered, and logs the interval in a log of its own; after the run,
// two conflicting intervals that overlap in that order are two conflicting
// holds at once (check_intervals). Online, for an early verdict, a granted
// task also publishes what it holds and reads every other task's holding;
// that check alone can miss an overlap. Only the first violation's
// description takes a mutex.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pathlock/model/request.hpp"
#include "pathlock/testing/scenario.hpp"

namespace pathlock::testing {

enum class Verdict : std::uint8_t {
  kPassed,
  kSafetyViolation,  // two conflicting requests held at once
  kHang,             // no task moved for the hang timeout with tasks left: a deadlock or a lost wake-up
  kLockError,        // the lock threw
};
const char* to_string(Verdict verdict) noexcept;

class Shadow {
 public:
  static constexpr int kNone = -1;

  explicit Shadow(const Scenario& scenario);

  // Operations are numbered across tasks, task by task.
  int operation_id(std::size_t task, std::size_t index) const { return first_id_[task] + static_cast<int>(index); }
  const model::Request& request(int id) const { return requests_[static_cast<std::size_t>(id)]; }
  bool conflict(int a, int b) const {
    return conflicts_[static_cast<std::size_t>(a) * requests_.size() + static_cast<std::size_t>(b)] != 0;
  }

  // Called by task `task`'s thread.
  void arrive(std::size_t task, int id);
  void grant(std::size_t task, int id);
  void release(std::size_t task);
  void give_up(std::size_t task);  // a failed try or a timeout: holds nothing
  void lock_error(std::size_t task, int id, const std::string& what);

  // Called by the watchdog.
  std::uint64_t progress() const noexcept { return progress_.load(std::memory_order_acquire); }
  // Waiters that no conflicting holder or earlier conflicting waiter
  // explains, in this sample.
  std::vector<int> unexplained_waiters() const;
  // At a hang: each unfinished task's state and what the model says it waits for.
  std::vector<std::string> describe_waits(const std::vector<bool>& finished) const;

  // After every task's thread has finished: the interval check above.
  void check_intervals();

  Verdict verdict() const;
  std::string detail() const;
  std::uint64_t fifo_inversions() const noexcept { return fifo_inversions_.load(std::memory_order_relaxed); }

 private:
  struct Interval {
    int id;
    std::uint64_t start;
    std::uint64_t end;
  };
  struct Slot {
    std::atomic<int> held{kNone};
    std::atomic<int> waiting{kNone};
    std::atomic<std::uint64_t> ticket{0};
    std::uint64_t held_since = 0;   // the task's own
    std::vector<Interval> holds;    // the task's own; read after the run
  };
  std::string name(std::size_t task, int id) const;
  // What task `task`'s waiting request `waiting` may wait for, by the model:
  // the conflicting holders and the conflicting waiters that asked earlier.
  std::vector<std::string> blockers(std::size_t task, int waiting) const;
  void fail(Verdict verdict, std::string detail);

  std::vector<model::Request> requests_;
  std::vector<std::string> texts_;  // "copy /a /a/b"
  std::vector<int> first_id_;
  std::vector<std::size_t> task_of_;
  std::vector<char> conflicts_;
  std::unique_ptr<Slot[]> slots_;
  std::size_t tasks_;
  std::atomic<std::uint64_t> tickets_{0};
  std::atomic<std::uint64_t> progress_{0};
  std::atomic<std::uint64_t> order_{0};  // numbers grants and releases
  std::atomic<std::uint64_t> fifo_inversions_{0};
  std::atomic<bool> failed_{false};
  mutable std::mutex failure_mutex_;  // the first failure's record only
  Verdict verdict_ = Verdict::kPassed;
  std::string detail_;
};

}  // namespace pathlock::testing
