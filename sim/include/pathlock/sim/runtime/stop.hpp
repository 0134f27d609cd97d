#pragma once
// Stop tokens under the runtime: request_stop is a scheduling point (taken
// by a logical thread; a harness fires one "from outside" by giving a thread
// the job, so that the strategy picks the moment), callbacks run on the
// requesting thread, and a callback's destructor that finds it running on
// another thread waits for it through the runtime, never by blocking the OS
// thread.

#include <cstdint>
#include <memory>
#include "pathlock/sim/runtime/where.hpp"
#include <utility>

namespace pathlock::sim::runtime {

namespace detail {

struct StopCallbackNode {
  void (*invoke)(void* owner) = nullptr;
  void* owner = nullptr;
  StopCallbackNode* next = nullptr;
  StopCallbackNode* prev = nullptr;
  std::uint32_t running = 0;       // 1 while its callback runs
  std::uint32_t running_thread = 0;
  // While its callback runs: set by the callback's destructor when the
  // callback destroys it (on the running thread, as a coroutine resumed by
  // the callback may), so the requester no longer touches the node.
  bool* destroyed_while_running = nullptr;
  bool registered = false;
};

struct StopState {
  bool requested = false;
  StopCallbackNode* head = nullptr;
};

bool request_stop(StopState& state, const Where& where);
bool stop_requested(const StopState& state, const Where& where);
// Registers `node`, or runs it at once when stop was already requested.
void register_callback(StopState& state, StopCallbackNode& node, const Where& where);
// Unregisters `node`, waiting for its callback when another thread runs it.
void unregister_callback(StopState& state, StopCallbackNode& node, const Where& where);

}  // namespace detail

class StopToken {
 public:
  StopToken() = default;
  bool stop_requested(Where where = Where::current()) const noexcept {
    return state_ != nullptr && detail::stop_requested(*state_, where);
  }
  bool stop_possible() const noexcept { return state_ != nullptr; }

 private:
  friend class StopSource;
  template <typename F>
  friend class StopCallback;
  explicit StopToken(std::shared_ptr<detail::StopState> state) : state_(std::move(state)) {}
  std::shared_ptr<detail::StopState> state_;
};

class StopSource {
 public:
  StopSource() : state_(std::make_shared<detail::StopState>()) {}
  StopToken get_token() const noexcept { return StopToken(state_); }
  bool request_stop(Where where = Where::current()) {
    return detail::request_stop(*state_, where);
  }

 private:
  std::shared_ptr<detail::StopState> state_;
};

template <typename F>
class StopCallback {
 public:
  template <typename G>
  StopCallback(StopToken token, G&& callback, Where where = Where::current())
      : state_(std::move(token.state_)), callback_(std::forward<G>(callback)) {
    node_.owner = this;
    node_.invoke = [](void* owner) { static_cast<StopCallback*>(owner)->callback_(); };
    if (state_ != nullptr) detail::register_callback(*state_, node_, where);
  }
  ~StopCallback() {
    if (state_ != nullptr) detail::unregister_callback(*state_, node_, Where::current());
  }
  StopCallback(const StopCallback&) = delete;
  StopCallback& operator=(const StopCallback&) = delete;

 private:
  detail::StopCallbackNode node_;
  std::shared_ptr<detail::StopState> state_;
  F callback_;
};

template <typename F>
StopCallback(StopToken, F) -> StopCallback<F>;

}  // namespace pathlock::sim::runtime
