#include "pathlock/sim/runtime/stop.hpp"

#include "pathlock/sim/runtime/runtime.hpp"

namespace pathlock::sim::runtime::detail {

namespace {

void point(const char* what, const Where& where) {
  if (Executor* executor = active_executor()) step(*executor, Operation{.what = what, .where = where});
}
void changed() {
  if (Executor* executor = active_executor()) wrote(*executor);
}
std::uint32_t caller() {
  const Executor* executor = active_executor();
  return executor == nullptr ? kNoThread : thread_index(*executor);
}

void unlink(StopState& state, StopCallbackNode& node) {
  if (node.prev != nullptr) node.prev->next = node.next;
  if (node.next != nullptr) node.next->prev = node.prev;
  if (state.head == &node) state.head = node.next;
  node.next = node.prev = nullptr;
  node.registered = false;
}

}  // namespace

bool request_stop(StopState& state, const Where& where) {
  point("request_stop", where);
  if (state.requested) return false;
  state.requested = true;
  changed();
  // The callbacks run here, on the requesting thread, one at a time; each is
  // marked running so that a destructor on another thread waits for it.
  while (StopCallbackNode* node = state.head) {
    unlink(state, *node);
    bool destroyed = false;
    node->running = 1;
    node->running_thread = caller();
    node->destroyed_while_running = &destroyed;
    node->invoke(node->owner);
    if (!destroyed) {
      node->destroyed_while_running = nullptr;
      node->running = 0;  // from here its destructor may run: do not touch it
    }
    changed();
  }
  return true;
}

bool stop_requested(const StopState& state, const Where& where) {
  point("stop_requested", where);
  return state.requested;
}

void register_callback(StopState& state, StopCallbackNode& node, const Where& where) {
  point("register stop callback", where);
  if (state.requested) {
    node.invoke(node.owner);
    return;
  }
  node.next = state.head;
  if (state.head != nullptr) state.head->prev = &node;
  state.head = &node;
  node.registered = true;
}

void unregister_callback(StopState& state, StopCallbackNode& node, const Where& where) {
  point("unregister stop callback", where);
  if (node.registered) {
    unlink(state, node);
    return;
  }
  if (node.running == 1 && node.running_thread == caller()) {
    *node.destroyed_while_running = true;  // by its own callback: the requester leaves the node alone
    return;
  }
  if (node.running == 1 && node.running_thread != caller()) {
    if (Executor* executor = active_executor()) {
      step(*executor, Operation{.what = "unregister stop callback: wait for it", .where = where,
                                .wait_word = &node.running, .wait_value = 0, .object = "running stop callback",
                                .object_declared = where});
    }
  }
}

}  // namespace pathlock::sim::runtime::detail
