#include "pathlock/sim/lockcheck/check_lock.hpp"

#include <fmt/format.h>

#include <coroutine>
#include <exception>
#include <limits>
#include <memory>
#include <new>
#include <optional>

#include "pathlock/model/error.hpp"
#include "pathlock/sim/explorer.hpp"
#include "pathlock/sim/lockcheck/fifo_ledger.hpp"
#include "pathlock/sim/lockcheck/ledger.hpp"
#include "pathlock/sim/planner.hpp"
#include "pathlock/sim/rng.hpp"
#include "pathlock/sim/runtime/allocation.hpp"
#include "pathlock/sim/runtime/path_lock.hpp"
#include "pathlock/sim/runtime/runtime.hpp"
#include "pathlock/sim/runtime/strategies/iterative_dfs_strategy.hpp"
#include "pathlock/sim/runtime/strategies/pct_strategy.hpp"
#include "pathlock/sim/runtime/strategies/replay_strategy.hpp"
#include "pathlock/sim/scenario.hpp"

namespace pathlock::sim::lockcheck {
namespace {

using Lock = runtime::DeterministicPathLock;
using runtime::VirtualClock;

// The virtual time a timed call waits before its deadline can pass.
constexpr auto kTimedWait = std::chrono::milliseconds(1);

// One run's world, built afresh for every run.
struct World {
  World(const impl::Scheme& scheme, const LockProgram& program, const LockSetting& setting)
      : lock(scheme, PathLockOptions{.shards = setting.shards,
                                     .max_idle_locks_per_shard = setting.max_idle,
                                     .fast_gates = setting.gates == GateSetting::kOn,
                                     // the harness runs defective schemes on purpose
                                     .scheme_admission = SchemeAdmission::kAllowDefective}),
        ledger(program.threads.size() + program.async_calls()),
        fifo(scheme, fairness_promise(scheme)) {
    for (const auto& t : program.threads) {
      auto& mine = requests.emplace_back();
      for (const auto& c : t.calls) mine.push_back(c.operation.request());
    }
    stops.resize(program.stoppable_calls());
    for (const auto& t : program.threads) {
      for (const auto& c : t.calls) {
        if (takes_a_stop_token(c.style)) stop_styles.push_back(c.style);
      }
    }
    acquisitions.resize(program.cancelled_calls());
    cancel_outcomes.resize(program.cancelled_calls());
    cancelled_slot.resize(program.cancelled_calls());
    handler_runs.resize(program.async_calls());
    handler_status.resize(program.async_calls(), AcquireStatus::kReleased);
  }
  Lock lock;
  GrantLedger ledger;
  FifoLedger fifo;  // every grant against each lock's arrival order
  std::vector<std::vector<model::Request>> requests;  // by thread, by call
  std::vector<runtime::StopSource> stops;             // by stoppable call
  std::vector<WaitStyle> stop_styles;                 // by stoppable call
  std::vector<Lock::AsyncAcquisition> acquisitions;   // by cancelled async call
  std::size_t async_issued = 0;                       // async calls that returned
  std::size_t async_completed = 0;                    // their handlers that ran
  std::vector<int> handler_runs;                      // by async call
  std::vector<AcquireStatus> handler_status;          // by async call: what its handler got
  std::vector<std::optional<CancelOutcome>> cancel_outcomes;  // by cancelled async call
  std::vector<std::size_t> cancelled_slot;            // by cancelled async call: its async call
  std::optional<std::string> violation;
  std::size_t inside = 0;  // threads inside a call into the lock
  // The work a thread does while it holds a request: one scheduling point,
  // so that another thread can run while the request is held (without it,
  // a grant and its release would be one step and no overlap observable).
  runtime::Atomic<std::uint64_t> work{};
};

Lock::Guard call_lock(World& w, const LockCall& call, const model::Request& request, std::size_t stop_index) {
  switch (call.style) {
    case WaitStyle::kBlocking: return w.lock.acquire(request);
    case WaitStyle::kTry: return w.lock.try_acquire(request);
    case WaitStyle::kTimed: return w.lock.acquire_until(request, VirtualClock::now() + kTimedWait);
    case WaitStyle::kStoppable: return w.lock.acquire(request, w.stops[stop_index].get_token());
    case WaitStyle::kAsync:
    case WaitStyle::kAsyncCancelled:
    case WaitStyle::kAsyncAgain:
    case WaitStyle::kAwait:
    case WaitStyle::kAwaitStoppable: break;  // call_async
  }
  return {};
}

// A call into the lock: inside it, allocations may fail (when enabled), and
// the world counts the thread as inside the lock.
class InsideTheLock {
 public:
  InsideTheLock(World& w, AllocationFailures failures) : w_(w) {
    ++w_.inside;
    if (failures == AllocationFailures::kOnePerRun) scope_.emplace();
  }
  ~InsideTheLock() {
    scope_.reset();
    --w_.inside;
  }
  InsideTheLock(const InsideTheLock&) = delete;
  InsideTheLock& operator=(const InsideTheLock&) = delete;

