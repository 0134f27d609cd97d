#include "executor.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "context.hpp"

namespace pathlock::sim::runtime::detail {

Context& context() noexcept {
  constinit thread_local Context current;
  return current;
}

RuntimeSection::RuntimeSection() noexcept { ++context().runtime_depth; }
RuntimeSection::~RuntimeSection() { --context().runtime_depth; }

Executor* active_executor() noexcept {
  const Context& c = context();
  return c.runtime_depth == 0 ? c.executor : nullptr;
}
void step(Executor& executor, const Operation& op) { executor.step(op); }
void wrote(Executor& executor) noexcept { executor.wrote(); }
std::uint32_t thread_index(const Executor& executor) noexcept { return executor.current(); }
std::chrono::nanoseconds clock_now(const Executor& executor) noexcept { return executor.now(); }
std::uint64_t next_task_id(Executor& executor) noexcept {
  const std::uint32_t me = executor.current();
  return ((std::uint64_t{me} + 1) << 32) + executor.thread(me).task_ids++;
}
void observe_lock(Executor& executor, const LockObservation& seen) { executor.observe_lock(seen); }
std::uint32_t* arm_wake(Executor& executor) noexcept {
  LogicalThread& me = executor.thread(executor.current());
  me.wake = 0;
  me.timed_out = false;
  return &me.wake;
}
std::uint32_t* wake_word(Executor& executor, std::uint32_t thread) noexcept { return &executor.thread(thread).wake; }
bool timed_out(const Executor& executor) noexcept {
  return const_cast<Executor&>(executor).thread(executor.current()).timed_out;
}

namespace {
std::string where_text(const Where& where) {
  return std::string(where.file_name()) + ":" + std::to_string(where.line());
}
}  // namespace

Executor::Executor(Program program, Strategy& strategy, const RunOptions& options)
    : program_(std::move(program)),
      strategy_(strategy),
      options_(options),
      threads_(program_.threads.size()),
      allocation_failures_left_(options.allocation_failures) {
  for (std::size_t i = 0; i < threads_.size(); ++i) threads_[i].body = std::move(program_.threads[i]);
}

RunResult Executor::run(const std::shared_ptr<Executor>& self) {
  Executor& ex = *self;
  RuntimeSection section;  // the controller's own allocations are never failed
  for (std::uint32_t i = 0; i < ex.threads_.size(); ++i) {
    // Each thread holds the executor: after a failure it stays parked on it.
    ex.threads_[i].os = std::thread([self, i] { self->thread_main(i); });
  }
  Lock lock(ex.mutex_);
  ex.schedule(kNoThread, lock);
  ex.controller_.wait(lock, [&] { return ex.over_; });
  for (LogicalThread& t : ex.threads_) {
    if (t.status == ThreadStatus::kFinished) {
      lock.unlock();
      t.os.join();
      lock.lock();
    } else {
      t.os.detach();  // parked for good (see runtime.hpp)
    }
  }
  return std::move(ex.result_);
}

void Executor::thread_main(std::uint32_t index) {
  Context& c = context();
  c.executor = this;
  c.thread = index;
  {
    RuntimeSection section;
    Lock lock(mutex_);
    await_baton(index, lock);
  }
  try {
    threads_[index].body();
  } catch (const std::exception& e) {
    RuntimeSection section;
    Lock lock(mutex_);
    end_run(RunOutcome::kThreadThrew, "thread " + std::to_string(index) + " threw: " + e.what());
    await_baton(index, lock);
  } catch (...) {
    RuntimeSection section;
    Lock lock(mutex_);
    end_run(RunOutcome::kThreadThrew, "thread " + std::to_string(index) + " threw a non-standard exception");
    await_baton(index, lock);
  }
  {
    RuntimeSection section;
    Lock lock(mutex_);
    finish_thread(index, lock);
  }
  c = Context{};
}

void Executor::await_baton(std::uint32_t index, Lock& lock) {
  // After the run ends without this thread, the predicate never holds again.
  threads_[index].baton.wait(lock, [&] { return current_ == index && !over_; });
}

void Executor::finish_thread(std::uint32_t index, Lock& lock) {
  threads_[index].status = ThreadStatus::kFinished;
  wrote();
  schedule(index, lock);
}

void Executor::step(const Operation& op) {
  RuntimeSection section;
  Lock lock(mutex_);
  const std::uint32_t me = current_;
  LogicalThread& self = threads_[me];
  self.pending = op;
  if (op.yields) {
    if (changes_ == self.changes_at_last_yield) self.spinning_idle = true;
    self.changes_at_last_yield = changes_;
  }
  schedule(me, lock);
  await_baton(me, lock);
}

void Executor::wrote() noexcept {
  ++changes_;
  for (LogicalThread& t : threads_) t.spinning_idle = false;
}

bool Executor::can_step(const LogicalThread& t) const noexcept {
  return t.status == ThreadStatus::kAlive &&
         (t.pending.wait_word == nullptr || *t.pending.wait_word == t.pending.wait_value);
}

void Executor::broke_rule(std::string what) {
  if (!broken_rule_) broken_rule_ = std::move(what);
}

void Executor::schedule(std::uint32_t from, Lock& lock) {
  (void)lock;
  if (broken_rule_) {
    end_run(RunOutcome::kPropertyViolated, "at step " + std::to_string(result_.trace.size()) + ": " + *broken_rule_);
    return;
  }
  if (from != kNoThread && program_.after_each_step) {
    if (std::optional<std::string> violation = program_.after_each_step()) {
      end_run(RunOutcome::kPropertyViolated, "after step " + std::to_string(result_.trace.size()) + ": " + *violation);
      return;
    }
  }
  bool any_busy = false;
  for (const LogicalThread& t : threads_) any_busy = any_busy || (can_step(t) && !t.spinning_idle);
  const auto runnable = [&](std::uint32_t i) {
    return can_step(threads_[i]) && !(any_busy && threads_[i].spinning_idle);
  };
  std::vector<Choice>& options = options_buffer_;
  options.clear();
  const bool from_runnable = from != kNoThread && runnable(from);
  if (from_runnable) options.push_back({ChoiceKind::kRun, from});
  for (std::uint32_t i = 0; i < threads_.size(); ++i) {
    if (i != from && runnable(i)) options.push_back({ChoiceKind::kRun, i});
  }
  // A deadline may pass at any point where a thread makes progress (an
  // explicit choice), or when no thread can step; not while only spinners
  // spin on unchanged state (spinning takes no virtual time; otherwise
  // every turn of a spin loop would be one more place for it).
  const bool only_spinners = !any_busy && !options.empty();
  for (std::uint32_t i = 0; i < threads_.size() && !only_spinners; ++i) {
    const LogicalThread& t = threads_[i];
    if (t.status == ThreadStatus::kAlive && !can_step(t) && t.pending.deadline) {
      options.push_back({ChoiceKind::kTimeout, i});
    }
  }
  if (options.empty()) {
    const bool all_finished = std::all_of(threads_.begin(), threads_.end(), [](const LogicalThread& t) {
      return t.status == ThreadStatus::kFinished;
    });
    if (!all_finished) {
      end_run(RunOutcome::kDeadlock, describe_waits());
    } else if (std::optional<std::string> violation = program_.at_end ? program_.at_end() : std::nullopt) {
      end_run(RunOutcome::kPropertyViolated, "at the end: " + *violation);
    } else {
      end_run(RunOutcome::kFinished, {});
    }
    return;
  }
  if (result_.trace.size() >= options_.max_steps) {
    end_run(RunOutcome::kStepBoundHit, "no end after " + std::to_string(options_.max_steps) +
                                           " steps (the bound): a livelock, or a run longer than the bound");
    return;
  }
  const bool from_continues = from_runnable;
  const ChoicePoint point{options, from,
                          from_continues ? ContinuationMode::kCurrentCanContinue : ContinuationMode::kSwitchIsFree,
                          result_.trace.size()};
  const std::size_t index = options.size() > 1 ? take(point) : 0;
  if (over_) return;
  const Choice choice = options[index];
  LogicalThread& next = threads_[choice.thread];
  const char* what = next.pending.what;
  if (choice.kind == ChoiceKind::kTimeout) {
    clock_ = std::max(clock_, *next.pending.deadline);
    for (LogicalThread& t : threads_) {
      if (t.status == ThreadStatus::kAlive && !can_step(t) && t.pending.deadline && *t.pending.deadline <= clock_) {
        t.wake = 1;
        t.timed_out = true;
      }
    }
    wrote();
    what = "wait ends at its deadline";
  }
  result_.trace.push_back({choice.thread, what, next.pending.where, next.pending.object, next.pending.object_declared});
  current_ = choice.thread;
  if (current_ != from) next.baton.notify_one();
}

std::size_t Executor::take(const ChoicePoint& point) {
  const std::size_t index = strategy_.choose(point);
  if (index >= point.options.size()) {
    std::string offered;
    for (const Choice& c : point.options) offered += (offered.empty() ? "" : " ") + format_choice(c);
    end_run(RunOutcome::kScheduleDiverged, "choice " + std::to_string(result_.schedule.size()) + " at step " +
                                               std::to_string(point.step) + " is not among those offered: " + offered);
    return 0;
  }
  if (is_preemption(point, point.options[index])) ++result_.preemptions;
  result_.schedule.push_back(point.options[index]);
  return index;
}

bool Executor::allocation_fails() {
  RuntimeSection section;
  Lock lock(mutex_);
  if (allocation_failures_left_ == 0 || over_) return false;
  const std::uint32_t me = current_;
  const Choice options[] = {{ChoiceKind::kAllocate, me}, {ChoiceKind::kFailAllocation, me}};
  const ChoicePoint point{options, me, ContinuationMode::kSwitchIsFree, result_.trace.size()};
  const std::size_t index = take(point);
  if (over_) {
    await_baton(me, lock);  // the schedule diverged: parked for good
  }
  if (options[index].kind != ChoiceKind::kFailAllocation) return false;
  --allocation_failures_left_;
  result_.trace.push_back({me, "allocation fails (std::bad_alloc)", Where{}, "", Where{}});
  return true;
}

void Executor::end_run(RunOutcome outcome, std::string detail) {
  result_.outcome = outcome;
  if (outcome == RunOutcome::kDeadlock && detail.empty()) detail = describe_waits();
  result_.detail = std::move(detail);
  over_ = true;
  controller_.notify_one();
}

std::string Executor::describe_waits() const {
  std::string text = "no thread can step;";
  for (std::uint32_t i = 0; i < threads_.size(); ++i) {
    const LogicalThread& t = threads_[i];
    if (t.status == ThreadStatus::kFinished) continue;
    text += " thread " + std::to_string(i) + " at " + t.pending.what + " (" + where_text(t.pending.where) + ")";
    if (!can_step(t)) {
      text += " waits for the " + std::string(t.pending.object) + " declared at " + where_text(t.pending.object_declared);
    }
    text += ";";
  }
  return text;
}

}  // namespace pathlock::sim::runtime::detail
