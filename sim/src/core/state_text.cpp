// A StepMachine state as bytes (for the explorer's visited sets, with
// optional symmetry over tasks with identical programs), and as text.

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <tuple>

#include "pathlock/sim/core/step_machine.hpp"

namespace pathlock::sim {

std::string StepMachine::key(const State& s, bool symmetry, std::vector<std::uint8_t>* perm) const {
  const std::size_t n = s.tasks.size();
  // Where each task waits: (lock, position in its queue), for the signature.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> waits(n, {0xFFFFFFFFU, 0});
  for (std::uint32_t l = 0; l < s.locks.size(); ++l) {
    const auto w = s.locks[l].waiters();
    for (std::uint32_t i = 0; i < w.size(); ++i) waits[task_of(w[i].task)] = {l, i};
  }
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0U);
  if (symmetry) {
    const auto sig = [&](std::uint32_t t) {
      const Task& k = s.tasks[t];
      return std::make_tuple(programs_[t].symmetry_class, k.segment, k.step, k.phase, k.abandoned, waits[t]);
    };
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return sig(a) < sig(b); });
  }
  std::vector<std::uint8_t> pos(n);
  for (std::uint32_t i = 0; i < n; ++i) pos[order[i]] = static_cast<std::uint8_t>(i);
  std::string out;
  out.reserve(n * 7 + s.locks.size() * 2);
  for (const std::uint32_t t : order) {
    const Task& k = s.tasks[t];
    out.push_back(static_cast<char>(k.segment));
    out.push_back(static_cast<char>(k.step));
    out.push_back(static_cast<char>(k.phase));
    for (int b = 0; b < 32; b += 8) out.push_back(static_cast<char>((k.abandoned >> b) & 0xFFU));
  }
  // Holders follow from the task states; only the queues' order is extra.
  for (const auto& q : s.locks) {
    for (const auto& w : q.waiters()) out.push_back(static_cast<char>(pos[task_of(w.task)]));
    out.push_back(static_cast<char>(0xFF));
  }
  if (perm != nullptr) *perm = std::move(pos);
  return out;
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
