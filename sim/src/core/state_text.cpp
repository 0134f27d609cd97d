// A StepMachine state as bytes (for the explorer's visited sets, with
// optional symmetry over tasks with identical programs), and as text.

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "pathlock/sim/core/step_machine.hpp"

namespace pathlock::sim {

std::string StepMachine::key(const State& s, bool symmetry, std::vector<std::uint8_t>* perm) const {
  KeyScratch scratch;
  std::string out;
  key(s, symmetry, out, scratch);
  if (perm != nullptr) *perm = std::move(scratch.pos);
  return out;
}

void StepMachine::key(const State& s, bool symmetry, std::string& out, KeyScratch& w) const {
  const std::size_t n = s.tasks.size();
  w.order.resize(n);
  std::iota(w.order.begin(), w.order.end(), 0U);
  if (symmetry) {
    // Each task's signature (symmetry class, segment, step, phase, abandoned
    // requests, where it waits: lock and queue position), packed into two
    // words that compare as the tuple would.
    w.signature.assign(n, {0, 0xFFFFFFFF00000000ULL});
    for (std::uint32_t l = 0; l < s.locks.size(); ++l) {
      const auto waiters = s.locks[l].waiters();
      for (std::uint32_t i = 0; i < waiters.size(); ++i) {
        w.signature[task_of(waiters[i].task)].second = std::uint64_t{l} << 32U | i;
      }
    }
    for (std::uint32_t t = 0; t < n; ++t) {
      const Task& k = s.tasks[t];
      w.signature[t].first = std::uint64_t{programs_[t].symmetry_class} << 56U | std::uint64_t{k.segment} << 48U |
                             std::uint64_t{k.step} << 40U | std::uint64_t{static_cast<std::uint8_t>(k.phase)} << 32U |
                             k.abandoned;
    }
    // Insertion sort: stable, allocation-free, and a handful of tasks.
    for (std::size_t i = 1; i < n; ++i) {
      const std::uint32_t t = w.order[i];
      std::size_t j = i;
      for (; j > 0 && w.signature[t] < w.signature[w.order[j - 1]]; --j) w.order[j] = w.order[j - 1];
      w.order[j] = t;
    }
  }
  w.pos.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) w.pos[w.order[i]] = static_cast<std::uint8_t>(i);
  out.clear();
  out.reserve(n * 7 + s.locks.size() * 2);
  for (const std::uint32_t t : w.order) {
    const Task& k = s.tasks[t];
    const char bytes[7] = {static_cast<char>(k.segment),
                           static_cast<char>(k.step),
                           static_cast<char>(k.phase),
                           static_cast<char>(k.abandoned & 0xFFU),
                           static_cast<char>((k.abandoned >> 8U) & 0xFFU),
                           static_cast<char>((k.abandoned >> 16U) & 0xFFU),
                           static_cast<char>((k.abandoned >> 24U) & 0xFFU)};
    out.append(bytes, sizeof bytes);
  }
  // Holders follow from the task states; only the queues' order is extra.
  // The machine's own arrival record (fairness) is normalised, not copied:
  // its stamps grow along a path, so two paths to one state differ in them,
  // but the future judgement reads only each lock's waiters in stamp order
  // (every later arrival gets a larger stamp than all of them) and, under a
  // bounded-bypass promise, how often each was overtaken. So the key has,
  // per lock, the recorded waiters in stamp order (with their overtakes if
  // the bound makes them matter): equal keys judge every future grant alike.
  // With a FIFO queue this order is the queue's, so the state count does not
  // grow; kFifo never keeps an overtaken state and kNone never judges, so the
  // counts stay out of their keys.
  const bool counts_matter = scheme_.fairness() == impl::Fairness::kBoundedBypass;
  for (std::uint32_t l = 0; l < s.locks.size(); ++l) {
    const auto waiters = s.locks[l].waiters();
    for (const auto& entry : waiters) out.push_back(static_cast<char>(w.pos[task_of(entry.task)]));
    out.push_back(static_cast<char>(0xFF));
    if (s.arrivals.empty()) continue;
    for (const Arrival& a : s.arrivals) {
      if (a.lock != l) continue;
      out.push_back(static_cast<char>(w.pos[task_of(a.request)]));
      if (counts_matter) out.push_back(static_cast<char>(std::min(a.overtakes, scheme_.bypass_bound() + 1)));
    }
    out.push_back(static_cast<char>(0xFE));
  }
}

std::string StepMachine::task_label(std::uint32_t t) const { return fmt::format("T{}", t); }

std::string StepMachine::lock_name(std::uint32_t lock) const { return lock_paths_[lock].str(); }

std::string StepMachine::request_text(const State& s, std::uint32_t t) const {
  const auto& segments = programs_[t].segments;
  const std::size_t seg = std::min<std::size_t>(s.tasks[t].segment, segments.size() - 1);
  return operation(t, segments[seg].request).to_string();
}

std::string StepMachine::action_text(const Action& a) const {
  return fmt::format("{}({})", scheme().mode_name(a.mode), lock_paths_[a.lock].str());
}

std::string StepMachine::plan_text(std::uint32_t t, std::size_t request) const {
  std::string out;
  for (const auto& step : task_request(t, request).plan->steps) {
    if (!out.empty()) out += ' ';
    out += action_text({StepKind::kAcquire, step.lock, step.mode, 0});
  }
  return out;
}

std::vector<std::pair<std::uint32_t, impl::ModeId>> StepMachine::plan_steps(std::uint32_t t,
                                                                          std::size_t request) const {
  std::vector<std::pair<std::uint32_t, impl::ModeId>> out;
  for (const auto& step : task_request(t, request).plan->steps) out.emplace_back(step.lock, step.mode);
  return out;
}

}  // namespace pathlock::sim
