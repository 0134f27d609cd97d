#pragma once
// BasicPathLock::describe_waits(): what every acquisition is waiting for, as
// text, for a watchdog, a hung test or a debugger. Read-only. Part of the
// template's definitions: include path_lock_definitions.hpp, not this.
//
//   pathlock wait snapshot (scheme path-rwa-joined): 4 acquisitions, 2 waiting
//   (best effort: each shard read under its own lock in turn, not one atomic view)
//   gates: 3 open; fast holders by entry:
//     /: gate open; fast holders WA 2
//   task 65537 WAITS for /b in W, request W{/b}
//     holds: nothing in the table (a fast hold through a gate has no task)
//     blocked by: task 131072 holding /b in W, request W{/b}
//   task 131073 WAITS for /a in W, request W{/a}
//     holds: nothing in the table (a fast hold through a gate has no task)
//     blocked by: task 65536 holding /a in W, request W{/a}
//   task 65536 holds W(/a), request W{/a}
//   task 131072 holds W(/b), request W{/b}
//
// (two threads in a nested acquire cycle: each holds one write and asks for
// the other's path; task ids are per acquisition, not per thread).
//
// A best-effort snapshot: each shard is read under its own lock, one after
// another, never all at once, so an acquisition that moved while the shards
// were read can show a hold or a wait it no longer has. A hung program does
// not move, which is when this is read.
//
// What each part comes from:
//   a waiting acquisition   its sleeper record (one per waiting acquisition,
//                           on the entry it waits for); its request is the
//                           one its thread passed to acquire, alive while the
//                           record exists (the record is removed under the
//                           same shard lock before the acquire returns)
//   blocked by              LockQueue::blockers: the holders whose mode is
//                           incompatible with the wait's, and the waiters
//                           ahead of it with an incompatible mode
//   holds                   every queue's holders, by task id; fast holds
//                           are counted on the gates' lines, not by task
//   a granted request       only recorded while PathLockOptions::unsafe_nesting
//                           tracks holders (debug builds by default)
// A sleeper record whose task is not queued on its entry, or a waiter that
// nothing blocks, is a lost grant or wake-up: the text says so.

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pathlock/impl/concat.hpp"
#include "pathlock/impl/lock_queue.hpp"
#include "pathlock/impl/path_lock_gate.hpp"
#include "pathlock/impl/path_lock_table.hpp"
#include "pathlock/impl/path_lock_waiter.hpp"
#include "pathlock/path_lock.hpp"

