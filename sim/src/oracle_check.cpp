// judge_oracle_run: the oracle's event loop checked against its recurrence
// (oracle.hpp), which shares no code with it but model::conflicts.

#include <fmt/format.h>

#include <algorithm>

#include "pathlock/model/conflict.hpp"
#include "pathlock/sim/oracle.hpp"

namespace pathlock::sim {
namespace {

std::string task_text(const Schedule& schedule, std::uint32_t t) {
  return fmt::format("task {} {}", schedule.tasks[t].id, schedule.tasks[t].op.to_string());
}

// The arrival the load model gives task t, from the trace's earlier events.
std::optional<std::string> judge_arrival(const Schedule& schedule, const OracleTrace& trace, std::size_t rank,
                                         std::vector<double>& client_free) {
  const std::uint32_t t = trace.arrival_order[rank];
  const TaskScript& task = schedule.tasks[t];
  double expected = 0;
  if (schedule.load == LoadMode::kClosed) {
    expected = client_free.at(task.client) + task.gap;
  } else {
    expected = (t == 0 ? 0.0 : trace.arrival[t - 1]) + task.gap;
  }
  if (trace.arrival[t] != expected) {
    return fmt::format("{} arrived at {}; its load model says {}", task_text(schedule, t), trace.arrival[t],
                       expected);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> judge_oracle_run(const Schedule& schedule, const OracleTrace& trace) {
  const std::size_t n = schedule.tasks.size();
  if (trace.arrival.size() != n || trace.start.size() != n || trace.end.size() != n ||
      trace.arrival_order.size() != n) {
    return fmt::format("the oracle ran {} of the schedule's {} tasks", trace.arrival_order.size(), n);
  }
  std::vector<char> seen(n, 0);
  for (const std::uint32_t t : trace.arrival_order) {
    if (t >= n || seen[t]) return fmt::format("the oracle's arrival order names task {} twice or out of range", t);
    seen[t] = 1;
  }
  std::vector<model::Request> requests;
  requests.reserve(n);
  for (const auto& task : schedule.tasks) requests.push_back(task.op.request());

  std::vector<double> client_free(std::max<std::uint32_t>(schedule.clients, 1), 0.0);
  std::vector<std::uint32_t> live;  // arrived earlier, in arrival order, possibly not ended yet
  for (std::size_t rank = 0; rank < n; ++rank) {
    const std::uint32_t t = trace.arrival_order[rank];
    if (auto wrong = judge_arrival(schedule, trace, rank, client_free)) return wrong;
    const double arrival = trace.arrival[t];
    std::erase_if(live, [&](std::uint32_t u) { return trace.end[u] <= arrival; });
    double expected = arrival;
    std::optional<std::uint32_t> last_blocker;
    for (const std::uint32_t u : live) {
      if (trace.end[u] > expected && model::conflicts(requests[t], requests[u])) {
        expected = trace.end[u];
        last_blocker = u;
      }
    }
    if (trace.start[t] != expected) {
      const std::string why =
          last_blocker ? fmt::format("it conflicts with {}, which arrived before it and ended at {}",
                                     task_text(schedule, *last_blocker), expected)
                       : std::string("nothing that conflicts with it arrived before it and was still running");
      return fmt::format("{} started at {}; {}, so it should have started at {}", task_text(schedule, t),
                         trace.start[t], why, expected);
    }
    if (trace.end[t] != trace.start[t] + schedule.tasks[t].hold) {
      return fmt::format("{} ended at {}, not its start {} plus its hold {}", task_text(schedule, t),
                         trace.end[t], trace.start[t], schedule.tasks[t].hold);
    }
    if (schedule.load == LoadMode::kClosed) client_free.at(schedule.tasks[t].client) = trace.end[t];
    live.push_back(t);
  }
  return std::nullopt;
}

}  // namespace pathlock::sim
