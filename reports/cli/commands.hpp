#pragma once
// Subcommands of the pathlock program that live outside main.cpp.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/sim/scenario.hpp"

namespace pathlock::cli {

inline constexpr int kExitIo = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitUnsafe = 3;
inline constexpr int kExitInconclusive = 4;

// Which scheme a scenario runs under: a built-in name or a scheme file
// (not both), else the scenario's own choice, else path-rwa-joined; then an
// order that replaces the scheme's. Throws InputError naming the problem.
struct SchemeChoice {
  std::string scheme;
  std::string scheme_file;
  std::string order;
};
impl::Scheme scheme_for_scenario(const SchemeChoice& choice, const sim::Scenario& scenario);

// Built-in schemes by name ("all": every one), then scheme files, in the
// order given; path-rwa-joined if neither names any; each under `order` if
// one is given. Throws InputError naming an unknown scheme or order.
std::vector<impl::Scheme> schemes_named(const std::vector<std::string>& schemes,
                                        const std::vector<std::string>& scheme_files, const std::string& order);

struct ExploreCliOptions {
  std::string scenario_file;
  std::string scheme;       // a built-in name; overrides the scenario's
  std::string scheme_file;  // a scheme file; overrides the scenario's
  std::string order;        // a built-in order; overrides the scheme's
  bool no_por = false;
  bool no_symmetry = false;
  bool no_naive = false;
  std::uint64_t max_states = 20'000'000;
  std::string schedule;     // "0,1,1,0": replay this schedule instead of exploring
  std::string json_out;     // write the result as JSON here
  std::string dot_out;      // write the wait-for cycle here
};

int run_explore(const ExploreCliOptions& options);

struct CheckCliOptions {
  std::vector<std::string> schemes;       // built-in names; "all" for every one
  std::vector<std::string> scheme_files;  // scheme files
  std::string order;                      // a built-in order; overrides each scheme's
  std::string family = "full";            // none | quick | full
  std::uint64_t seed = 1;
  std::size_t scenarios = 50;             // campaign scenarios
  std::size_t runs = 200;                 // runs per scenario and scheduler
  std::vector<std::size_t> pct_depths = {2, 3};
  std::uint64_t max_states = 1'000'000;   // per family scenario
  std::size_t jobs = 0;                   // worker threads; 0: every hardware thread
  std::string out = "pathlock-report/check";
  bool no_files = false;
  std::string color = "auto";
};

int run_check(const CheckCliOptions& options);

struct PromelaCliOptions {
  std::string scenario_file;
  SchemeChoice choice;
  std::string out;  // the model's file; stdout if empty
};
int run_promela(const PromelaCliOptions& options);

struct CrosscheckCliOptions {
  std::vector<std::string> scenarios;     // scenario files
  std::vector<std::string> schemes;       // built-in names; "all"
  std::vector<std::string> scheme_files;
  std::string spin = "spin";
  std::string cc = "gcc";
  std::string work;                       // folder for models and pan; a temporary one if empty
  std::string out;                        // write the comparison table (Markdown) here
  std::uint64_t max_states = 2'000'000;
};
int run_crosscheck(const CrosscheckCliOptions& options);

}  // namespace pathlock::cli
