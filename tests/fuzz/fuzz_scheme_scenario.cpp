// libFuzzer: scheme files and scenario files. Any input is accepted or
// rejected with an InputError; nothing else may escape. An accepted pair is
// explored (bounded), so a scheme that passes validation cannot crash the
// model checker either.
//
// Work per input is capped so that the run keeps its speed as the corpus
// grows: the corpus drifts towards the largest scenarios the parser accepts
// (16 tasks of 32 requests), whose exploration to the state limit costs
// milliseconds each. Only scenarios of up to kMaxExploredRequests requests in
// all are explored, with small state limits; larger ones are still parsed,
// validated and planned (StepMachine), which is what the parsers' fuzzing is
// for. CTest also caps the input length (-max_len).
#include <cstddef>
#include <cstdint>
#include <string>

#include "pathlock/io/scheme_file.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/sim/explorer.hpp"

namespace {

constexpr std::size_t kMaxExploredRequests = 8;
constexpr std::uint64_t kMaxExploredStates = 500;

std::size_t request_count(const pathlock::sim::Scenario& scenario) {
  std::size_t n = 0;
  for (const auto& task : scenario.tasks) n += task.size();
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::optional<pathlock::impl::Scheme> scheme;
  try {
    scheme = pathlock::io::parse_scheme(text, "fuzz");
    (void)pathlock::io::scheme_to_json(*scheme).dump();
  } catch (const pathlock::model::InputError&) {
  }
  try {
    const auto scenario = pathlock::sim::parse_scenario(text, "fuzz", "/nonexistent");
    (void)pathlock::sim::to_json(scenario).dump();
    const pathlock::sim::SchemePlanner planner(scheme ? *scheme : pathlock::impl::path_rwa_joined_scheme());
    const pathlock::sim::StepMachine machine(planner, scenario);
    if (request_count(scenario) > kMaxExploredRequests) return 0;
    pathlock::sim::ExploreOptions options;
    options.max_states = kMaxExploredStates;
    options.max_naive_states = kMaxExploredStates;
    (void)pathlock::sim::explore(planner, scenario, options);
  } catch (const pathlock::model::InputError&) {
  }
  return 0;
}
