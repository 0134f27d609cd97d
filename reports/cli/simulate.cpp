// pathlock simulate: the campaign (sim/campaign.hpp).
// pathlock replay: one failed run again, from the replay file simulate wrote.

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "pathlock/io/json_reader.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/reports/simulate.hpp"
#include "terminal.hpp"

namespace pathlock::cli {
namespace {

using model::InputError;
using model::InputProblem;

// A bucket listing is read once up front: bad keys stop the run (fail) or are
// reported and counted in the report (skip) before any schedule is drawn.
void check_key_listing(sim::WorkloadSpec& workload) {
  if (!workload.keys_file) return;
  const auto listing = sim::read_key_listing(*workload.keys_file, workload.invalid_keys);
  workload.skipped_keys = listing.bad_keys;
  if (listing.bad_keys > 0) {
    std::cerr << "pathlock: warning: skipping keys: " << sim::describe_bad_keys(listing, *workload.keys_file) << "\n";
  }
}

// The sweep holds one schedule per level, each replayed by every scheme.
void check_campaign_size(const sim::CampaignSpec& spec) {
  const auto tasks = static_cast<std::uint64_t>(spec.sweep.tasks);
  const auto levels = static_cast<std::uint64_t>(spec.levels.size());
  if (tasks * levels > sim::kMaxSweepTasks) {
    throw InputError(InputProblem::kBadParameter,
                     fmt::format("{} levels of {} tasks is over the limit of {} sweep tasks in all (about {} bytes "
                                 "each, all drawn before the runs); lower --tasks (or the workload's tasks) or give "
                                 "fewer --levels",
                                 levels, tasks, sim::kMaxSweepTasks, sim::kBytesPerTask));
  }
}

}  // namespace

int run_simulate(const SimulateCliOptions& o) {
  auto spec = sim::default_campaign();
  spec.seed = o.seed;
  if (!o.workload.empty()) {
    spec.sweep = sim::load_workload_file(o.workload);
    if (spec.sweep.load == sim::LoadMode::kOpen && o.levels.empty()) {
      spec.levels.clear();
      for (double f : {0.25, 0.5, 1.0, 2.0, 4.0}) spec.levels.push_back(spec.sweep.arrival_rate * f);
    }
  }
  if (!o.invalid_keys.empty()) {
    if (!spec.sweep.keys_file) {
      throw InputError(InputProblem::kBadParameter, "--invalid-keys: only for a workload with a keys_file");
    }
    spec.sweep.invalid_keys = *sim::invalid_keys_from_string(o.invalid_keys);
  }
  if (!o.levels.empty()) spec.levels = o.levels;
  if (o.tasks > 0) {
    for (auto* w : {&spec.sweep, &spec.probe, &spec.multipath}) w->tasks = o.tasks;
  }
  for (double level : spec.levels) sim::validate(sim::at_level(spec.sweep, level));
  check_campaign_size(spec);
  check_key_listing(spec.sweep);
  const std::vector<impl::Scheme> schemes = resolve_schemes(o.schemes, WhenNoneNamed::kEveryBuiltin);
  spec.schemes.clear();
  for (const auto& s : schemes) spec.schemes.push_back(&s);
  std::cout << "pathlock simulate: seed " << spec.seed << " (replay the campaign with --seed " << spec.seed << ")\n";
  sim::CampaignResult result;
  {
    ProgressBar bar("tasks simulated");
    result = sim::run_campaign(spec, [&](std::uint64_t done, std::uint64_t total) { bar.update(done, total); });
  }
  const auto plots = o.no_plots ? reports::Plots::kSkip : reports::Plots::kDraw;
  // The terminal names no plot files: the "wrote" lines below give their paths.
  std::cout << reports::render_terminal(reports::simulate_document(result, reports::Plots::kSkip, o.out),
                                        color_for(o.color));
  const auto files = reports::write_simulate(result, o.out, plots);
  for (const auto& f : files) std::cout << "wrote " << f.string() << "\n";
  bool failed = false;
  bool unfair = false;  // a scheme broke its fairness promise: a fail whatever --strict says
  for (const auto& sc : result.schemes) {
    if (const auto* f = sc.first_failure()) {
      failed = true;
      std::cout << "replay " << sc.scheme->name() << "'s " << sim::to_string(f->result.outcome)
                << " with: " << reports::replay_command(o.out, sc.scheme->name()) << "\n";
    }
    if (sc.sweep_and_probe.unfair_overtakes > 0 || sc.multipath.result.outcome == sim::RunOutcome::kUnfairOvertake) {
      unfair = true;
      std::cout << sc.scheme->name() << " promises " << sc.scheme->fairness_text()
                << " about overtaking, and a run overtook a waiter beyond it\n";
    }
  }
  if (result.oracle_broken) {
    // Every efficiency above was measured against it: the run proves nothing.
    std::cout << "the oracle admission policy is broken, so no efficiency is valid: " << *result.oracle_broken
              << "\n";
  }
  return (o.strict && failed) || unfair || result.oracle_broken ? kExitUnsafe : kExitPass;
}

int run_replay(const ReplayCliOptions& o) {
  const nlohmann::json j = io::jsonio::parse_json(io::jsonio::read_file(o.file, "replay"), o.file);
  if (!j.is_object() || j.value("schema", "") != reports::kReplaySchema) {
    throw InputError(InputProblem::kBadParameter,
                     fmt::format("{}: not a replay file (schema must be \"{}\")", o.file, reports::kReplaySchema));
  }
  if (!j.contains("scheme") || !j["scheme"].is_string() || !j.contains("schedule")) {
    throw InputError(InputProblem::kBadParameter, fmt::format("{}: needs \"scheme\" and \"schedule\"", o.file));
  }
  const bool overridden = !o.choice.scheme.empty() || !o.choice.scheme_file.empty();
  const impl::Scheme scheme = one_scheme(o.choice, j["scheme"].get<std::string>());
  const auto schedule = sim::schedule_from_json(j["schedule"], o.file);
  const auto run = sim::simulate(sim::SchemePlanner(scheme), schedule);
  const std::string outcome(sim::to_string(run.outcome));
  if (j.contains("outcome") && !j["outcome"].is_string()) {
    throw InputError(InputProblem::kBadParameter, fmt::format("{}: outcome: must be a string", o.file));
  }
  if (j.contains("seed") && !j["seed"].is_number_unsigned()) {
    throw InputError(InputProblem::kBadParameter, fmt::format("{}: seed: must be a whole number", o.file));
  }
  const std::string recorded = j.value("outcome", "");
  const std::uint64_t seed = j.value("seed", std::uint64_t{0});
  fmt::print("replay of {} ({} tasks, seed {}) under {}: {}\n", o.file, schedule.tasks.size(), seed, scheme.name(),
             outcome);
  // Under the recorded scheme, a different outcome is a failure of its own:
  // the run is not deterministic, or the replay file was edited.
  const bool checked = !overridden && !recorded.empty();
  const bool reproduced = recorded == outcome;
  if (checked) fmt::print("recorded outcome: {}; reproduced: {}\n", recorded, reproduced ? "yes" : "NO");
  reports::Document doc;
  reports::failure_blocks(doc, run);
  std::cout << reports::render_terminal(doc, reports::Color::kNone);
  if (checked && !reproduced) return kExitUnsafe;
  return run.outcome == sim::RunOutcome::kCompleted ? kExitPass : kExitUnsafe;
}

}  // namespace pathlock::cli
