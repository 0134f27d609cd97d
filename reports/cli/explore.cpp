// pathlock explore: every interleaving of a bounded scenario (sim/explorer.hpp).

#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "pathlock/io/scheme_file.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/sim/core/task_planners.hpp"
#include "pathlock/sim/explorer.hpp"

namespace pathlock::cli {
namespace {

using model::InputError;
using model::InputProblem;

}  // namespace

namespace {

std::vector<std::uint32_t> parse_schedule(const std::string& text, std::size_t tasks) {
  std::vector<std::uint32_t> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    std::size_t used = 0;
    unsigned long value = 0;
    try {
      value = std::stoul(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || item.empty() || value >= tasks) {
      throw InputError(InputProblem::kBadParameter,
                       fmt::format("--schedule: \"{}\" is not a task number below {}", item, tasks));
    }
    out.push_back(static_cast<std::uint32_t>(value));
  }
  return out;
}

std::string count_text(long double n) {
  if (n < 1e15L) return fmt::format("{}", static_cast<std::uint64_t>(n));
  return fmt::format("{:.3g}", static_cast<double>(n));
}

void print_counterexample(const sim::Counterexample& cx, const ExploreCliOptions& o) {
  fmt::print("counterexample ({} steps; replay with --schedule {}):\n", cx.trace.size(),
             fmt::format("{}", fmt::join(cx.schedule, ",")));
  for (std::size_t i = 0; i < cx.trace.size(); ++i) fmt::print("  {:>3}. {}\n", i + 1, cx.trace[i].text);
  fmt::print("{}\n", cx.summary);
  for (const auto& line : cx.cycle) fmt::print("  {}\n", line);
  if (!cx.dot.empty()) {
    if (!o.dot_out.empty()) {
      std::ofstream out(o.dot_out);
      out << cx.dot;
      if (!out) throw std::runtime_error(fmt::format("cannot write {}", o.dot_out));
      fmt::print("wait-for cycle: {} (render: dot -Tsvg {} > cycle.svg)\n", o.dot_out, o.dot_out);
    } else {
      fmt::print("wait-for cycle (Graphviz DOT):\n{}", cx.dot);
    }
  }
}

nlohmann::json counterexample_json(const sim::Counterexample& cx) {
  nlohmann::json j;
  j["kind"] = std::string(sim::to_string(cx.kind));
  j["schedule"] = cx.schedule;
  j["trace"] = nlohmann::json::array();
  for (const auto& step : cx.trace) j["trace"].push_back(step.text);
  j["summary"] = cx.summary;
  j["cycle"] = cx.cycle;
  j["dot"] = cx.dot;
  return j;
}

}  // namespace

int run_explore(const ExploreCliOptions& o) {
  const sim::Scenario scenario = sim::load_scenario_file(o.scenario_file);
  const impl::Scheme scheme = scheme_for_scenario({o.scheme, o.scheme_file, o.order}, scenario);
  const sim::SchemePlanner planner(scheme);
  const sim::TaskPlanners task_planners(scheme, scenario);
  const sim::StepMachine machine(planner, scenario, task_planners.planners());
  fmt::print("explore: scenario \"{}\" under {} (order {}, acquisition {}, modes {})\n", scenario.name, scheme.name(),
             scheme.order().name(), impl::to_string(scheme.acquisition()), impl::to_string(scheme.joining()));
  for (std::uint32_t t = 0; t < machine.task_count(); ++t) {
    const auto& choice = scenario.tasks[t].front().scheme;
    if (!choice.empty()) {
      fmt::print("  {} uses {}\n", machine.task_label(t),
                 task_planners.planners()[t]->scheme().name());
    }
    for (std::size_t r = 0; r < scenario.tasks[t].size(); ++r) {
      const auto& req = scenario.tasks[t][r];
      std::string style;
      if (req.acquire != sim::AcquireStyle::kBlocking) style += fmt::format(" [{}]", sim::to_string(req.acquire));
      if (req.withdraw != sim::WithdrawStyle::kNever) style += fmt::format(" [withdraw {}]", sim::to_string(req.withdraw));
      if (req.release != sim::ReleaseStyle::kBeforeNext) style += fmt::format(" [release {}]", sim::to_string(req.release));
      fmt::print("  {} {:<22} plan {}{}\n", r == 0 ? machine.task_label(t) : std::string(machine.task_label(t).size(), ' '),
                 req.to_string(), machine.plan_text(t, r), style);
    }
  }
  if (!o.schedule.empty()) {
    const auto cx = sim::replay_schedule(machine, parse_schedule(o.schedule, machine.task_count()));
    if (cx.bad_step) throw InputError(InputProblem::kBadParameter, fmt::format("--schedule: {}", cx.summary));
    if (cx.kind == sim::Verdict::kSafeAndDeadlockFree) {
      for (std::size_t i = 0; i < cx.trace.size(); ++i) fmt::print("  {:>3}. {}\n", i + 1, cx.trace[i].text);
      fmt::print("{}\n", cx.summary);
      return 0;
    }
    fmt::print("verdict: {}\n", sim::to_string(cx.kind));
    print_counterexample(cx, o);
    return kExitUnsafe;
  }
  sim::ExploreOptions options;
  options.partial_order_reduction = !o.no_por;
  options.symmetry = !o.no_symmetry;
  options.count_naive = false;  // counted apart, so the time below is the search's alone
  options.max_states = o.max_states;
  options.max_memory = o.max_memory_mib << 20;
  if (isatty(STDERR_FILENO) != 0) {
    options.progress = [&o](const sim::ExploreProgress& p) {
      std::fprintf(stderr, "\rexploring: %llu states (limit %llu), %llu of %llu MiB, %llu transitions\x1b[K",
                   static_cast<unsigned long long>(p.states), static_cast<unsigned long long>(o.max_states),
                   static_cast<unsigned long long>(p.bytes >> 20), static_cast<unsigned long long>(o.max_memory_mib),
                   static_cast<unsigned long long>(p.transitions));
      std::fflush(stderr);
    };
  }
  const auto start = std::chrono::steady_clock::now();
  sim::ExploreResult r = sim::explore(machine, options);
  if (options.progress) std::fputs("\r\x1b[K", stderr);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!o.no_naive) {
    if (const auto naive = sim::count_unreduced(machine, options.max_naive_states)) {
      r.naive_states = naive->states;
      r.naive_transitions = naive->transitions;
      r.naive_interleavings = naive->interleavings;
    }
  }
  if (r.naive_states) {
    fmt::print("naive:    {} states, {} transitions, {} interleavings (no reduction)\n", *r.naive_states,
               *r.naive_transitions, count_text(*r.naive_interleavings));
  } else if (!o.no_naive) {
    fmt::print("naive:    over {} states; not counted\n", options.max_naive_states);
  }
  fmt::print("explored: {} states, {} transitions (partial-order reduction {}, symmetry {}); {:.3f} s, {:.0f} states/s\n",
             r.states, r.transitions, options.partial_order_reduction ? "on" : "off", options.symmetry ? "on" : "off",
             seconds, seconds > 0 ? static_cast<double>(r.states) / seconds : 0.0);
  fmt::print("verdict: {}\n", sim::to_string(r.verdict));
  // What the scheme promised about overtaking beside what the search judged.
  if (scheme.fairness() == impl::Fairness::kNone) {
    fmt::print("fairness: promised {}; overtakes not judged\n", scheme.fairness_text());
  } else if (r.verdict == sim::Verdict::kUnfairOvertake) {
    fmt::print("fairness: promised {}; broken (below)\n", scheme.fairness_text());
  } else {
    fmt::print("fairness: promised {}; no overtake beyond it in {} states{}\n", scheme.fairness_text(), r.states,
               sim::is_failure(r.verdict) || r.verdict == sim::Verdict::kIncomplete ? " (the search stopped early)" : "");
  }
  if (r.verdict == sim::Verdict::kIncomplete) {
    fmt::print("stopped at the {} after {} states (about {} MiB); raise --max-states or --max-memory\n",
               sim::to_string(r.stopped_by), r.states, r.bytes >> 20);
  }
  if (r.counterexample) print_counterexample(*r.counterexample, o);
  if (!o.json_out.empty()) {
    nlohmann::json j;
    j["schema"] = "pathlock.explore/1";
    j["scenario"] = sim::to_json(scenario);
    j["scheme"] = io::scheme_to_json(scheme);
    j["verdict"] = std::string(sim::to_string(r.verdict));
    j["states"] = r.states;
    j["stopped_by"] = std::string(sim::to_string(r.stopped_by));
    j["transitions"] = r.transitions;
    j["seconds"] = seconds;
    if (r.naive_states) {
      j["naive_states"] = *r.naive_states;
      j["naive_transitions"] = *r.naive_transitions;
      j["naive_interleavings"] = static_cast<double>(*r.naive_interleavings);
    }
    if (r.counterexample) j["counterexample"] = counterexample_json(*r.counterexample);
    std::ofstream out(o.json_out);
    out << j.dump(2) << "\n";
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", o.json_out));
  }
  switch (r.verdict) {
    case sim::Verdict::kSafeAndDeadlockFree: return 0;
    case sim::Verdict::kIncomplete: return kExitInconclusive;
    default: return kExitUnsafe;
  }
}

}  // namespace pathlock::cli