namespace pathlock {

template <typename P>
std::string BasicPathLock<P>::describe_waits() const {
  enum class Standing { kHolding, kWaitingAhead };
  struct Blocker {
    impl::TaskId task;
    Standing standing;
    impl::ModeId mode;
  };
  struct Wait {
    std::string lock;
    std::optional<impl::ModeId> mode;  // empty: not queued on the entry
    std::vector<Blocker> blockers;
  };
  struct Acquisition {
    std::string request;             // empty: not recorded
    std::vector<std::string> holds;  // "R(/a)"
    std::optional<Wait> wait;
  };
  std::map<impl::TaskId, Acquisition> acquisitions;
  std::vector<impl::TaskId> ids;
  std::string gate_lines;  // entries with fast holders or pseudo holds
  std::size_t open_gates = 0;
  for (std::size_t i = 0; i <= shard_mask_; ++i) {
    Shard& s = shards_[i];
    SpinLockHolder hold(s.mu);
    for (const Node* head : s.buckets) {
      for (const Node* node = head; node != nullptr; node = node->next) {
        const std::uint64_t word = node->gate->word.load(std::memory_order_seq_cst);
        const std::uint32_t admitted = Gates::admitted(word);
        if (admitted != 0) ++open_gates;
        const auto fast = gates_->count(node->gate);  // holders only: a queue at the gate is told apart
        const bool queue = Gates::queue_tail(word) != 0;
        std::string fast_text;
        std::string pseudo_text;
        for (std::uint8_t m = 0; m < scheme_.mode_count(); ++m) {
          const std::string& name = scheme_.mode_name(impl::ModeId{m});
          if (fast[m] != 0) fast_text += impl::concat(" ", name, " ", fast[m]);
          if ((node->pseudo_held >> m) & 1U) pseudo_text += impl::concat(" ", name, " (task ", m, ")");
        }
        if (!fast_text.empty() || !pseudo_text.empty() || queue) {
          gate_lines += impl::concat("  ", node->key, ": gate ", admitted != 0 ? "open" : "closed", "; fast holders",
                                     fast_text.empty() ? " none" : fast_text);
          if (queue) gate_lines += "; writers queue at the gate for its word (blocking acquires, no task shown)";
          if (!pseudo_text.empty()) gate_lines += "; pseudo holders for them:" + pseudo_text;
          gate_lines += "\n";
        }
        for (const auto& h : node->queue.holders()) {
          if (h.task < kFirstTaskId) continue;  // the gate's pseudo holders: on the gate's line
          acquisitions[h.task].holds.push_back(impl::concat(scheme_.mode_name(h.mode), "(", node->key, ")"));
        }
        for (const auto& [task, waiter] : node->sleepers) {
          Acquisition& a = acquisitions[task];
          if (waiter != nullptr && waiter->request != nullptr) a.request = waiter->request->to_string();
          Wait& w = a.wait.emplace();
          w.lock = node->key;
          for (const auto& q : node->queue.waiters()) {
            if (q.task == task) w.mode = q.mode;
          }
          ids.clear();
          node->queue.blockers(scheme_, task, ids);
          for (const impl::TaskId id : ids) {
            for (const auto& h : node->queue.holders()) {
              if (h.task == id) w.blockers.push_back({id, Standing::kHolding, h.mode});
            }
            for (const auto& q : node->queue.waiters()) {
              if (q.task == id) w.blockers.push_back({id, Standing::kWaitingAhead, q.mode});
            }
          }
        }
      }
    }
  }
  if (options_.unsafe_nesting != UnsafeNesting::kIgnore) {
    std::lock_guard<std::mutex> hold(nesting_mu_);
    for (const HeldRequest& h : held_requests_) acquisitions[h.task].request = h.text;
  }

  std::string gate_line = "gates: ";
  if (gates_->sets.empty()) {
    gate_line += options_.fast_gates ? "none (the scheme has no mode a gate can admit)" : "off (PathLockOptions)";
  } else {
    gate_line += impl::concat(open_gates, " open", gate_lines.empty() ? "; no fast holders" : "; fast holders by entry:");
  }
  if (!gate_lines.empty()) gate_line += "\n" + gate_lines.substr(0, gate_lines.size() - 1);

  const auto request_of = [&](impl::TaskId task) {
    const auto it = acquisitions.find(task);
    return it == acquisitions.end() || it->second.request.empty() ? std::string("request not recorded")
                                                                   : "request " + it->second.request;
  };
  std::size_t waiting = 0;
  for (const auto& [task, a] : acquisitions) waiting += a.wait.has_value() ? 1U : 0U;
  std::string out = impl::concat("pathlock wait snapshot (scheme ", scheme_.name(), "): ", acquisitions.size(),
                           " acquisitions, ", waiting, " waiting\n");
  out += "(best effort: each shard read under its own lock in turn, not one atomic view)\n";
  out += gate_line + "\n";
  for (const Standing pass : {Standing::kWaitingAhead, Standing::kHolding}) {
    for (const auto& [task, a] : acquisitions) {
      if (a.wait.has_value() != (pass == Standing::kWaitingAhead)) continue;
      std::string holds;
      for (const auto& h : a.holds) holds += (holds.empty() ? "" : ", ") + h;
      if (!a.wait) {
        out += impl::concat("task ", task, " holds ", holds.empty() ? "only fast holds, through gates" : holds, ", ",
                      request_of(task), "\n");
        continue;
      }
      const Wait& w = *a.wait;
      const std::string mode = w.mode ? scheme_.mode_name(*w.mode) : std::string("?");
      out += impl::concat("task ", task, " WAITS for ", w.lock, " in ", mode, ", ", request_of(task), "\n");
      constexpr std::string_view kNone = "nothing in the table (a fast hold through a gate has no task)";
      out += impl::concat("  holds: ", holds.empty() ? kNone : std::string_view(holds), "\n");
      if (!w.mode) {
        out += "  not queued on that entry, yet it has a sleeper record there: a lost grant\n";
        continue;
      }
      if (w.blockers.empty()) {
        out += "  blocked by nothing: it should have been granted (a lost grant or wake-up)\n";
        continue;
      }
      for (const Blocker& b : w.blockers) {
        const std::string who = b.task < kFirstTaskId
                                    ? impl::concat("the gate's fast holders (pseudo task ", b.task, ")")
                                    : impl::concat("task ", b.task);
        out += impl::concat("  blocked by: ", who, " ",
                            b.standing == Standing::kHolding ? "holding" : "waiting ahead for", " ", w.lock, " in ",
                            scheme_.mode_name(b.mode), b.task < kFirstTaskId ? "" : ", " + request_of(b.task), "\n");
      }
    }
  }
  return out;
}

}  // namespace pathlock
