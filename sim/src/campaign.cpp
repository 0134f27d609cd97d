#include "pathlock/sim/campaign.hpp"
#include "pathlock/sim/oracle.hpp"

#include <fmt/format.h>

#include <cmath>

#include "pathlock/model/error.hpp"

namespace pathlock::sim {

CampaignSpec default_campaign() {
  CampaignSpec c;
  c.sweep.name = "sweep";
  c.sweep.tree = {4, 4};  // 340 folders below the root
  c.sweep.mix = {0.6, 0.3, 0.1, 0, 0};
  c.sweep.zipf = 1.0;
  c.sweep.tasks = 4000;
  c.levels = {1, 2, 4, 8, 16, 32};

  c.probe.name = "probe";
  c.probe.tree = {2, 2};
  c.probe.mix = {0.5, 0.5, 0, 0, 0};
  c.probe.zipf = 0;
  c.probe.clients = 8;
  c.probe.tasks = 4000;

  c.multipath.name = "multipath";
  c.multipath.tree = {3, 2};
  c.multipath.include_root = true;
  c.multipath.mix = {0.3, 0.2, 0.1, 0.2, 0.2};
  c.multipath.zipf = 0.5;
  c.multipath.clients = 8;
  c.multipath.tasks = 4000;

  const auto all = impl::builtin_schemes();
  c.schemes.assign(all.begin(), all.end());
  return c;
}

WorkloadSpec at_level(const WorkloadSpec& w, double level) {
  WorkloadSpec out = w;
  if (w.load == LoadMode::kClosed) {
    if (level < 1 || level > kMaxClients || std::floor(level) != level) {
      throw model::InputError(model::InputProblem::kBadParameter,
                              fmt::format("level {} is not a client count in [1, {}]", level, kMaxClients));
    }
    out.clients = static_cast<int>(level);
  } else {
    if (!(level > 0) || !std::isfinite(level)) {
      throw model::InputError(model::InputProblem::kBadParameter,
                              fmt::format("level {} is not a positive arrival rate", level));
    }
    out.arrival_rate = level;
  }
  out.name = fmt::format("{}@{}", w.name, level);
  return out;
}

RunStatus run_status(RunOutcome outcome) noexcept {
  switch (outcome) {
    case RunOutcome::kCompleted: return RunStatus::kCompleted;
    case RunOutcome::kSafetyViolation:
    case RunOutcome::kDeadlock:
    case RunOutcome::kBrokenInvariant:
    case RunOutcome::kUnfairOvertake: return RunStatus::kStopped;
  }
  return RunStatus::kInconclusive;
}

std::string_view to_string(RunStatus status) noexcept {
  switch (status) {
    case RunStatus::kCompleted: return "completed";
    case RunStatus::kStopped: return "stopped";
    case RunStatus::kInconclusive: return "inconclusive";
  }
  return "?";
}

PerformanceValidity performance_validity(RunOutcome outcome) noexcept {
  return run_status(outcome) == RunStatus::kCompleted ? PerformanceValidity::kValid : PerformanceValidity::kInvalid;
}

std::string_view to_string(PerformanceValidity validity) noexcept {
  return validity == PerformanceValidity::kValid ? "valid" : "invalid";
}

bool is_single_path(const WorkloadSpec& w) noexcept { return w.mix.rename == 0 && w.mix.copy == 0; }

void RunTally::add(RunOutcome outcome) noexcept {
  switch (outcome) {
    case RunOutcome::kCompleted: ++completed; return;
    case RunOutcome::kSafetyViolation: ++safety_violations; return;
    case RunOutcome::kDeadlock: ++deadlocks; return;
    case RunOutcome::kBrokenInvariant: ++broken_invariants; return;
    case RunOutcome::kUnfairOvertake: ++unfair_overtakes; return;
  }
  ++inconclusive;
}

const NamedRun* SchemeCampaign::first_failure() const {
  if (sweep_failure) return &*sweep_failure;
  if (probe.result.outcome != RunOutcome::kCompleted) return &probe;
  if (multipath.result.outcome != RunOutcome::kCompleted) return &multipath;
  return nullptr;
}

namespace {

// Progress in tasks over the whole campaign. Each run reports its own count
// through SimOptions::progress; when a run ends, all its tasks count as done.
class TaskProgress {
 public:
  TaskProgress(const CampaignProgress& report, std::uint64_t total) : report_(report), total_(total) {}
  SimOptions options() {
    SimOptions o;
    if (report_) {
      o.progress = [this](std::uint64_t tasks) { report_(done_ + tasks, total_); };
      o.progress_every = kEvery;
    }
    return o;
  }
  void finish_run(const Schedule& s) {
    done_ += s.tasks.size();
    if (report_) report_(done_, total_);
  }

