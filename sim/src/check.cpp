#include "pathlock/sim/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>

#include "pathlock/impl/order_defect.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/sim/model_agreement.hpp"
#include "pathlock/sim/rng.hpp"
#include "pathlock/sim/scheduler.hpp"
#include "pathlock/sim/schedulers/pct_scheduler.hpp"
#include "pathlock/sim/schedulers/random_scheduler.hpp"
#include "pathlock/sim/shrink.hpp"
#include "pathlock/sim/tree.hpp"
#include "parallel.hpp"

namespace pathlock::sim {

std::string_view to_string(CheckVerdict verdict) noexcept {
  switch (verdict) {
    case CheckVerdict::kPass: return "pass";
    case CheckVerdict::kFail: return "fail";
    case CheckVerdict::kInconclusive: return "inconclusive";
  }
  return "?";
}

std::string_view to_string(EvidenceStatus status) noexcept {
  switch (status) {
    case EvidenceStatus::kPass: return "pass";
    case EvidenceStatus::kFail: return "fail";
    case EvidenceStatus::kIncomplete: return "incomplete";
    case EvidenceStatus::kWeak: return "weak";
    case EvidenceStatus::kNoPower: return "no power";
  }
  return "?";
}

void validate(const CheckOptions& o) {
  const auto bad = [](std::string what) {
    throw model::InputError(model::InputProblem::kBadParameter, std::move(what));
  };
  if (o.campaign_scenarios > 100'000) bad(fmt::format("campaign scenarios {} is over 100000", o.campaign_scenarios));
  if (o.runs_per_scenario > 1'000'000) bad(fmt::format("runs per scenario {} is over 1000000", o.runs_per_scenario));
  if (o.pct_depths.size() > 4) bad("give at most 4 PCT depths");
  for (const auto d : o.pct_depths) {
    if (d < 1 || d > 10) bad(fmt::format("PCT depth {} is not in [1, 10]", d));
  }
  const auto& c = o.campaign;
  if (c.min_tasks < 1 || c.min_tasks > c.max_tasks || c.max_tasks > kMaxScenarioTasks) {
    bad(fmt::format("campaign tasks {}..{} is not a range within [1, {}]", c.min_tasks, c.max_tasks,
                    kMaxScenarioTasks));
  }
  if (c.max_requests < 1 || c.max_requests > kMaxScenarioRequests) {
    bad(fmt::format("campaign requests per task {} is not in [1, {}]", c.max_requests, kMaxScenarioRequests));
  }
  if (o.max_states < 1) bad("the state limit must be at least 1");
  if (o.jobs > kMaxCheckJobs) bad(fmt::format("jobs {} is over {}", o.jobs, kMaxCheckJobs));
}

namespace {

bool failed(Verdict v) { return is_failure(v); }  // a broken lock invariant counts as a safety failure below

struct Failure {
  std::string found_by;
  Scenario scenario;
  Verdict kind;
  std::optional<std::vector<std::uint32_t>> schedule;  // as found, for a campaign failure
};

ExploreOptions search_options(std::uint64_t max_states) {
  ExploreOptions eo;
  eo.count_naive = false;
  eo.shortest_counterexample = false;
  eo.max_states = max_states;
  return eo;
}

std::uint64_t run_seed(std::uint64_t seed, std::size_t scheduler, std::size_t scenario, std::size_t run) {
  return derive_seed(derive_seed(derive_seed(seed, 1 + scheduler), scenario), run);
}

// The campaigns' schedulers, by index: random, then PCT for each depth.
// Each caller (each worker thread) makes its own: a scheduler has state.
std::size_t scheduler_count(const CheckOptions& o) { return 1 + o.pct_depths.size(); }
std::unique_ptr<Scheduler> make_scheduler(const CheckOptions& o, std::size_t index) {
  if (index == 0) return std::make_unique<RandomScheduler>();
  return std::make_unique<PctScheduler>(o.pct_depths[index - 1]);
}

enum class Judged { kExhaustively, kBySampling };

// Whether `s` fails as `kind`: exhaustively when it can be, else by the
// campaign's schedulers.
bool fails_as(const Planner& planner, const Scenario& s, Verdict kind, const CheckOptions& o, Judged& how) {
  const ExploreResult er = explore(planner, s, search_options(o.max_states));
  how = Judged::kExhaustively;
  if (er.verdict != Verdict::kIncomplete) return er.verdict == kind;
  how = Judged::kBySampling;
  const StepMachine m(planner, s);
  for (std::size_t i = 0; i < scheduler_count(o); ++i) {
    const auto scheduler = make_scheduler(o, i);
    for (std::size_t run = 0; run < o.runs_per_scenario; ++run) {
      if (run_scheduled(m, *scheduler, run_seed(o.seed, i, 0, run)).verdict == kind) return true;
    }
  }
  return false;
}

// Deadlock freedom needs one strict total order: check the scheme's on the
// paths the check uses (the family's, then the static tree's in component
// order, up to the finder's limit). A finding, with the paths that show the
// defect, if the order is not one, or declares itself not total (planning
// then keeps ties in request order, on any paths).
std::optional<std::string> order_finding(const impl::Scheme& scheme, const CheckOptions& o) {
  if (scheme.acquisition() != impl::Acquisition::kInOrder || scheme.granularity() == impl::Granularity::kGlobal) {
    return std::nullopt;  // locks are not sorted, or there is one lock
  }
  auto paths = family_paths(o.family);
  for (auto& p : generate_tree(o.static_tree)) {
    if (paths.size() < impl::kMaxOrderCheckPaths) paths.push_back(std::move(p));
  }
  const impl::LockOrder& order = scheme.order();
  const bool claims_total = order.totality() == impl::Totality::kStrictTotal;
  if (const auto defect = impl::find_order_defect(order, paths)) {
    return fmt::format("order {}: not a strict total order ({} fails: {}){}", order.name(),
                       impl::to_string(defect->property), defect->explanation,
                       claims_total ? ", though it claims to be one" : "");
  }
  if (!claims_total) {
    return fmt::format("order {}: declares itself not a strict total order (no defect among the {} paths checked)",
                       order.name(), paths.size());
  }
  return std::nullopt;
}

constexpr std::size_t kShrinkTries = 5000;

MinimalCounterexample minimize(const Planner& planner, const Failure& f, const CheckOptions& o,
                               const CheckProgress& progress) {
  MinimalCounterexample mc;
  mc.found_by = f.found_by;
  mc.original = f.scenario;
  if (f.schedule) {
    const StepMachine original(planner, mc.original);
    mc.original_preemptions = count_preemptions(original, *f.schedule);
  }
  std::size_t judged = 0;
  const auto shrunk = shrink_scenario(
      f.scenario,
      [&](const Scenario& s) {
        if (progress) progress("shrink", ++judged, 0);
        Judged how = Judged::kExhaustively;
        const bool fails = fails_as(planner, s, f.kind, o, how);
        if (!fails && how == Judged::kBySampling) ++mc.sampled_rejections;
        return fails;
      },
      kShrinkTries);
  mc.scenario = shrunk.scenario;
  mc.scenario.name = "minimal counterexample";
  mc.shrink_steps = shrunk.accepted;
  mc.shrink_tried = shrunk.tried;
  mc.shrink_stop = shrunk.stop;
  mc.shrink_limit = kShrinkTries;
  mc.final_candidates = shrunk.final_candidates;
  const StepMachine m(planner, mc.scenario);
  auto schedule = fewest_preemptions_failure(m, 4'000'000);
  if (!schedule) {
    // Too large to search by preemptions: the explorer's shortest trace.
    ExploreOptions eo = search_options(o.max_states);
    eo.shortest_counterexample = true;
    const auto er = explore(planner, mc.scenario, eo);
    if (er.counterexample) schedule = er.counterexample->schedule;
  }
  if (!schedule && f.schedule && mc.scenario.tasks == f.scenario.tasks) schedule = f.schedule;
  if (schedule) {
    mc.trace = replay_schedule(m, *schedule);
    mc.preemptions = count_preemptions(m, *schedule);
  }
  return mc;
}


// One family scenario's exploration, as its worker found it.
struct FamilyOutcome {
  Verdict verdict = Verdict::kSafeAndDeadlockFree;
  std::uint64_t states = 0;
  std::uint64_t transitions = 0;
};

// One campaign scenario's runs under one scheduler, as its worker found them.
struct CampaignOutcome {
  std::uint64_t failing_runs = 0;
  std::uint64_t violations = 0;
  std::uint64_t deadlocks = 0;
  std::uint64_t overtakes = 0;
  std::optional<CampaignFailure> first_failure;  // the lowest run index
};

// One campaign scenario: its outcome under each scheduler, and its PCT bound
// for each PCT depth (by scheduler index; 0 for random).
struct ScenarioOutcome {
  std::vector<CampaignOutcome> by_scheduler;
  std::vector<double> bounds;
};

ScenarioOutcome run_campaign_scenario(const Planner& planner, const Scenario& scenario, std::size_t index,
                                      const CheckOptions& o) {
  const StepMachine m(planner, scenario);
  ScenarioOutcome out;
  out.by_scheduler.resize(scheduler_count(o));
  out.bounds.resize(scheduler_count(o));
  const std::size_t steps = run_length(m);
  for (std::size_t si = 0; si < scheduler_count(o); ++si) {
    if (si > 0) out.bounds[si] = pct_bound(m.task_count(), steps, o.pct_depths[si - 1]);
    const auto scheduler = make_scheduler(o, si);
    auto& c = out.by_scheduler[si];
    for (std::size_t run = 0; run < o.runs_per_scenario; ++run) {
      const std::uint64_t seed = run_seed(o.seed, si, index, run);
      auto result = run_scheduled(m, *scheduler, seed);
      if (!failed(result.verdict)) continue;
      ++c.failing_runs;
      ++(result.verdict == Verdict::kDeadlock         ? c.deadlocks
         : result.verdict == Verdict::kUnfairOvertake ? c.overtakes
                                                      : c.violations);
      if (!c.first_failure) c.first_failure = CampaignFailure{index, seed, result.verdict, std::move(result.schedule)};
    }
  }
  return out;
}

EvidenceStatus family_status(const FamilyPartResult& p) {
  if (p.violations + p.deadlocks + p.overtakes > 0) return EvidenceStatus::kFail;
  if (p.incomplete > 0) return EvidenceStatus::kIncomplete;
  return p.scenarios == 0 ? EvidenceStatus::kNoPower : EvidenceStatus::kPass;
}

EvidenceStatus campaign_status(const SchedulerCampaign& c, const CheckOptions& o) {
  if (c.failing_runs > 0) return EvidenceStatus::kFail;
  if (c.runs == 0) return EvidenceStatus::kNoPower;
  if (c.depth == 0) return o.runs_per_scenario < kMinRandomRunsPerScenario ? EvidenceStatus::kWeak : EvidenceStatus::kPass;
  return c.worst_miss > kWeakMissBound ? EvidenceStatus::kWeak : EvidenceStatus::kPass;
}

// The exhaustive stage: every family scenario, spread over the workers.
void explore_family(const Planner& planner, const CheckOptions& o, CheckResult& r, std::optional<Failure>& first,
                    const CheckProgress& progress) {
  const auto family = scenario_family(o.family);
  std::vector<FamilyOutcome> outcomes(family.size());
  const ExploreOptions eo = search_options(o.max_states);
  parallel_for(
      family.size(), o.jobs,
      [&](std::size_t i) {
        const ExploreResult er = explore(planner, family[i].scenario, eo);
        outcomes[i] = FamilyOutcome{er.verdict, er.states, er.transitions};
      },
      [&](std::size_t done) {
        if (progress && (done % 256 == 0 || done == family.size())) progress("family", done, family.size());
      });
  r.family.resize(kFamilyPartCount);
  for (std::size_t p = 0; p < kFamilyPartCount; ++p) r.family[p].part = static_cast<FamilyPart>(p);
  for (std::size_t i = 0; i < family.size(); ++i) {
    const auto& fs = family[i];
    const auto& er = outcomes[i];
    auto& part = r.family[static_cast<std::size_t>(fs.part)];
    ++part.scenarios;
    part.states += er.states;
    part.transitions += er.transitions;
    // A broken lock invariant counts as a safety failure, as in the campaigns.
    if (er.verdict == Verdict::kSafetyViolation || er.verdict == Verdict::kBrokenInvariant) ++part.violations;
    if (er.verdict == Verdict::kDeadlock) ++part.deadlocks;
    if (er.verdict == Verdict::kUnfairOvertake) ++part.overtakes;
    if (er.verdict == Verdict::kIncomplete) ++part.incomplete;
    if (failed(er.verdict)) {
      if (!part.first_failure) part.first_failure = fs.scenario;
      if (!first) first = Failure{fmt::format("family ({})", to_string(fs.part)), fs.scenario, er.verdict, {}};
    }
  }
  for (auto& part : r.family) {
    part.status = family_status(part);
    if (part.status == EvidenceStatus::kFail) {
      r.findings.push_back(fmt::format(
          "family {}: {} of {} scenarios violate safety or break a lock invariant, {} deadlock, {} overtake beyond "
          "the fairness promise; first: {}",
          to_string(part.part), part.violations, part.scenarios, part.deadlocks, part.overtakes,
          part.first_failure->name));
    }
  }
}

// The scheduler campaigns over larger random scenarios, one scenario per
// work item, merged in scenario order.
void run_campaigns(const Planner& planner, const CheckOptions& o, CheckResult& r, std::optional<Failure>& first,
                   const CheckProgress& progress) {
  r.campaigns.resize(scheduler_count(o));
  r.campaigns[0].scheduler = "random";
  for (std::size_t i = 0; i < o.pct_depths.size(); ++i) {
    auto& c = r.campaigns[i + 1];
    c.depth = o.pct_depths[i];
    c.scheduler = fmt::format("pct (d={})", c.depth);
    c.min_bound = o.campaign_scenarios == 0 ? 0 : std::numeric_limits<double>::infinity();
  }
  r.campaign_scenarios.reserve(o.campaign_scenarios);
  for (std::size_t sc = 0; sc < o.campaign_scenarios; ++sc) {
    r.campaign_scenarios.push_back(random_scenario(o.campaign, derive_seed(o.seed, sc)));
  }
  std::vector<ScenarioOutcome> outcomes(o.campaign_scenarios);
  parallel_for(
      o.campaign_scenarios, o.jobs,
      [&](std::size_t sc) { outcomes[sc] = run_campaign_scenario(planner, r.campaign_scenarios[sc], sc, o); },
      [&](std::size_t done) {
        if (progress) progress("campaigns", done, o.campaign_scenarios);
      });
  for (std::size_t sc = 0; sc < o.campaign_scenarios; ++sc) {
    for (std::size_t si = 0; si < r.campaigns.size(); ++si) {
      auto& c = r.campaigns[si];
      auto& found = outcomes[sc].by_scheduler[si];
      if (c.depth) {
        c.min_bound = std::min(c.min_bound, outcomes[sc].bounds[si]);
        c.max_bound = std::max(c.max_bound, outcomes[sc].bounds[si]);
      }
      c.runs += o.runs_per_scenario;
      c.failing_runs += found.failing_runs;
      c.violations += found.violations;
      c.deadlocks += found.deadlocks;
      c.overtakes += found.overtakes;
      if (found.failing_runs == 0) continue;
      ++c.scenarios_failed;
      if (!c.first_failure) c.first_failure = found.first_failure;
      if (!first) {
        const auto& f = *found.first_failure;
        first = Failure{fmt::format("{} campaign (scenario {}, run seed {})", c.scheduler, sc, f.run_seed),
                        r.campaign_scenarios[sc], f.kind, f.schedule};
      }
    }
  }
  for (auto& c : r.campaigns) {
    if (c.depth) c.worst_miss = miss_probability(c.min_bound, o.runs_per_scenario);
    c.status = campaign_status(c, o);
    if (c.status == EvidenceStatus::kFail) {
      r.findings.push_back(fmt::format("{} campaign: {} of {} runs failed ({} violations, {} deadlocks, {} unfair "
                                       "overtakes) in {} of {} scenarios",
                                       c.scheduler, c.failing_runs, c.runs, c.violations, c.deadlocks, c.overtakes,
                                       c.scenarios_failed, o.campaign_scenarios));
    }
  }
}

}  // namespace

std::uint64_t fairness_failures(const CheckResult& r) {
  std::uint64_t n = 0;
  for (const auto& p : r.family) n += p.overtakes;
  for (const auto& c : r.campaigns) n += c.overtakes;
  return n;
}

std::string fairness_line(const CheckResult& r) {
  std::uint64_t states = 0;
  std::uint64_t runs = 0;
  for (const auto& p : r.family) states += p.states;
  for (const auto& c : r.campaigns) runs += c.runs;
  const std::string scope = fmt::format("{} states and {} runs", states, runs);
  if (r.fairness == impl::Fairness::kNone) {
    return fmt::format("promised: {} · not judged over {}", r.fairness_promise, scope);
  }
  const std::uint64_t failures = fairness_failures(r);
  if (failures == 0) {
    return fmt::format("promised: {} · checked: no overtake beyond it in {}", r.fairness_promise, scope);
  }
  return fmt::format("promised: {} · checked over {}: {} scenario(s) or run(s) overtook a waiter beyond it",
                     r.fairness_promise, scope, failures);
}

CheckResult check_scheme(const impl::Scheme& scheme, const CheckOptions& o, const CheckProgress& progress) {
  validate(o);
  CheckResult r;
  r.scheme = scheme.name();
  r.options = o;
  r.fairness = scheme.fairness();
  r.bypass_bound = scheme.bypass_bound();
  r.fairness_promise = scheme.fairness_text();
  const SchemePlanner planner(scheme);
  const auto order_defect = order_finding(scheme, o);
  if (order_defect) r.findings.push_back(*order_defect);

  // Static table.
  const impl::Scheme* one[] = {&scheme};
  const StaticAnalysis analysis = analyze_static(one, o.static_tree, [&](std::uint64_t done, std::uint64_t total) {
    if (progress) progress("static", done, total);
  });
  r.statics = analysis.schemes.front();
  r.static_status = !r.statics.safe()        ? EvidenceStatus::kFail
                    : r.statics.pairs == 0   ? EvidenceStatus::kNoPower
                                             : EvidenceStatus::kPass;
  if (!r.statics.safe()) {
    const auto& w = r.statics.unsafe_witnesses.front();
    r.findings.push_back(fmt::format("static table: {} of {} operation pairs conflict but their plans do not; "
                                     "first {} with {}",
                                     r.statics.unsafe_pairs, r.statics.pairs, w.first.to_string(),
                                     w.second.to_string()));
  }

  for (const auto& c : r.statics.claims.claims) {
    if (c.status == ClaimStatus::kBroken) {
      r.findings.push_back(fmt::format("static table: claim broken: {} ({}); pairs judged by {}", to_string(c.claim),
                                       c.witness->explanation, to_string(r.statics.claims.computation)));
    }
  }

  std::optional<Failure> first;
  explore_family(planner, o, r, first, progress);

  // The static witness, if the family missed it.
  if (!first && !r.statics.safe()) {
    const auto& w = r.statics.unsafe_witnesses.front();
    Scenario s;
    s.name = fmt::format("[{}] | [{}]", w.first.to_string(), w.second.to_string());
    s.tasks = {{w.first}, {w.second}};
    const ExploreResult er = explore(planner, s, search_options(o.max_states));
    if (failed(er.verdict)) first = Failure{"static table", s, er.verdict, {}};
  }

  std::optional<Failure> first_campaign;
  run_campaigns(planner, o, r, first_campaign, progress);
  if (!first) first = std::move(first_campaign);

  r.model_error = model_error_of(analysis, first ? &first->scenario : nullptr, r.campaign_scenarios);
  if (first && !r.model_error) r.counterexample = minimize(planner, *first, o, progress);
  const auto any = [&](EvidenceStatus status) {
    return r.static_status == status ||
           std::any_of(r.family.begin(), r.family.end(), [&](const auto& p) { return p.status == status; }) ||
           std::any_of(r.campaigns.begin(), r.campaigns.end(), [&](const auto& c) { return c.status == status; });
  };
  // The static table cannot see a deadlock: a pass needs a dynamic row with power.
  const bool dynamic_power =
      std::any_of(r.family.begin(), r.family.end(), [](const auto& p) { return has_power(p.status); }) ||
      std::any_of(r.campaigns.begin(), r.campaigns.end(), [](const auto& c) { return has_power(c.status); });
  if (r.model_error) {
    r.verdict = CheckVerdict::kFail;
    r.findings.insert(r.findings.begin(), *r.model_error + " (a bug in the model, not in the scheme)");
  } else if (first || any(EvidenceStatus::kFail) || order_defect) {
    r.verdict = CheckVerdict::kFail;
  } else if (any(EvidenceStatus::kIncomplete)) {
    r.verdict = CheckVerdict::kInconclusive;
    r.findings.push_back("family: some scenarios passed the state limit; raise --max-states");
  } else if (!dynamic_power) {
    r.verdict = CheckVerdict::kInconclusive;
    r.findings.push_back(
        "no evidence with power: no family scenario was explored and no campaign had power (the static table "
        "cannot see a deadlock); give --family quick or full, or more --scenarios and --runs");
  } else {
    r.verdict = CheckVerdict::kPass;
  }
  return r;
}

}  // namespace pathlock::sim
