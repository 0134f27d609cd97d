#pragma once
// `pathlock check`: one verdict on a scheme (built-in or from a scheme file),
// drawn from four kinds of evidence, cheapest first:
//
//   static     the scheme's table over every pair of operations of a
//              depth-3 tree (StaticAnalysis): unsafe pairs are a failure;
//   family     every interleaving (explore()) of every scenario of the
//              generated family (family.hpp): 1-3 tasks over paths to
//              depth 3, rename and copy into and out of their own subtree;
//   campaigns  random scenarios of 3-6 tasks and 1-3 requests each, beyond
//              exhaustive reach, each run many times under RandomScheduler
//              and under PctScheduler (with its per-run detection bound);
//   verdict    pass, fail, or inconclusive (a family scenario over the
//              state limit and no failure).
//
// On failure the first failing scenario (smallest first: family, then the
// static witness, then campaigns) is shrunk with RapidCheck's shrink
// library to a 1-minimal one that fails the same way, and its schedule is
// the failing one with the fewest preemptions (then fewest steps),
// replayable with `pathlock explore --schedule`.
//
// Deterministic: the seed fixes the campaigns; nothing reads a clock.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/sim/explorer.hpp"
#include "pathlock/sim/family.hpp"
#include "pathlock/sim/static_table.hpp"

namespace pathlock::sim {

struct CheckOptions {
  FamilySize family = FamilySize::kFull;
  std::uint64_t seed = 1;
  std::size_t campaign_scenarios = 50;
  std::size_t runs_per_scenario = 200;  // per scheduler
  std::vector<std::size_t> pct_depths = {2, 3};  // one PCT campaign per bug depth d
  RandomScenarioSpec campaign;
  std::uint64_t max_states = 1'000'000;  // per family scenario
  TreeSpec static_tree{3, 2};
};

// Throws InputError(kBadParameter) naming the option out of range.
void validate(const CheckOptions& options);

struct FamilyPartResult {
  FamilyPart part = FamilyPart::kSingles;
  std::uint64_t scenarios = 0;
  std::uint64_t states = 0;
  std::uint64_t transitions = 0;
  std::uint64_t violations = 0;  // scenarios with a safety violation
  std::uint64_t deadlocks = 0;   // scenarios with a deadlock
  std::uint64_t incomplete = 0;  // over the state limit
  std::optional<Scenario> first_failure;
};

struct CampaignFailure {
  std::size_t scenario = 0;     // index in the campaign
  std::uint64_t run_seed = 0;   // the scheduler's seed for the failing run
  Verdict kind = Verdict::kSafetyViolation;
  std::vector<std::uint32_t> schedule;
};

struct SchedulerCampaign {
  std::string scheduler;  // "random", "pct (d=2)"
  std::size_t depth = 0;  // PCT's d; 0 for random
  std::uint64_t runs = 0;
  std::uint64_t failing_runs = 0;
  std::uint64_t violations = 0;
  std::uint64_t deadlocks = 0;
  std::uint64_t scenarios_failed = 0;
  // PCT: the per-run bound 1/(n k^(d-1)) over the campaign's scenarios, and
  // the probability bound that every run of the smallest-bound scenario
  // misses a depth-d bug.
  double min_bound = 0;
  double max_bound = 0;
  double worst_miss = 0;
  std::optional<CampaignFailure> first_failure;
};

enum class CheckVerdict { kPass, kFail, kInconclusive };
std::string_view to_string(CheckVerdict verdict) noexcept;

struct MinimalCounterexample {
  std::string found_by;       // "family (pairs)", "static table", "pct campaign"
  Scenario original;          // the failing scenario as found
  Scenario scenario;          // shrunk
  std::size_t shrink_steps = 0;
  std::size_t shrink_tried = 0;
  std::size_t preemptions = 0;           // of the schedule below
  std::optional<std::size_t> original_preemptions;  // of the schedule as found, when one was
  Counterexample trace;                  // the replayed fewest-preemption schedule
};

struct CheckResult {
  std::string scheme;
  CheckOptions options;
  SchemeTable statics;
  std::vector<FamilyPartResult> family;
  std::vector<Scenario> campaign_scenarios;
  std::vector<SchedulerCampaign> campaigns;
  std::optional<MinimalCounterexample> counterexample;
  CheckVerdict verdict = CheckVerdict::kPass;
  std::vector<std::string> findings;  // one line per failed kind of evidence
};

// Called now and then with (stage, done, total); stages are "static",
// "family", "campaigns", "shrink".
using CheckProgress = std::function<void(std::string_view, std::uint64_t, std::uint64_t)>;

// Throws InputError if the options are out of range.
CheckResult check_scheme(const impl::Scheme& scheme, const CheckOptions& options = {},
                         const CheckProgress& progress = {});

}  // namespace pathlock::sim
