// The oracle admission policy: the most concurrency any scheme could give on
// a schedule, against which a scheme's throughput is measured.

#include <algorithm>
#include <queue>

#include "pathlock/model/conflict.hpp"
#include "pathlock/model/lineage_filter.hpp"
#include "pathlock/sim/oracle.hpp"
#include "pathlock/sim/simulator.hpp"

namespace pathlock::sim {
namespace {

struct OracleEvent {
  double time;
  std::uint64_t seq;
  bool arrival;  // else a completion
  std::uint32_t task;
  friend bool operator>(const OracleEvent& a, const OracleEvent& b) {
    return a.time != b.time ? a.time > b.time : a.seq > b.seq;
  }
};

}  // namespace

RunMetrics simulate_oracle(const Schedule& schedule) { return simulate_oracle(schedule, nullptr); }

RunMetrics simulate_oracle(const Schedule& schedule, OracleTrace* trace) {
  RunMetrics m;
  const std::size_t n = schedule.tasks.size();
  std::vector<model::Request> requests;
  requests.reserve(n);
  for (const auto& t : schedule.tasks) requests.push_back(t.op.request());
  std::vector<model::LineageFilter> filters;
  filters.reserve(n);
  for (const auto& r : requests) filters.emplace_back(r);
  std::vector<double> arrival(n, 0);
  if (trace != nullptr) {
    *trace = OracleTrace{};
    trace->start.assign(n, 0);
    trace->end.assign(n, 0);
    trace->arrival_order.reserve(n);
  }
  std::vector<double> latencies;
  std::vector<double> waits;
  std::vector<std::uint32_t> running;
  std::vector<std::uint32_t> waiting;  // arrival order
  std::priority_queue<OracleEvent, std::vector<OracleEvent>, std::greater<>> events;
  std::uint64_t seq = 0;
  double now = 0;

  std::vector<std::vector<std::uint32_t>> per_client(schedule.clients);
  std::vector<std::size_t> next(schedule.clients, 0);
  const auto next_of_client = [&](std::uint32_t c, double after) {
    if (next[c] < per_client[c].size()) {
      const auto t = per_client[c][next[c]++];
      events.push({after + schedule.tasks[t].gap, seq++, true, t});
    }
  };
  if (n == 0) return m;
  if (schedule.load == LoadMode::kClosed) {
    for (std::uint32_t i = 0; i < n; ++i) per_client[schedule.tasks[i].client].push_back(i);
    for (std::uint32_t c = 0; c < schedule.clients; ++c) next_of_client(c, 0);
  } else {
    events.push({schedule.tasks[0].gap, seq++, true, 0});
  }
  const auto conflicts_with_any = [&](std::uint32_t t, const std::vector<std::uint32_t>& others, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint32_t o = others[i];
      if (may_conflict(filters[t], filters[o]) && model::conflicts(requests[t], requests[o])) return true;
    }
    return false;
  };
  const auto start = [&](std::uint32_t t) {
    running.push_back(t);
    waits.push_back(now - arrival[t]);
    if (trace != nullptr) trace->start[t] = now;
    events.push({now + schedule.tasks[t].hold, seq++, false, t});
  };

  while (!events.empty()) {
    const auto e = events.top();
    events.pop();
    now = e.time;
    ++m.events;
    if (e.arrival) {
      arrival[e.task] = now;
      if (trace != nullptr) trace->arrival_order.push_back(e.task);
      if (schedule.load == LoadMode::kOpen && e.task + 1 < n) {
        events.push({now + schedule.tasks[e.task + 1].gap, seq++, true, e.task + 1});
      }
      if (!conflicts_with_any(e.task, running, running.size()) && !conflicts_with_any(e.task, waiting, waiting.size())) {
        start(e.task);
      } else {
        waiting.push_back(e.task);
      }
      continue;
    }
    running.erase(std::find(running.begin(), running.end(), e.task));
    latencies.push_back(now - arrival[e.task]);
    if (trace != nullptr) trace->end[e.task] = now;
    ++m.tasks_completed;
    m.makespan = now;
    if (schedule.load == LoadMode::kClosed) next_of_client(schedule.tasks[e.task].client, now);
    // Admit, in order, each waiter that conflicts with nothing running and
    // nothing still waiting ahead of it.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < waiting.size(); ++i) {
      const auto t = waiting[i];
      if (!conflicts_with_any(t, running, running.size()) && !conflicts_with_any(t, waiting, kept)) {
        start(t);
      } else {
        waiting[kept++] = t;
      }
    }
    waiting.resize(kept);
  }
  if (trace != nullptr) trace->arrival = std::move(arrival);
  m.throughput = m.makespan > 0 ? static_cast<double>(m.tasks_completed) / m.makespan : 0;
  m.latency = percentiles(std::move(latencies));
  m.wait = percentiles(std::move(waits));
  return m;
}

}  // namespace pathlock::sim
