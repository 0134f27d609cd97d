#pragma once
// BasicPathLock's report of unsafe nesting (path_lock.hpp: NESTING): a
// blocking acquire, with no deadline and no stop token, by a thread that
// holds a guard of the same lock. Only while options_.unsafe_nesting is not
// kIgnore (the default in debug builds). Part of the template's
// definitions: include path_lock_definitions.hpp, not this.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include "pathlock/path_lock.hpp"

namespace pathlock {

template <typename P>
void BasicPathLock<P>::check_nesting(const model::Request& request, WaitPolicy policy, const StopToken& stop) {
  if (policy != WaitPolicy::kForever || stop.stop_possible()) return;  // it can give up: safe
  std::string held;
  {
    std::lock_guard<std::mutex> hold(nesting_mu_);
    const auto me = std::this_thread::get_id();
    const auto it = std::find_if(held_requests_.begin(), held_requests_.end(),
                                 [&](const HeldRequest& h) { return h.thread == me; });
    if (it == held_requests_.end()) return;
    held = it->text;
  }
  const std::string message =
      "pathlock: unsafe nested acquisition: this thread holds " + held + " and now blocks for " + request.to_string() +
      " with no deadline and no stop token. It can deadlock even though the two do not conflict: a writer that "
      "queues between them waits for the first, and the second queues behind the writer. Take every path in one "
      "request, or give the second acquire a deadline or a stop token (PathLockOptions::unsafe_nesting).";
  if (options_.unsafe_nesting == UnsafeNesting::kThrow) throw std::logic_error(message);
  std::fprintf(stderr, "%s\n", message.c_str());
  std::abort();
}

template <typename P>
void BasicPathLock<P>::record_held(impl::TaskId task, const model::Request& request) {
  HeldRequest record{std::this_thread::get_id(), task, request.to_string()};
  std::lock_guard<std::mutex> hold(nesting_mu_);
  held_requests_.push_back(std::move(record));
}

template <typename P>
void BasicPathLock<P>::forget_held(impl::TaskId task) noexcept {
  std::lock_guard<std::mutex> hold(nesting_mu_);
  const auto it = std::find_if(held_requests_.begin(), held_requests_.end(),
                               [&](const HeldRequest& h) { return h.task == task; });
  if (it != held_requests_.end()) held_requests_.erase(it);  // moves elements back: no allocation
}

}  // namespace pathlock