 private:
  World& w_;
  std::optional<runtime::AllocationFailureScope> scope_;
};

// Where a thread's calls of each kind start in the world's per-call tables.
struct FirstIndices {
  std::size_t stop = 0;    // World::stops
  std::size_t async = 0;   // the ledger's async slots, after the threads'
  std::size_t cancel = 0;  // World::acquisitions
};

// An async call: the handler (inline, or on whichever thread grants it)
// holds the request under a ledger slot of its own for one step, then
// releases it.
// An async call that no canceller thread cancels.
constexpr std::size_t kNotCancelled = std::numeric_limits<std::size_t>::max();

void issue_async(World& w, const model::Request& request, std::uint32_t slot, std::size_t async_index,
                 std::size_t again, std::size_t cancel_index, AllocationFailures failures);

// The handler of async call `async_index`: holds its request for one step
// and releases it; with `again`, then starts the next async call of the same
// request from inside the handler (granted at once, it must not nest).
// Handlers never nest on one thread (each logical thread is an OS thread).
thread_local int handler_depth = 0;
struct InHandler {
  InHandler() { ++handler_depth; }
  ~InHandler() { --handler_depth; }
};

// What async call `async_index`'s handler (or an await call's code after
// its co_await) does with the guard it got: counts its run, and holds the
// request under its ledger slot for one step if granted. Returns the guard
// to release. REQUIRES: allocation failures paused (the ledger's
// allocations are not the lock's).
Lock::Guard& take_async_grant(World& w, const model::Request& request, std::uint32_t slot, std::size_t async_index,
                              Lock::Guard& g) {
  if (handler_depth > 1 && !w.violation) {
    w.violation = fmt::format("async call {}'s handler ran inside another handler", async_index);
  }
  ++w.async_completed;
  ++w.handler_runs[async_index];
  w.handler_status[async_index] = g.status();
  if (g.status() != AcquireStatus::kGranted) return g;
  if (auto broken = w.ledger.granted(slot, request); broken && !w.violation) w.violation = std::move(broken);
  w.work.fetch_add(1);  // the critical section
  w.ledger.releasing(slot, request);
  return g;
}

auto async_handler(World& w, const model::Request& request, std::uint32_t slot, std::size_t async_index,
                   std::size_t again, AllocationFailures failures) {
  return [&w, &request, slot, async_index, again, failures](Lock::Guard g) {
    const InHandler in_handler;  // over the next call too: its handler must not run inside this one
    {
      const runtime::AllocationFailurePause checker_code;
      take_async_grant(w, request, slot, async_index, g).release();
    }
    if (again > 0) issue_async(w, request, slot + 1, async_index + 1, again - 1, kNotCancelled, failures);
  };
}

void issue_async(World& w, const model::Request& request, std::uint32_t slot, std::size_t async_index,
                 std::size_t again, std::size_t cancel_index, AllocationFailures failures) {
  try {
    const InsideTheLock inside(w, failures);
    auto acquisition = w.lock.async_acquire(request, async_handler(w, request, slot, async_index, again, failures));
    ++w.async_issued;
    if (cancel_index != kNotCancelled) {
      w.cancelled_slot[cancel_index] = async_index;
      w.acquisitions[cancel_index] = std::move(acquisition);
    }
  } catch (const std::bad_alloc&) {
    // The call failed before it returned: it holds nothing, its handler never runs.
  }
}

// An await call's coroutine: started by its thread, it runs until it
// suspends (or through), and is resumed by the grant's hand-off, on
// whichever thread that comes second.
struct Detached {
  struct promise_type {
    Detached get_return_object() noexcept { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { std::terminate(); }
  };
};

// acquire_async's awaitable, with its calls into the lock counted as inside
// it (where allocations may fail). await_suspend's hand-off may let the
// granting thread resume (and end) the coroutine before it returns: nothing
// after the inner call touches the awaitable.
// `resumed_by_grant` (in the coroutine's frame) says whether the code after
// the co_await runs as the lock's handler (resumed from a grant) or on the
// coroutine's own thread: written before the hand-off, and after it only
// when the coroutine goes on here (the frame is then still ours).
struct AwaitInsideTheLock {
  World& w;
  AllocationFailures failures;
  bool& resumed_by_grant;
  Lock::AcquireAwaitable inner;
  bool await_ready() {
    const InsideTheLock inside(w, failures);
    resumed_by_grant = false;
    return inner.await_ready();
  }
  bool await_suspend(std::coroutine_handle<> coroutine) {
    const InsideTheLock inside(w, failures);
    resumed_by_grant = true;
    const bool suspends = inner.await_suspend(coroutine);
    if (!suspends) resumed_by_grant = false;
    return suspends;
  }
  Lock::Guard await_resume() { return inner.await_resume(); }
};

// An await call: the code after the co_await does what an async handler
// does. It runs inline, or on the thread whose release granted the
// acquisition (or whose stop withdrew it), as that acquisition's handler.
Detached await_call(World& w, const model::Request& request, std::uint32_t slot, std::size_t async_index,
                    AllocationFailures failures, Lock::StopToken stop) {
  Lock::Guard g;
  bool issued = true;
  bool resumed_by_grant = false;
  // (A look the checker takes, before the call: a stop seen here came first.)
  const bool stopped_before = stop.stop_requested();  // (false for no token)
  try {
    // A named awaiter: GCC 12 destroys each member of an aggregate-initialized
    // co_await operand twice (the awaitable's stop state released twice
    // corrupted the heap; see tests/impl/coroutine_operand_test.cpp).
    AwaitInsideTheLock awaiter{w, failures, resumed_by_grant, w.lock.acquire_async(request, stop)};
    g = co_await awaiter;
  } catch (const std::bad_alloc&) {
    issued = false;  // failed before it was issued: it holds nothing, and nothing resumes
  }
  if (!issued) {
    --w.async_issued;
    co_return;
  }
  // Resumed by a grant, it is that grant's handler; on its own thread it is
  // none, and handlers its release grants may run inside it.
  std::optional<InHandler> in_handler;
  if (resumed_by_grant) in_handler.emplace();
  const runtime::AllocationFailurePause checker_code;
  if (stopped_before && g.status() != AcquireStatus::kCancelled && !w.violation) {
    w.violation = fmt::format("await call {}'s stop was requested before its co_await began, yet it ended {}",
                              async_index, to_string(g.status()));
  }
  Lock::Guard& held = take_async_grant(w, request, slot, async_index, g);
  // The release is inside the lock (between calls the lock's invariants
  // are checked), and never fails, as a handler's is.
  const InsideTheLock inside(w, AllocationFailures::kOff);
  held.release();
}

void call_async(World& w, const LockCall& call, const model::Request& request, std::uint32_t slot,
                std::size_t async_index, std::size_t cancel_index, std::size_t stop_index,
                AllocationFailures failures) {
  if (call.style == WaitStyle::kAwait || call.style == WaitStyle::kAwaitStoppable) {
    // Counted before the coroutine starts: its code after the co_await may
    // run (inline) before the call returns. A failed acquisition uncounts it.
    ++w.async_issued;
    await_call(w, request, slot, async_index, failures,
               call.style == WaitStyle::kAwaitStoppable ? w.stops[stop_index].get_token() : Lock::StopToken());
    return;
  }
  const std::size_t again = call.style == WaitStyle::kAsyncAgain ? 1 : 0;
  issue_async(w, request, slot, async_index, again,
              call.style == WaitStyle::kAsyncCancelled ? cancel_index : kNotCancelled, failures);
}

// A lock thread: its calls in order, nested ones held to the end.
void lock_thread(World& w, const ThreadPlan& plan, std::uint32_t t, FirstIndices first, AllocationFailures failures) {
  std::vector<std::pair<Lock::Guard, std::size_t>> held;  // guard, call index
  held.reserve(plan.calls.size());
  const auto release = [&](Lock::Guard& g, std::size_t c) {
    w.ledger.releasing(t, w.requests[t][c]);  // before: once it starts, others may be granted
    // A release is noexcept: an allocation inside it, failed here, ends the
    // process (std::terminate), which the caller reports as a failure.
    const InsideTheLock inside(w, failures);
    g.release();
  };
  std::size_t stop_index = first.stop;
  std::size_t async_slot = w.requests.size() + first.async;
  std::size_t cancel_index = first.cancel;
  for (std::size_t c = 0; c < plan.calls.size(); ++c) {
    const auto& call = plan.calls[c];
    if (const std::size_t n = async_slots(call.style); n > 0) {
      const std::size_t async_index = async_slot - w.requests.size();
      call_async(w, call, w.requests[t][c], static_cast<std::uint32_t>(async_slot), async_index, cancel_index,
                 stop_index, failures);
      async_slot += n;
      if (call.style == WaitStyle::kAsyncCancelled) ++cancel_index;
      if (takes_a_stop_token(call.style)) ++stop_index;
      continue;
    }
    Lock::Guard g;
    try {
      const InsideTheLock inside(w, failures);
      g = call_lock(w, call, w.requests[t][c], stop_index);
    } catch (const std::bad_alloc&) {
      // The call failed: it must hold nothing (it returned no guard), and
      // the properties checked afterwards say whether it left the table sound.
    }
    if (call.style == WaitStyle::kStoppable) ++stop_index;
    if (g.status() != AcquireStatus::kGranted) continue;
    if (auto broken = w.ledger.granted(t, w.requests[t][c]); broken && !w.violation) w.violation = std::move(broken);
    w.work.fetch_add(1);  // the critical section
    if (call.after == AfterGrant::kHoldToEnd && c + 1 < plan.calls.size()) {
      held.emplace_back(std::move(g), c);
    } else {
      release(g, c);
    }
  }
  for (auto it = held.rbegin(); it != held.rend(); ++it) release(it->first, it->second);
}

runtime::Program make_program(const impl::Scheme& scheme, const LockProgram& program, const LockSetting& setting,
                              AllocationFailures failures) {
  auto w = std::make_shared<World>(scheme, program, setting);
  runtime::Program run;
  FirstIndices first;
  for (std::uint32_t t = 0; t < program.threads.size(); ++t) {
    const ThreadPlan* plan = &program.threads[t];
    run.threads.push_back([w, plan, t, first, failures] { lock_thread(*w, *plan, t, first, failures); });
    for (const auto& c : plan->calls) {
      first.stop += takes_a_stop_token(c.style) ? 1U : 0U;
      first.async += async_slots(c.style);
      first.cancel += c.style == WaitStyle::kAsyncCancelled ? 1 : 0;
    }
  }
  for (std::size_t k = 0; k < w->stops.size(); ++k) {
    run.threads.push_back([w, k, failures] {
      // An await call's callback withdraws the acquisition and may resume
      // the coroutine here: lock code, where allocations may fail (the
      // callback is noexcept: one that did would end the process).
      std::optional<InsideTheLock> inside;
      if (w->stop_styles[k] == WaitStyle::kAwaitStoppable) inside.emplace(*w, failures);
      w->stops[k].request_stop();
    });
  }
  for (std::size_t k = 0; k < w->acquisitions.size(); ++k) {
    run.threads.push_back([w, k, failures] {
      const InsideTheLock inside(*w, failures);
      // An empty handle (not yet issued, or granted inline): kAlreadyCompleted.
      w->cancel_outcomes[k] = w->acquisitions[k].cancel();
    });
  }
  run.observe_lock = [w](const runtime::LockObservation& seen) {
    if (auto broken = w->fifo.observe(seen); broken && !w->violation) w->violation = std::move(broken);
  };
  run.after_each_step = [w]() -> std::optional<std::string> {
    if (w->violation) return w->violation;
    if (w->inside == 0) {
      if (std::string broken = w->lock.check_invariants(); !broken.empty()) {
        return "lock invariant broken between calls: " + broken;
      }
    }
    return std::nullopt;
  };
  const std::size_t idle_bound = setting.shards * setting.max_idle;
  run.at_end = [w, idle_bound]() -> std::optional<std::string> {
    if (w->violation) return w->violation;
    if (std::string broken = w->lock.check_invariants(); !broken.empty()) {
      return "lock invariant broken at the end: " + broken;
    }
    if (const std::size_t active = w->lock.active_locks(); active != 0) {
      return fmt::format("every guard was released, yet {} lock entr{} still active (a leaked hold or an "
                         "orphaned waiter)",
                         active, active == 1 ? "y is" : "ies are");
    }
    for (std::size_t a = 0; a < w->handler_runs.size(); ++a) {
      if (w->handler_runs[a] > 1) return fmt::format("async call {}'s handler ran {} times", a, w->handler_runs[a]);
    }
    for (std::size_t k = 0; k < w->cancel_outcomes.size(); ++k) {
      const std::size_t a = w->cancelled_slot[k];
      if (w->cancel_outcomes[k] == CancelOutcome::kCancelled && w->handler_status[a] != AcquireStatus::kCancelled) {
        return fmt::format("cancel() of async call {} said cancelled, yet its handler got {}", a,
                           to_string(w->handler_status[a]));
      }
    }
    if (w->async_completed != w->async_issued) {
      return fmt::format("every thread finished, yet {} of {} async acquisition(s) never ran their handler (a lost "
                         "grant or an orphaned op)",
                         w->async_issued - w->async_completed, w->async_issued);
    }
    if (const std::size_t waiting = w->fifo.waiting(); waiting != 0) {
      return fmt::format("every call returned, yet the lock told of {} acquisition(s) queued and never granted or "
                         "withdrawn (its FIFO observations are incomplete)",
                         waiting);
    }
    if (const std::size_t idle = w->lock.idle_locks(); idle > idle_bound) {
      return fmt::format("{} idle entries kept, above the bound of {}", idle, idle_bound);
    }
    return std::nullopt;
  };
  return run;
}

// Whether the model finds a deadlock for the same requests (nesting can
// deadlock without a conflict; the lock must match the model, not beat it).
bool model_predicts_deadlock(const impl::Scheme& scheme, const LockProgram& program) {
  if (!program.has_nesting()) return false;  // one request at a time: deadlock-free by the theorem
  Scenario scenario;
  scenario.name = program.name;
  for (const auto& t : program.threads) {
    ScenarioTask task;
    for (const auto& c : t.calls) {
      ScenarioRequest& r = task.emplace_back(c.operation);
      r.acquire = c.style == WaitStyle::kTry ? AcquireStyle::kTry : AcquireStyle::kBlocking;
      const bool withdraws = c.style == WaitStyle::kTimed || takes_a_stop_token(c.style) ||
                             c.style == WaitStyle::kAsyncCancelled;
      r.withdraw = withdraws ? WithdrawStyle::kWhileWaiting : WithdrawStyle::kNever;
      r.release = c.after == AfterGrant::kHoldToEnd ? ReleaseStyle::kAtEnd : ReleaseStyle::kBeforeNext;
    }
    scenario.tasks.push_back(std::move(task));
  }
  ExploreOptions options;
  options.check_safety = false;
  options.count_naive = false;
  options.shortest_counterexample = false;
  const SchemePlanner planner(scheme);
  return explore(planner, scenario, options).verdict == Verdict::kDeadlock;
}

std::uint64_t case_seed(std::uint64_t seed, const LockProgram& program, const LockSetting& setting) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a over the program's name and the setting
  for (const char ch : program.name) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ULL;
  h ^= (setting.shards << 8) ^ (setting.max_idle << 16) ^ (static_cast<std::uint64_t>(setting.gates) << 24);
  return derive_seed(seed, h);
}

void record_failure(CaseResult& result, const runtime::RunResult& run) {
  result.failure = fmt::format("{}: {}", runtime::outcome_name(run.outcome), run.detail);
  result.trace = runtime::format_trace(run);
  result.schedule = runtime::format_schedule(run.schedule);
}

// Folds one search's outcome into the case; true when the case is decided.
bool fold(CaseResult& result, const runtime::ExploreResult& explored) {
  if (explored.outcome == runtime::ExploreOutcome::kAllPassed ||
      explored.outcome == runtime::ExploreOutcome::kRunLimitHit) {
    return false;
  }
  const runtime::RunResult& run = *explored.first_bad_run;
  record_failure(result, run);
  if (explored.outcome == runtime::ExploreOutcome::kInconclusive) {
    result.verdict = CaseVerdict::kInconclusive;
  } else if (run.outcome == runtime::RunOutcome::kDeadlock && result.model_predicts_deadlock) {
    result.verdict = CaseVerdict::kExpectedDeadlock;
  } else {
    result.verdict = CaseVerdict::kFail;
  }
  return true;
}

runtime::RunOptions run_options(const CheckLockOptions& options) {
  return {.max_steps = options.max_steps,
          .allocation_failures = options.allocation_failures == AllocationFailures::kOnePerRun ? 1U : 0U};
}

}  // namespace

std::string_view to_string(CaseVerdict verdict) noexcept {
  switch (verdict) {
    case CaseVerdict::kPass: return "pass";
    case CaseVerdict::kExpectedDeadlock: return "deadlock, as the model predicts";
    case CaseVerdict::kFail: return "FAIL";
    case CaseVerdict::kInconclusive: return "inconclusive";
  }
  return "?";
}

CaseResult check_case(const impl::Scheme& scheme, const LockProgram& program, const LockSetting& setting,
                      const CheckLockOptions& options) {
  CaseResult result;
  result.program = program.name;
  result.text = describe(program);
  result.setting = setting;
  result.model_predicts_deadlock = model_predicts_deadlock(scheme, program);
  const auto make = [&] { return make_program(scheme, program, setting, options.allocation_failures); };

  runtime::IterativeDfsStrategy bounded(options.preemptions);
  const auto exhaustive = runtime::explore(make, bounded, {.run = run_options(options), .max_runs = options.max_runs, .on_run = {}});
  result.bounded_runs = exhaustive.runs;
  result.bounded_complete = exhaustive.outcome == runtime::ExploreOutcome::kAllPassed;
  if (result.bounded_complete) {
    result.complete_to_bound = options.preemptions;
  } else if (bounded.bound() > 0) {
    result.complete_to_bound = bounded.bound() - 1;
  }
  if (fold(result, exhaustive)) return result;

  runtime::PctStrategy pct(case_seed(options.seed, program, setting), options.pct_depth, 200);
  const auto sampled = runtime::explore(make, pct, {.run = run_options(options), .max_runs = options.pct_runs, .on_run = {}});
  result.pct_runs = sampled.runs;
  if (fold(result, sampled)) return result;
  if (!result.complete_to_bound) {
    result.verdict = CaseVerdict::kInconclusive;
    result.failure = fmt::format("the search without preemptions stopped at its limit of {} runs", options.max_runs);
  }
  return result;
}

CaseResult replay_case(const impl::Scheme& scheme, const LockProgram& program, const LockSetting& setting,
                       const std::string& schedule, const CheckLockOptions& options) {
  CaseResult result;
  result.program = program.name;
  result.text = describe(program);
  result.setting = setting;
  result.model_predicts_deadlock = model_predicts_deadlock(scheme, program);
  const runtime::ParsedSchedule parsed = runtime::parse_schedule(schedule);
  if (!parsed.error.empty()) {
    throw model::InputError(model::InputProblem::kBadParameter, "bad --schedule: " + parsed.error);
  }
  runtime::ReplayStrategy replay(parsed.choices);
  replay.begin_run(0);
  const runtime::RunResult run =
      runtime::run_program(make_program(scheme, program, setting, options.allocation_failures), replay,
                           run_options(options));
  result.bounded_runs = 1;
  if (run.outcome == runtime::RunOutcome::kFinished) return result;
  record_failure(result, run);
  result.verdict = run.outcome == runtime::RunOutcome::kStepBoundHit ? CaseVerdict::kInconclusive
                   : run.outcome == runtime::RunOutcome::kDeadlock && result.model_predicts_deadlock
                       ? CaseVerdict::kExpectedDeadlock
                       : CaseVerdict::kFail;
  return result;
}

}  // namespace pathlock::sim::lockcheck
