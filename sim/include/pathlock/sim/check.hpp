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
//   verdict    pass, fail, or inconclusive.
//
// Every row of evidence states its power and gets an EvidenceStatus:
//   fail        it found a safety violation or a deadlock (whatever its power);
//   incomplete  a family scenario passed the state limit;
//   no power    it searched nothing: no scenarios, or no runs;
//   weak        it searched, but too little to count: a PCT campaign whose
//               bound on every run of its worst scenario missing a depth-d bug
//               is above kWeakMissBound, or a random campaign (which has no
//               bound) with fewer than kMinRandomRunsPerScenario runs per
//               scenario;
//   pass        it searched with power and found nothing.
// The verdict is fail if any row fails; else inconclusive if a row is
// incomplete, or if no family part and no campaign passed with power (the
// static table alone cannot pass a scheme: it judges pairs of plans, and sees
// no deadlock); else pass.
//
// On failure the first failing scenario (smallest first: family, then the
// static witness, then campaigns) is shrunk with RapidCheck's shrink
// library, to a 1-minimal one that fails the same way unless the shrinker's
// try limit stops it first (MinimalCounterexample says which), and its schedule is
// the failing one with the fewest preemptions (then fewest steps),
// replayable with `pathlock explore --schedule`.
//
// Parallel: the family's scenarios and the campaigns' scenarios are spread
// over `jobs` worker threads, each with its own schedulers; results are
// merged in index order, so a result (and the first failure) is the same
// whatever `jobs` is.
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
#include "pathlock/sim/shrink.hpp"
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
  std::size_t jobs = 0;  // worker threads; 0: std::thread::hardware_concurrency()
};

// The most worker threads check accepts.
inline constexpr std::size_t kMaxCheckJobs = 256;
// A PCT campaign is weak when the bound on every run of its worst scenario
// missing a depth-d bug is above this: it more likely misses than finds.
inline constexpr double kWeakMissBound = 0.5;
// A random campaign has no detection bound; below this many runs per
// scenario it is weak.
inline constexpr std::size_t kMinRandomRunsPerScenario = 20;

enum class EvidenceStatus { kPass, kFail, kIncomplete, kWeak, kNoPower };
std::string_view to_string(EvidenceStatus status) noexcept;
// Whether a row counts toward a pass.
inline bool has_power(EvidenceStatus s) noexcept { return s == EvidenceStatus::kPass; }

// Throws InputError(kBadParameter) naming the option out of range.
void validate(const CheckOptions& options);

struct FamilyPartResult {
  FamilyPart part = FamilyPart::kSingles;
  std::uint64_t scenarios = 0;
  std::uint64_t states = 0;
  std::uint64_t transitions = 0;
  std::uint64_t violations = 0;  // scenarios with a safety violation or a broken lock invariant
  std::uint64_t deadlocks = 0;   // scenarios with a deadlock
  std::uint64_t overtakes = 0;   // scenarios with an overtake beyond the scheme's fairness promise
  std::uint64_t incomplete = 0;  // over the state limit
  std::optional<Scenario> first_failure;
  EvidenceStatus status = EvidenceStatus::kNoPower;
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
  std::uint64_t overtakes = 0;  // runs with an overtake beyond the scheme's fairness promise
  std::uint64_t scenarios_failed = 0;
  // PCT: the per-run bound 1/(n k^(d-1)) over the campaign's scenarios, and
  // the probability bound that every run of the smallest-bound scenario
  // misses a depth-d bug.
  double min_bound = 0;
  double max_bound = 0;
  double worst_miss = 0;
  std::optional<CampaignFailure> first_failure;
  EvidenceStatus status = EvidenceStatus::kNoPower;
};

enum class CheckVerdict { kPass, kFail, kInconclusive };
std::string_view to_string(CheckVerdict verdict) noexcept;

struct MinimalCounterexample {
  std::string found_by;       // "family (pairs)", "static table", "pct campaign"
  Scenario original;          // the failing scenario as found
  Scenario scenario;          // shrunk
  std::size_t shrink_steps = 0;
  std::size_t shrink_tried = 0;
  ShrinkStop shrink_stop = ShrinkStop::kOneMinimal;  // shrink.hpp
  std::size_t shrink_limit = 0;          // the try limit
  std::size_t final_candidates = 0;      // candidates of the result, all tried and rejected (kOneMinimal)
  // Candidates rejected by the campaign schedulers because the explorer
  // passed its state limit on them: rejected by sampling, not exhaustively.
  std::size_t sampled_rejections = 0;
  std::size_t preemptions = 0;           // of the schedule below
  std::optional<std::size_t> original_preemptions;  // of the schedule as found, when one was
  Counterexample trace;                  // the replayed fewest-preemption schedule
};

struct CheckResult {
  std::string scheme;
  CheckOptions options;
  SchemeTable statics;
  EvidenceStatus static_status = EvidenceStatus::kNoPower;
  std::vector<FamilyPartResult> family;
  std::vector<Scenario> campaign_scenarios;
  std::vector<SchedulerCampaign> campaigns;
  std::optional<MinimalCounterexample> counterexample;
  CheckVerdict verdict = CheckVerdict::kPass;
  std::vector<std::string> findings;  // one line per failed kind of evidence
  // The model's two formulations disagree on a pair the check judged
  // (model_agreement.hpp): a bug in the model, not in the scheme. The
  // verdict is then fail, and no failure is reported as the scheme's.
  std::optional<std::string> model_error;
  // The scheme's fairness promise, judged on every grant of the family and
  // campaign runs (step_machine.hpp, "fairness"); kNone: measured, never judged.
  impl::Fairness fairness = impl::Fairness::kFifo;
  std::uint32_t bypass_bound = 0;
  std::string fairness_promise;  // Scheme::fairness_text()
};
// Family scenarios and campaign runs with an overtake beyond the promise.
std::uint64_t fairness_failures(const CheckResult& r);
// "promised: FIFO · checked: no overtake in 13,631,682 states and 30,000 runs".
std::string fairness_line(const CheckResult& r);

// Called now and then with (stage, done, total); stages are "static",
// "family", "campaigns", "shrink". Calls may come from worker threads, one
// at a time.
using CheckProgress = std::function<void(std::string_view, std::uint64_t, std::uint64_t)>;

// Throws InputError if the options are out of range.
CheckResult check_scheme(const impl::Scheme& scheme, const CheckOptions& options = {},
                         const CheckProgress& progress = {});

}  // namespace pathlock::sim
