// pathlock check: one verdict on a scheme (sim/check.hpp).

#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "pathlock/io/scheme_file.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/reports/check.hpp"
#include "pathlock/sim/check.hpp"
#include "terminal.hpp"

namespace pathlock::cli {
namespace {

using model::InputError;
using model::InputProblem;

}  // namespace

int run_check(const CheckCliOptions& o) {
  sim::CheckOptions options;
  if (o.family == "none") {
    options.family = sim::FamilySize::kNone;
  } else if (o.family == "quick") {
    options.family = sim::FamilySize::kQuick;
  } else if (o.family == "full") {
    options.family = sim::FamilySize::kFull;
  } else {
    throw InputError(InputProblem::kBadParameter,
                     fmt::format("--family must be none, quick or full, not \"{}\"", o.family));
  }
  options.seed = o.seed;
  options.campaign_scenarios = o.scenarios;
  options.runs_per_scenario = o.runs;
  options.pct_depths = o.pct_depths;
  options.max_states = o.max_states;
  options.jobs = o.jobs;
  sim::validate(options);
  const std::vector<impl::Scheme> schemes = schemes_named(o.schemes, o.scheme_files, o.order);

  std::vector<sim::CheckResult> results;
  results.reserve(schemes.size());
  for (const auto& scheme : schemes) {
    std::cerr << fmt::format("check: {} ...\n", scheme.name());
    ProgressBar bar("");
    results.push_back(sim::check_scheme(scheme, options, [&](std::string_view stage, std::uint64_t done,
                                                             std::uint64_t total) {
      bar.stage(std::string(stage));
      bar.update(done, total);
    }));
  }
  std::vector<reports::CheckedScheme> checked;
  for (std::size_t i = 0; i < schemes.size(); ++i) checked.push_back({&schemes[i], &results[i]});
  std::cout << reports::render_terminal(reports::check_document(checked, reports::Pictures::kSkip), color_for(o.color));
  if (!o.no_files) {
    const auto files = reports::write_check(checked, o.out);
    std::cout << fmt::format("wrote {} files to {}\n", files.size(), o.out);
    for (const auto& r : results) {
      if (r.counterexample) std::cout << fmt::format("replay {}: {}\n", r.scheme, reports::replay_command(r, o.out));
    }
  }
  bool failed = false;
  bool inconclusive = false;
  for (const auto& r : results) {
    failed = failed || r.verdict == sim::CheckVerdict::kFail;
    inconclusive = inconclusive || r.verdict == sim::CheckVerdict::kInconclusive;
  }
  return failed ? kExitUnsafe : inconclusive ? kExitInconclusive : 0;
}

}  // namespace pathlock::cli
