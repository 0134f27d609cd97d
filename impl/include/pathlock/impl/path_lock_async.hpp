#pragma once
// BasicPathLock's asynchronous acquire (path_lock.hpp: ASYNC). An
// acquisition takes its steps on the calling thread like a try_acquire;
// only when a step must wait does it become an AsyncOp on the heap (the
// request copied, the handler boxed) and queue that op's waiter, then
// return. The grant marks the waiter granted under the shard lock, as for a
// thread; the granting thread, once out of the shard lock, resumes the op
// instead of waking a thread: it counts the lock held and takes the next
// steps, queueing again or completing. No thread waits for an op.
//
// One op's life, under op.mu (lock order: op.mu, then a shard lock):
//
//   kRunning --queue a step--> kQueued --grant + resume--> kRunning
//   kRunning --last step granted, or a cancel seen--> kCompleted (handler)
//   kQueued  --cancel, not yet granted--> withdrawn, handler on the canceller
//
//   cancel_requested  =>  the handler gets cancel_reason, holding nothing
//   phase == kQueued  <=>  the op's waiter is queued on `node` (or granted
//                          there, its resume pending on the granting thread)
//
// Part of the template's definitions: include path_lock_definitions.hpp.

#include <cassert>
#include <exception>
#include <mutex>
#include <stdexcept>

#include "pathlock/impl/path_lock_acquire.hpp"
#include "pathlock/impl/path_lock_memo.hpp"
#include "pathlock/impl/path_lock_table.hpp"
#include "pathlock/impl/path_lock_waiter.hpp"
#include "pathlock/impl/plan.hpp"
#include "pathlock/path_lock.hpp"

namespace pathlock {

template <typename P>
struct BasicPathLock<P>::AsyncOp {
  enum class Phase : std::uint8_t { kRunning, kQueued, kCompleted };

  AsyncOp(BasicPathLock& owner, const model::Request& r) : lock(&owner), request(r) {
    impl::plan_into(owner.scheme_, request, steps);  // the same plan, viewing the op's own request
    waiter.async = this;
    waiter.request = &request;
    refs.store(2, std::memory_order_relaxed);  // the handle's and the running acquisition's
  }

