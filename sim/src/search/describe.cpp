#include "describe.hpp"

#include <fmt/format.h>

#include "../dot.hpp"
#include "pathlock/model/conflict.hpp"

namespace pathlock::sim::search {

namespace {

std::string_view outcome_text(StepMachine::StepOutcome o) {
  switch (o) {
    case StepMachine::StepOutcome::kGranted: return "granted";
    case StepMachine::StepOutcome::kQueued: return "queued";
    case StepMachine::StepOutcome::kRefused: return "refused";
    case StepMachine::StepOutcome::kWithdrawn: return "withdrawn";
    case StepMachine::StepOutcome::kReleased: return "released";
  }
  return "?";
}

std::string witness_text(const model::Request& a, const model::Request& b) {
  const auto w = model::conflict_witness(a, b);
  if (!w) return "?";
  const auto access = [](model::Access x) { return x == model::Access::kWrite ? "writes" : "reads"; };
  return fmt::format("one {} {}, the other {} {}", access(w->first_access), w->first.str(), access(w->second_access),
                     w->second.str());
}

}  // namespace

std::string step_text(const StepMachine& m, const StepMachine::State& before, std::uint32_t t,
                      const StepMachine::Effect& e) {
  const auto a = m.next_action(before, t);
  std::string out = fmt::format("{} {} {} for {}: {}", m.task_label(t), to_string(a.kind), m.action_text(a),
                                m.operation(t, a.request).to_string(), outcome_text(e.outcome));
  for (const auto g : e.granted) out += fmt::format(", grants {}", m.task_label(g));
  for (const auto& c : e.entered) {
    out += fmt::format("; {} holds {}", m.task_label(c.task), m.operation(c.task, c.request).to_string());
  }
  return out;
}

void describe_failure(const StepMachine& m, const StepMachine::State& s, Verdict kind,
                      const StepMachine::Effect* last, Counterexample& cx) {
  cx.kind = kind;
  if (kind == Verdict::kBrokenInvariant) {
    cx.summary = fmt::format("a lock queue broke its invariant: {}", last->broken_invariant.value_or("?"));
    return;
  }
  if (kind == Verdict::kUnfairOvertake) {
    const auto o = m.unfair_overtake(*last);
    const auto& scheme = m.scheme();
    cx.summary = fmt::format(
        "unfair overtake on {}: {} {} was granted {}({}) while {} {}, queued there earlier for {}({}), still "
        "waits; the modes are incompatible. That is overtake {} of this wait; the scheme promises {}.",
        m.lock_name(o->lock), m.task_label(o->by), m.operation(o->by, o->by_request).to_string(),
        scheme.mode_name(o->by_mode), m.lock_name(o->lock), m.task_label(o->waiter),
        m.operation(o->waiter, o->waiter_request).to_string(), scheme.mode_name(o->waiter_mode),
        m.lock_name(o->lock), o->count, scheme.fairness_text());
    return;
  }
  if (kind == Verdict::kSafetyViolation) {
    const auto v = m.violation(s, *last);
    const auto& a = m.operation(v->first, v->first_request);
    const auto& b = m.operation(v->second, v->second_request);
    cx.summary = fmt::format(
        "{} {} and {} {} hold their whole plans at once, but the requests conflict: {}.\n  {} plan: {}\n  {} plan: {}",
        m.task_label(v->first), a.to_string(), m.task_label(v->second), b.to_string(),
        witness_text(a.request(), b.request()), m.task_label(v->first), m.plan_text(v->first, v->first_request),
        m.task_label(v->second), m.plan_text(v->second, v->second_request));
    return;
  }
  const auto cycle = m.wait_cycle(s);
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < cycle.size(); ++i) {
    const auto t = cycle[i];
    const auto next = cycle[(i + 1) % cycle.size()];
    const auto a = m.next_action(s, t);
    const std::string request = m.operation(t, a.request).to_string();
    cx.cycle.push_back(fmt::format("{} {} waits for {}, held or queued ahead by {}", m.task_label(t), request,
                                   m.action_text(a), m.task_label(next)));
    labels.push_back(fmt::format("{} {}\\nwaits for {}", m.task_label(t), request, m.action_text(a)));
    cx.cycle_nodes.push_back({fmt::format("{} {}", m.task_label(t), request), m.action_text(a)});
  }
  cx.dot = cycle_dot(labels);
  cx.summary = cycle.size() == 1
                   ? fmt::format("deadlock: {} waits for a lock it holds itself", m.task_label(cycle.front()))
                   : fmt::format("deadlock: a wait-for cycle of {} tasks", cycle.size());
}

}  // namespace pathlock::sim::search
