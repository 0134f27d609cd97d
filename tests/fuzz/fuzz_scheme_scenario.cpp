// libFuzzer: scheme files and scenario files. Any input is accepted or
// rejected with an InputError; nothing else may escape. An accepted pair is
// explored (bounded), so a scheme that passes validation cannot crash the
// model checker either.
#include <cstdint>
#include <string>

#include "pathlock/impl/scheme_file.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/sim/explorer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::optional<pathlock::impl::Scheme> scheme;
  try {
    scheme = pathlock::impl::parse_scheme(text, "fuzz");
    (void)pathlock::impl::scheme_to_json(*scheme).dump();
  } catch (const pathlock::model::InputError&) {
  }
  try {
    const auto scenario = pathlock::sim::parse_scenario(text, "fuzz", "/nonexistent");
    (void)pathlock::sim::to_json(scenario).dump();
    const pathlock::sim::SchemePlanner planner(scheme ? *scheme : pathlock::impl::path_rwa_joined_scheme());
    pathlock::sim::ExploreOptions options;
    options.max_states = 2000;
    options.max_naive_states = 2000;
    (void)pathlock::sim::explore(planner, scenario, options);
  } catch (const pathlock::model::InputError&) {
  }
  return 0;
}
