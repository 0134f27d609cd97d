#include "metrics.hpp"

#include <algorithm>
#include <cmath>

#include "pathlock/sim/core/step_machine.hpp"

namespace pathlock::sim {

std::string_view to_string(RunOutcome outcome) noexcept {
  switch (outcome) {
    case RunOutcome::kCompleted: return "completed";
    case RunOutcome::kSafetyViolation: return "safety violation";
    case RunOutcome::kDeadlock: return "deadlock";
    case RunOutcome::kBrokenInvariant: return "broken lock invariant";
    case RunOutcome::kUnfairOvertake: return "unfair overtake";
  }
  return "?";
}

namespace {
// Sorts `sample` in place.
Percentiles percentiles_in_place(std::vector<double>& sample) {
  if (sample.empty()) return {};
  std::sort(sample.begin(), sample.end());
  const auto rank = [&](double q) {
    auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sample.size())));
    return sample[std::min(sample.size() - 1, k == 0 ? 0 : k - 1)];
  };
  return {rank(0.50), rank(0.99), sample.back()};
}
}  // namespace

Percentiles percentiles(std::vector<double> sample) { return percentiles_in_place(sample); }

namespace des {

void Metrics::reset(std::size_t tasks, RunResult& result) {
  result.metrics = RunMetrics{};
  result.observed = {};
  bypassed_.assign(tasks, 0);
  latencies_.clear();
  waits_.clear();
  active_locks_ = 0;
}

void Metrics::granted_from_queue(RunResult& r, std::span<const impl::LockEntry> before,
                                 std::span<const impl::LockEntry> granted, std::span<const impl::LockEntry> after) {
  for (const auto& g : granted) {
    for (const auto& w : before) {
      if (w.task == g.task) break;
      if (std::any_of(after.begin(), after.end(), [&](const impl::LockEntry& k) { return k.task == w.task; })) {
        bypass(r, task_of(w.task));
      }
    }
  }
}

void Metrics::finish(RunResult& r, double makespan) {
  auto& m = r.metrics;
  m.makespan = makespan;
  m.throughput = m.makespan > 0 ? static_cast<double>(m.tasks_completed) / m.makespan : 0;
  m.latency = percentiles_in_place(latencies_);
  m.wait = percentiles_in_place(waits_);
}

}  // namespace des
}  // namespace pathlock::sim
