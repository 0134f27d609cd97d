#include "pathlock/testing/shadow.hpp"

#include <fmt/format.h>

#include "pathlock/model/conflict.hpp"

namespace pathlock::testing {

const char* to_string(Verdict verdict) noexcept {
  switch (verdict) {
    case Verdict::kPassed: return "passed";
    case Verdict::kSafetyViolation: return "safety violation: conflicting requests held at once";
    case Verdict::kHang: return "hang: tasks left and none moved within the hang timeout (a deadlock or a lost wake-up)";
    case Verdict::kLockError: return "the lock threw";
  }
  return "?";
}

Shadow::Shadow(const Scenario& scenario) : tasks_(scenario.tasks.size()) {
  for (std::size_t t = 0; t < scenario.tasks.size(); ++t) {
    first_id_.push_back(static_cast<int>(requests_.size()));
    for (const auto& op : scenario.tasks[t]) {
      requests_.push_back(op.request());
      texts_.push_back(operation_text(op));
      task_of_.push_back(t);
    }
  }
  const std::size_t n = requests_.size();
  conflicts_.assign(n * n, 0);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = a + 1; b < n; ++b) {
      const char c = model::conflicts(requests_[a], requests_[b]) ? 1 : 0;
      conflicts_[a * n + b] = conflicts_[b * n + a] = c;
    }
  }
  slots_ = std::make_unique<Slot[]>(tasks_);
}

std::string Shadow::name(std::size_t task, int id) const {
  return fmt::format("T{}'s {}", task, texts_[static_cast<std::size_t>(id)]);
}

void Shadow::fail(Verdict verdict, std::string detail) {
  std::lock_guard guard(failure_mutex_);
  if (failed_.load(std::memory_order_relaxed)) return;
  verdict_ = verdict;
  detail_ = std::move(detail);
  failed_.store(true, std::memory_order_release);
}

void Shadow::arrive(std::size_t task, int id) {
  slots_[task].ticket.store(tickets_.fetch_add(1) + 1);
  slots_[task].waiting.store(id);
  progress_.fetch_add(1, std::memory_order_release);
}

void Shadow::grant(std::size_t task, int id) {
  Slot& mine = slots_[task];
  const std::uint64_t my_ticket = mine.ticket.load();
  mine.held_since = order_.fetch_add(1);
  mine.held.store(id);
  mine.waiting.store(kNone);
  for (std::size_t u = 0; u < tasks_; ++u) {
    if (u == task) continue;
    const int held = slots_[u].held.load();
    if (held != kNone && conflict(id, held)) {
      fail(Verdict::kSafetyViolation,
           fmt::format("{} was granted while {} held, and they conflict", name(task, id), name(u, held)));
    }
    const int waiting = slots_[u].waiting.load();
    if (waiting != kNone && conflict(id, waiting) && slots_[u].ticket.load() < my_ticket) {
      fifo_inversions_.fetch_add(1, std::memory_order_relaxed);
    }
  }
  progress_.fetch_add(1, std::memory_order_release);
}

void Shadow::release(std::size_t task) {
  Slot& mine = slots_[task];
  const int id = mine.held.load();
  mine.holds.push_back(Interval{id, mine.held_since, order_.fetch_add(1)});
  mine.held.store(kNone);
  progress_.fetch_add(1, std::memory_order_release);
}

void Shadow::give_up(std::size_t task) {
  slots_[task].waiting.store(kNone);
  progress_.fetch_add(1, std::memory_order_release);
}

void Shadow::lock_error(std::size_t task, int id, const std::string& what) {
  slots_[task].waiting.store(kNone);
  fail(Verdict::kLockError, fmt::format("{}: the lock threw: {}", name(task, id), what));
  progress_.fetch_add(1, std::memory_order_release);
}

std::vector<std::string> Shadow::blockers(std::size_t task, int waiting) const {
  std::vector<std::string> found;
  const std::uint64_t ticket = slots_[task].ticket.load();
  for (std::size_t u = 0; u < tasks_; ++u) {
    if (u == task) continue;
    const int held = slots_[u].held.load();
    const int other = slots_[u].waiting.load();
    if (held != kNone && conflict(waiting, held)) found.push_back(name(u, held) + " (holds)");
    if (other != kNone && conflict(waiting, other) && slots_[u].ticket.load() < ticket) {
      found.push_back(name(u, other) + " (asked earlier)");
    }
  }
  return found;
}

std::vector<int> Shadow::unexplained_waiters() const {
  std::vector<int> found;
  for (std::size_t t = 0; t < tasks_; ++t) {
    const int waiting = slots_[t].waiting.load();
    if (waiting != kNone && blockers(t, waiting).empty()) found.push_back(waiting);
  }
  return found;
}

std::vector<std::string> Shadow::describe_waits(const std::vector<bool>& finished) const {
  std::vector<std::string> lines;
  for (std::size_t t = 0; t < tasks_; ++t) {
    if (finished[t]) continue;
    const int waiting = slots_[t].waiting.load();
    const int held = slots_[t].held.load();
    if (held != kNone) {
      lines.push_back(fmt::format("{} holds and has not released", name(t, held)));
      continue;
    }
    if (waiting == kNone) {
      lines.push_back(fmt::format("T{} is between requests", t));
      continue;
    }
    const std::vector<std::string> found = blockers(t, waiting);
    if (found.empty()) {
      lines.push_back(fmt::format("{} waits, and nothing that conflicts with it holds or asked before it: it waits "
                                  "for what the lock took for a request still waiting, or for a lost wake-up",
                                  name(t, waiting)));
    } else {
      lines.push_back(fmt::format("{} waits; by the model it waits for {}", name(t, waiting), fmt::join(found, ", ")));
    }
  }
  return lines;
}

void Shadow::check_intervals() {
  for (std::size_t a = 0; a < tasks_; ++a) {
    for (std::size_t b = a + 1; b < tasks_; ++b) {
      for (const Interval& x : slots_[a].holds) {
        for (const Interval& y : slots_[b].holds) {
          if (x.start < y.end && y.start < x.end && conflict(x.id, y.id)) {
            fail(Verdict::kSafetyViolation,
                 fmt::format("{} and {} held at once, and they conflict", name(a, x.id), name(b, y.id)));
            return;
          }
        }
      }
    }
  }
}

Verdict Shadow::verdict() const {
  // The deterministic runtime asks after every step: no mutex until a failure.
  if (!failed_.load(std::memory_order_acquire)) return Verdict::kPassed;
  std::lock_guard guard(failure_mutex_);
  return verdict_;
}

std::string Shadow::detail() const {
  std::lock_guard guard(failure_mutex_);
  return detail_;
}

}  // namespace pathlock::testing