 private:
  static constexpr std::uint64_t kEvery = 256;
  const CampaignProgress& report_;
  std::uint64_t total_;
  std::uint64_t done_ = 0;
};

}  // namespace

CampaignResult run_campaign(const CampaignSpec& spec, const CampaignProgress& progress) {
  validate(spec.sweep);
  validate(spec.probe);
  validate(spec.multipath);
  if (spec.levels.empty()) {
    throw model::InputError(model::InputProblem::kBadParameter, "the sweep needs at least one level");
  }
  if (spec.schemes.empty()) throw model::InputError(model::InputProblem::kBadParameter, "no schemes to simulate");
  CampaignResult out;
  out.spec = spec;
  out.statics = analyze_static(spec.schemes, TreeSpec{});

  // Schedules first: one per sweep level, one probe, one multipath.
  const auto sweep_paths = workload_paths(spec.sweep);
  std::vector<Schedule> sweep;
  std::vector<std::uint64_t> sweep_seeds;
  std::uint64_t sweep_tasks = 0;
  for (std::size_t i = 0; i < spec.levels.size(); ++i) {
    sweep_seeds.push_back(derive_seed(spec.seed, i));
    sweep.push_back(generate_schedule(at_level(spec.sweep, spec.levels[i]), sweep_paths, sweep_seeds.back()));
    sweep_tasks += sweep.back().tasks.size();
  }
  const std::uint64_t probe_seed = derive_seed(spec.seed, 1000);
  const std::uint64_t multi_seed = derive_seed(spec.seed, 2000);
  const Schedule probe = generate_schedule(spec.probe, workload_paths(spec.probe), probe_seed);
  const Schedule multi = generate_schedule(spec.multipath, workload_paths(spec.multipath), multi_seed);

  // The oracle runs the sweep once; every scheme runs the sweep, the probe and the multipath.
  const std::uint64_t per_scheme = sweep_tasks + probe.tasks.size() + multi.tasks.size();
  TaskProgress work(progress, sweep_tasks + spec.schemes.size() * per_scheme);

  for (std::size_t i = 0; i < spec.levels.size(); ++i) {
    SweepPoint p;
    p.level = spec.levels[i];
    p.seed = sweep_seeds[i];
    p.tasks_scheduled = sweep[i].tasks.size();
    OracleTrace trace;
    p.metrics = simulate_oracle(sweep[i], &trace);
    if (!out.oracle_broken) {
      if (auto why = judge_oracle_run(sweep[i], trace)) {
        out.oracle_broken = fmt::format("level {}, seed {}: {}", p.level, p.seed, *why);
      }
    }
    p.efficiency = 1.0;
    out.oracle.push_back(p);
    work.finish_run(sweep[i]);
  }
  for (std::size_t s = 0; s < spec.schemes.size(); ++s) {
    const impl::Scheme& scheme = *spec.schemes[s];
    const SchemePlanner planner(scheme);
    SchemeCampaign sc;
    sc.scheme = &scheme;
    std::array<std::uint64_t, model::kCategoryCount> waits{};
    const auto count = [&](const RunResult& r) {
      for (std::size_t c = 0; c < model::kCategoryCount; ++c) waits[c] += r.observed[c].waits;
      sc.sweep_and_probe.add(r.outcome);
    };
    for (std::size_t i = 0; i < spec.levels.size(); ++i) {
      RunResult r = simulate(planner, sweep[i], work.options());
      work.finish_run(sweep[i]);
      count(r);
      SweepPoint p;
      p.level = spec.levels[i];
      p.seed = sweep_seeds[i];
      p.outcome = r.outcome;
      p.tasks_scheduled = sweep[i].tasks.size();
      p.metrics = r.metrics;
      const double oracle = out.oracle[i].metrics.throughput;
      p.efficiency = oracle > 0 ? r.metrics.throughput / oracle : 0;
      sc.sweep.push_back(p);
      if (r.outcome != RunOutcome::kCompleted && !sc.sweep_failure) {
        sc.sweep_failure = NamedRun{at_level(spec.sweep, p.level).name, p.seed, p.tasks_scheduled, std::move(r)};
      }
    }
    sc.probe = {spec.probe.name, probe_seed, probe.tasks.size(), simulate(planner, probe, work.options())};
    work.finish_run(probe);
    count(sc.probe.result);
    sc.multipath = {spec.multipath.name, multi_seed, multi.tasks.size(), simulate(planner, multi, work.options())};
    work.finish_run(multi);
    sc.observed_matches_static = true;
    for (std::size_t c = 0; c < model::kCategoryCount; ++c) {
      sc.observed[c] = waits[c] > 0 ? model::Verdict::kBlocks : model::Verdict::kAllows;
      if (sc.observed[c] != out.statics.schemes[s].verdicts[c]) sc.observed_matches_static = false;
    }
    out.schemes.push_back(std::move(sc));
  }
  return out;
}

}  // namespace pathlock::sim
