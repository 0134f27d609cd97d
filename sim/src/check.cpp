#include "pathlock/sim/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>

#include "pathlock/impl/order_defect.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/sim/rng.hpp"
#include "pathlock/sim/scheduler.hpp"
#include "pathlock/sim/schedulers/pct_scheduler.hpp"
#include "pathlock/sim/schedulers/random_scheduler.hpp"
#include "pathlock/sim/shrink.hpp"
#include "pathlock/sim/tree.hpp"

namespace pathlock::sim {

std::string_view to_string(CheckVerdict verdict) noexcept {
  switch (verdict) {
    case CheckVerdict::kPass: return "pass";
    case CheckVerdict::kFail: return "fail";
    case CheckVerdict::kInconclusive: return "inconclusive";
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
}

namespace {

bool failed(Verdict v) { return v == Verdict::kSafetyViolation || v == Verdict::kDeadlock; }

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

// The campaigns' schedulers: random, then PCT for each depth.
std::vector<std::unique_ptr<Scheduler>> make_schedulers(const CheckOptions& o) {
  std::vector<std::unique_ptr<Scheduler>> out;
  out.push_back(std::make_unique<RandomScheduler>());
  for (const auto d : o.pct_depths) out.push_back(std::make_unique<PctScheduler>(d));
  return out;
}

// Whether `s` fails as `kind`: exhaustively when it can be, else by the
// campaign's schedulers.
bool fails_as(const Planner& planner, const Scenario& s, Verdict kind, const CheckOptions& o) {
  const ExploreResult er = explore(planner, s, search_options(o.max_states));
  if (er.verdict != Verdict::kIncomplete) return er.verdict == kind;
  const StepMachine m(planner, s);
  const auto schedulers = make_schedulers(o);
  for (std::size_t i = 0; i < schedulers.size(); ++i) {
    for (std::size_t run = 0; run < o.runs_per_scenario; ++run) {
      if (run_scheduled(m, *schedulers[i], run_seed(o.seed, i, 0, run)).verdict == kind) return true;
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
  auto shrunk = shrink_scenario(f.scenario, [&](const Scenario& s) {
    if (progress) progress("shrink", ++judged, 0);
    return fails_as(planner, s, f.kind, o);
  });
  mc.scenario = std::move(shrunk.scenario);
  mc.scenario.name = "minimal counterexample";
  mc.shrink_steps = shrunk.accepted;
  mc.shrink_tried = shrunk.tried;
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

}  // namespace

CheckResult check_scheme(const impl::Scheme& scheme, const CheckOptions& o, const CheckProgress& progress) {
  validate(o);
  CheckResult r;
  r.scheme = scheme.name();
  r.options = o;
  const SchemePlanner planner(scheme);
  const auto report = [&](std::string_view stage, std::uint64_t done, std::uint64_t total) {
    if (progress) progress(stage, done, total);
  };
  const auto order_defect = order_finding(scheme, o);
  if (order_defect) r.findings.push_back(*order_defect);

  // Static table.
  const impl::Scheme* one[] = {&scheme};
  r.statics = analyze_static(one, o.static_tree, [&](std::uint64_t done, std::uint64_t total) {
    report("static", done, total);
  }).schemes.front();
  if (!r.statics.safe()) {
    const auto& w = r.statics.unsafe_witnesses.front();
    r.findings.push_back(fmt::format("static table: {} of {} operation pairs conflict but their plans do not; "
                                     "first {} with {}",
                                     r.statics.unsafe_pairs, r.statics.pairs, w.first.to_string(),
                                     w.second.to_string()));
  }

  // The family, exhaustively.
  std::optional<Failure> first;
  const auto family = scenario_family(o.family);
  r.family.resize(kFamilyPartCount);
  for (std::size_t p = 0; p < kFamilyPartCount; ++p) r.family[p].part = static_cast<FamilyPart>(p);
  const ExploreOptions eo = search_options(o.max_states);
  for (std::size_t i = 0; i < family.size(); ++i) {
    const auto& fs = family[i];
    auto& part = r.family[static_cast<std::size_t>(fs.part)];
    const ExploreResult er = explore(planner, fs.scenario, eo);
    ++part.scenarios;
    part.states += er.states;
    part.transitions += er.transitions;
    if (er.verdict == Verdict::kSafetyViolation) ++part.violations;
    if (er.verdict == Verdict::kDeadlock) ++part.deadlocks;
    if (er.verdict == Verdict::kIncomplete) ++part.incomplete;
    if (failed(er.verdict)) {
      if (!part.first_failure) part.first_failure = fs.scenario;
      if (!first) first = Failure{fmt::format("family ({})", to_string(fs.part)), fs.scenario, er.verdict, {}};
    }
    if ((i + 1) % 256 == 0 || i + 1 == family.size()) report("family", i + 1, family.size());
  }
  for (const auto& part : r.family) {
    if (part.violations + part.deadlocks > 0) {
      r.findings.push_back(fmt::format("family {}: {} of {} scenarios violate safety, {} deadlock; first: {}",
                                       to_string(part.part), part.violations, part.scenarios, part.deadlocks,
                                       part.first_failure->name));
    }
  }

  // The static witness, if the family missed it.
  if (!first && !r.statics.safe()) {
    const auto& w = r.statics.unsafe_witnesses.front();
    Scenario s;
    s.name = fmt::format("[{}] | [{}]", w.first.to_string(), w.second.to_string());
    s.tasks = {{w.first}, {w.second}};
    const ExploreResult er = explore(planner, s, eo);
    if (failed(er.verdict)) first = Failure{"static table", s, er.verdict, {}};
  }

  // Scheduler campaigns over larger random scenarios.
  const auto schedulers = make_schedulers(o);
  r.campaigns.resize(schedulers.size());
  r.campaigns[0].scheduler = "random";
  for (std::size_t i = 0; i < o.pct_depths.size(); ++i) {
    auto& c = r.campaigns[i + 1];
    c.depth = o.pct_depths[i];
    c.scheduler = fmt::format("pct (d={})", c.depth);
    c.min_bound = std::numeric_limits<double>::infinity();
  }
  r.campaign_scenarios.reserve(o.campaign_scenarios);
  std::optional<Failure> first_campaign;
  for (std::size_t sc = 0; sc < o.campaign_scenarios; ++sc) {
    r.campaign_scenarios.push_back(random_scenario(o.campaign, derive_seed(o.seed, sc)));
    const Scenario& scenario = r.campaign_scenarios.back();
    const StepMachine m(planner, scenario);
    for (auto& c : r.campaigns) {
      if (c.depth == 0) continue;
      const double bound = pct_bound(m.task_count(), run_length(m), c.depth);
      c.min_bound = std::min(c.min_bound, bound);
      c.max_bound = std::max(c.max_bound, bound);
    }
    for (std::size_t si = 0; si < schedulers.size(); ++si) {
      auto& c = r.campaigns[si];
      bool scenario_failed = false;
      for (std::size_t run = 0; run < o.runs_per_scenario; ++run) {
        const std::uint64_t seed = run_seed(o.seed, si, sc, run);
        auto result = run_scheduled(m, *schedulers[si], seed);
        ++c.runs;
        if (!failed(result.verdict)) continue;
        ++c.failing_runs;
        ++(result.verdict == Verdict::kSafetyViolation ? c.violations : c.deadlocks);
        scenario_failed = true;
        if (!c.first_failure) c.first_failure = CampaignFailure{sc, seed, result.verdict, result.schedule};
        if (!first_campaign) {
          first_campaign = Failure{fmt::format("{} campaign (scenario {}, run seed {})", c.scheduler, sc, seed),
                                   scenario, result.verdict, std::move(result.schedule)};
        }
      }
      if (scenario_failed) ++c.scenarios_failed;
    }
    report("campaigns", sc + 1, o.campaign_scenarios);
  }
  for (auto& c : r.campaigns) {
    if (c.depth == 0) continue;
    if (o.campaign_scenarios == 0) c.min_bound = c.max_bound = 0;
    c.worst_miss = miss_probability(c.min_bound, o.runs_per_scenario);
  }
  for (const auto& c : r.campaigns) {
    if (c.failing_runs > 0) {
      r.findings.push_back(fmt::format("{} campaign: {} of {} runs failed ({} violations, {} deadlocks) in {} of {} "
                                       "scenarios",
                                       c.scheduler, c.failing_runs, c.runs, c.violations, c.deadlocks,
                                       c.scenarios_failed, o.campaign_scenarios));
    }
  }
  if (!first) first = std::move(first_campaign);

  if (first) r.counterexample = minimize(planner, *first, o, progress);
  const bool incomplete = std::any_of(r.family.begin(), r.family.end(),
                                      [](const FamilyPartResult& p) { return p.incomplete > 0; });
  if (first || !r.statics.safe() || order_defect) {
    r.verdict = CheckVerdict::kFail;
  } else if (incomplete) {
    r.verdict = CheckVerdict::kInconclusive;
    r.findings.push_back("family: some scenarios passed the state limit; raise --max-states");
  } else {
    r.verdict = CheckVerdict::kPass;
  }
  return r;
}

}  // namespace pathlock::sim
