#pragma once
// The oracle admission policy's own judge.
//
// The oracle (simulator.hpp: simulate_oracle) is the baseline every scheme's
// throughput is measured against, so a bug in it misstates every efficiency
// the simulation reports. It is an event loop; its specification is a
// recurrence that needs no event loop at all. Taking the tasks in the order
// they arrived (ties as the event queue broke them):
//
//   start(t) = max(arrival(t), max{ end(u) : u arrived before t,
//                                            u conflicts with t })
//   end(t)   = start(t) + hold(t)
//
// A task waits for exactly the conflicting tasks that arrived before it
// (FIFO among conflicting requests: a later one never goes first), and for
// nothing else (no task waits while nothing conflicting runs or waits ahead
// of it). judge_oracle_run recomputes every start from the trace's arrivals
// by that recurrence and reports the first task whose recorded start differs,
// with the task that explains the difference. It checks the arrivals too:
// a closed-loop client's next task arrives its gap after the client's last
// one ended, an open-loop task its gap after the previous arrival.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pathlock/sim/simulator.hpp"
#include "pathlock/sim/workload.hpp"

namespace pathlock::sim {

// What the oracle did, task by task (indices into Schedule::tasks).
struct OracleTrace {
  std::vector<double> arrival;
  std::vector<double> start;
  std::vector<double> end;
  std::vector<std::uint32_t> arrival_order;  // tasks in the order they arrived
};

// simulate_oracle, recording what it did in `trace` (if not null).
RunMetrics simulate_oracle(const Schedule& schedule, OracleTrace* trace);

// Empty if the trace is what the recurrence gives; else the first
// difference, in words ("task 7 write(/a) started at 3.5; it conflicts with
// nothing that arrived before it and was still running, so it should have
// started on arrival at 2.0").
std::optional<std::string> judge_oracle_run(const Schedule& schedule, const OracleTrace& trace);

}  // namespace pathlock::sim
