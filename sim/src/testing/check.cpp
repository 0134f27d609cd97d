#include "pathlock/testing/check.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace pathlock::testing {

void validate(const CheckOptions& options) {
  if (options.scenarios < 1 || options.scenarios > 1'000'000) {
    throw std::invalid_argument(fmt::format("CheckOptions.scenarios {} is outside 1..1,000,000", options.scenarios));
  }
  if (options.runs_per_scenario < 1 || options.runs_per_scenario > 100'000) {
    throw std::invalid_argument(
        fmt::format("CheckOptions.runs_per_scenario {} is outside 1..100,000", options.runs_per_scenario));
  }
  if (options.hang_timeout.count() < 10 || options.hang_timeout.count() > 3'600'000) {
    throw std::invalid_argument(fmt::format("CheckOptions.hang_timeout {} ms is outside 10 ms..1 h",
                                            options.hang_timeout.count()));
  }
  if (options.time_budget.count() < 1 || options.time_budget.count() > 86'400) {
    throw std::invalid_argument(
        fmt::format("CheckOptions.time_budget {} s is outside 1 s..1 day", options.time_budget.count()));
  }
  validate(options.shape);
  validate(options.paths);
}

namespace detail {

std::vector<Scenario> smaller_scenarios(const Scenario& scenario) {
  std::vector<Scenario> out;
  const auto& tasks = scenario.tasks;
  if (tasks.size() > 1) {
    for (std::size_t t = 0; t < tasks.size(); ++t) {
      Scenario fewer = scenario;
      fewer.tasks.erase(fewer.tasks.begin() + static_cast<std::ptrdiff_t>(t));
      out.push_back(std::move(fewer));
    }
  }
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    if (tasks[t].size() < 2) continue;
    for (std::size_t i = 0; i < tasks[t].size(); ++i) {
      Scenario fewer = scenario;
      fewer.tasks[t].erase(fewer.tasks[t].begin() + static_cast<std::ptrdiff_t>(i));
      out.push_back(std::move(fewer));
    }
  }
  // Each path one level up (towards "/").
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    for (std::size_t i = 0; i < tasks[t].size(); ++i) {
      const model::Operation& op = tasks[t][i];
      std::vector<model::Path> paths{op.source};
      if (op.target) paths.push_back(*op.target);
      for (std::size_t p = 0; p < paths.size(); ++p) {
        if (paths[p].is_root()) continue;
        std::vector<model::Path> simpler = paths;
        simpler[p] = simpler[p].parent();
        Scenario candidate = scenario;
        candidate.tasks[t][i] = model::Operation::make(op.kind, std::move(simpler));
        out.push_back(std::move(candidate));
      }
    }
  }
  return out;
}

}  // namespace detail

std::uint64_t random_seed() {
  std::random_device device;
  const std::uint64_t seed = (static_cast<std::uint64_t>(device()) << 32) | device();
  return seed == 0 ? 1 : seed;
}

std::string CheckResult::report() const {
  std::string text;
  const std::string searched = fmt::format(
      "{} scenario(s), {} run(s) in {:.2f} s{}", scenarios_run, runs, seconds,
      completeness == Completeness::kStoppedByTimeBudget ? " (stopped by the time budget: fewer than asked)" : "");
  if (passed()) {
    return fmt::format("passed: {}; seed {}; FIFO inversions in {} run(s), over-blocking in {} run(s)\n", searched,
                       seed, fifo_inversion_runs, over_blocking_runs);
  }
  text += fmt::format("{}\n", to_string(verdict));
  text += fmt::format("  scenario: {}\n", scenario.to_string());
  if (!outcome.detail.empty()) text += fmt::format("  {}\n", outcome.detail);
  for (const auto& wait : outcome.waits) text += fmt::format("  {}\n", wait);
  text += fmt::format("  schedule: real threads{} (the scenario replays; the interleaving may not)\n",
                      pauses == Pauses::kNone ? ", no pauses needed" : ", seeded pauses");
  text += fmt::format("  found after {}; {} shrink step(s)\n", searched, shrink_steps);
  if (measured_runs > 0) {
    text += fmt::format("  the minimal failure showed in {} of {} run(s): a replay of {} run(s) shows it in ~99% of tries\n",
                        measured_failures, measured_runs, replay_runs);
  }
  text += fmt::format("seed {}\n", seed);
  text += fmt::format(
      "replay: pathlock::testing::check_scenario(make_lock, pathlock::testing::Scenario::parse(\"{}\"), options, "
      "pathlock::testing::Pauses::{}) with options.seed = {}, options.runs_per_scenario = {}, options.hang_timeout = "
      "{} ms\n",
      scenario.to_string(), pauses == Pauses::kNone ? "kNone" : "kSeeded", replay_seed, replay_runs,
      hang_timeout.count());
  return text;
}

}  // namespace pathlock::testing