  BasicPathLock* const lock;
  const model::Request request;
  impl::StepBuffer steps;
  Guard guard;  // the locks held so far
  std::unique_ptr<AsyncCompletion> completion;
  Waiter waiter;  // queued on `node` while kQueued
  AsyncOp* next_resume = nullptr;  // the thread-local resume queue
  Atomic<int> refs;
  typename P::Mutex mu;
  // protected by mu:
  Phase phase = Phase::kRunning;
  std::size_t next_step = 0;
  Node* node = nullptr;
  bool cancel_requested = false;
  AcquireStatus cancel_reason = AcquireStatus::kCancelled;
  // Completed while another handler ran on the completing thread: its
  // handler runs from the resume queue, after that one.
  bool deliver_later = false;
};

template <typename P>
void BasicPathLock<P>::defer_resume(AsyncOp* op) noexcept {
  auto& q = impl::ResumeQueue<AsyncOp>::mine();
  op->next_resume = nullptr;
  if (q.tail == nullptr) {
    q.head = op;
  } else {
    q.tail->next_resume = op;
  }
  q.tail = op;
}

template <typename P>
void BasicPathLock<P>::run_deferred_resumes() noexcept {
  auto& q = impl::ResumeQueue<AsyncOp>::mine();
  if (q.running) return;  // the loop below, further up this stack, takes them
  q.running = true;
  while (q.head != nullptr) {
    AsyncOp* op = q.head;
    q.head = op->next_resume;
    if (q.head == nullptr) q.tail = nullptr;
    op->lock->resume_async(op);
  }
  q.running = false;
}

template <typename P>
typename BasicPathLock<P>::AsyncStart BasicPathLock<P>::start_async(const model::Request& request, Guard& granted,
                                                                    BoxHandler box, void* handler,
                                                                    AsyncAcquisition& handle) {
  // The guard is the caller's from the start: granted at once, nothing moves.
  assert(granted.count_ == 0 && granted.status_ != AcquireStatus::kGranted);
  Guard& guard = granted;
  guard.lock_ = this;
  guard.id_ = P::next_task_id();
  std::size_t next = 0;
  bool all_granted = false;
  {
    impl::ScratchSteps scratch;
    try {
      // (The fast prefix throws nothing today; inside, a change that made
      // it allocate could not leave its holds behind.)
      const FastStart start = start_fast(request, scratch, guard);
      const std::size_t fast = start.held;
      const impl::StepBuffer* plan = fast < start.planned ? &plan_of(request, start, scratch) : nullptr;
      for (next = fast; next < start.planned; ++next) {
        Node* node = nullptr;
        if (take_step((*plan)[next], guard, node, [] { return static_cast<Waiter*>(nullptr); },
                      next == fast ? GateRetry::kSkip : GateRetry::kTry) != StepResult::kGranted) {
          break;
        }
      }
      all_granted = next == start.planned;
    } catch (...) {
      guard.release();
      throw;
    }
    // Granted at once. Inside a handler (resumes held back), the handler
    // is deferred like a resume, so that handlers never nest.
    if (all_granted && !impl::ResumeQueue<AsyncOp>::mine().in_handler) return AsyncStart::kGrantedInline;
  }
  // Step `next` must wait: from here the acquisition is an op, which tries
  // the step again and queues if it still must wait.
  std::unique_ptr<AsyncOp> op;
  try {
    op = std::make_unique<AsyncOp>(*this, request);
    op->completion = box(handler);  // moves the handler only once its box exists
  } catch (...) {
    guard.release();
    throw;
  }
  op->guard = std::move(guard);
  op->next_step = next;
  handle.op_ = op.get();
  if (all_granted) {
    defer_resume(op.release());  // kRunning: resume_async runs it to completion
  } else {
    run_async(op.release());
  }
  return AsyncStart::kHandedOff;
}

template <typename P>
void BasicPathLock<P>::cancel_before_start(Guard& guard) noexcept {
  assert(guard.count_ == 0 && guard.status_ != AcquireStatus::kGranted);
  guard.lock_ = this;
  guard.id_ = P::next_task_id();
  guard.status_ = AcquireStatus::kCancelled;
}

template <typename P>
void BasicPathLock<P>::run_async(AsyncOp* op) noexcept {
  const HoldResumes hold_resumes;  // destroyed last: after op.mu is released
  try {
    for (;;) {
      std::unique_lock<typename P::Mutex> hold(op->mu);
      if (op->cancel_requested) {
        hold.unlock();
        finish_async(op, op->cancel_reason);
        return;
      }
      if (op->next_step == op->steps.size()) {
        op->phase = AsyncOp::Phase::kCompleted;
        hold.unlock();
        finish_async(op, AcquireStatus::kGranted);
        return;
      }
      Node* node = nullptr;
      const StepResult result = take_step(op->steps[op->next_step], op->guard, node, [op]() -> Waiter* {
        op->waiter.state.store(Waiter::State::kWaiting, std::memory_order_relaxed);
        op->waiter.next_to_wake = nullptr;
        return &op->waiter;
      });
      if (result == StepResult::kQueued) {
        op->node = node;
        op->phase = AsyncOp::Phase::kQueued;
        return;  // once op.mu is released, a grant may resume the op on another thread
      }
      ++op->next_step;
    }
  } catch (...) {
    // Out of memory taking a step: nothing of it is held or queued. A
    // cancel that came first keeps its word: the handler gets its reason.
    AcquireStatus status = AcquireStatus::kFailed;
    {
      std::lock_guard<typename P::Mutex> hold(op->mu);
      if (op->cancel_requested) status = op->cancel_reason;
    }
    finish_async(op, status);
  }
}

template <typename P>
void BasicPathLock<P>::resume_async(AsyncOp* op) noexcept {
  if (op->deliver_later) {  // completed: only its handler is left to run
    deliver_async(op);
    return;
  }
  {
    std::lock_guard<typename P::Mutex> hold(op->mu);
    // kQueued: its waiter was granted. kRunning: an acquisition granted at
    // once inside a handler, deferred until that handler returned.
    if (op->phase == AsyncOp::Phase::kQueued) {
      op->guard.push(op->node, op->steps[op->next_step].mode);  // within the room reserved at the start
      ++op->next_step;
      op->node = nullptr;
      op->phase = AsyncOp::Phase::kRunning;
    }
  }
  run_async(op);
}

template <typename P>
void BasicPathLock<P>::finish_async(AsyncOp* op, AcquireStatus status) noexcept {
  if (status != AcquireStatus::kGranted) {
    op->guard.release();
    op->guard.status_ = status;
  }
  {
    std::lock_guard<typename P::Mutex> hold(op->mu);
    op->phase = AsyncOp::Phase::kCompleted;
  }
  if (impl::ResumeQueue<AsyncOp>::mine().in_handler) {
    op->deliver_later = true;
    defer_resume(op);  // a scope up this stack runs the queue once that handler returns
    return;
  }
  deliver_async(op);
}

template <typename P>
void BasicPathLock<P>::deliver_async(AsyncOp* op) noexcept {
  const bool owner = enter_handler();
  op->completion->complete(std::move(op->guard));
  leave_handler(owner);
  unref_async(op);
}

template <typename P>
CancelOutcome BasicPathLock<P>::cancel_async(AsyncOp* op, AcquireStatus reason) {
  Waiter* to_wake = nullptr;
  {
    std::lock_guard<typename P::Mutex> hold(op->mu);
    if (op->cancel_requested) return CancelOutcome::kCancelled;
    if (op->phase == AsyncOp::Phase::kCompleted) return CancelOutcome::kAlreadyCompleted;
    op->cancel_requested = true;
    op->cancel_reason = reason;
    // Running: the thread taking its steps sees the request before it
    // queues or completes.
    if (op->phase == AsyncOp::Phase::kRunning) return CancelOutcome::kCancelled;
    Node* node = op->node;
    SpinLockHolder shard_hold(node->shard->mu);
    // Granted already: its resume, pending on the granting thread, sees the
    // request and rolls back.
    if (op->waiter.granted()) return CancelOutcome::kCancelled;
    const impl::TaskId id = op->guard.id_;
    const auto withdrawn = node->queue.cancel_granting(scheme_, id);
    std::erase_if(node->sleepers, [&](const auto& sl) { return sl.first == id; });
    impl::observe<P>(impl::LockEvent::kWithdrawn, node->key, id, op->steps[op->next_step].mode);
    settle(node, node->queue.last_granted(withdrawn.count), to_wake);
    op->phase = AsyncOp::Phase::kRunning;  // ours alone now: no grant can come
    op->node = nullptr;
  }
  wake_all(to_wake);
  finish_async(op, reason);
  return CancelOutcome::kCancelled;
}

template <typename P>
void BasicPathLock<P>::unref_async(AsyncOp* op) noexcept {
  if (op->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete op;
}

template <typename P>
CancelOutcome BasicPathLock<P>::AsyncAcquisition::cancel(AcquireStatus reason) {
  if (reason != AcquireStatus::kCancelled && reason != AcquireStatus::kTimedOut) {
    throw std::invalid_argument("AsyncAcquisition::cancel: the reason must be kCancelled or kTimedOut, not " +
                                std::string(to_string(reason)));
  }
  if (op_ == nullptr) return CancelOutcome::kAlreadyCompleted;
  return op_->lock->cancel_async(op_, reason);
}

}  // namespace pathlock
