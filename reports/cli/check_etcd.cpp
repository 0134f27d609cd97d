// pathlock check-etcd: the etcd lock's protocol, checked exhaustively under
// faults (sim/etcd/protocol_check.hpp): the shipped design must pass every
// scenario within the bounds, and each naive variant must be caught, with a
// smallest scenario and a shortest trace. Exit 3 if the shipped design fails
// or a naive variant is not caught; 4 if a state limit stopped a search.

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/sim/etcd/protocol_check.hpp"

namespace pathlock::cli {

using namespace sim::etcd_protocol;

namespace {

nlohmann::json campaign_json(const ProtocolCampaign& c, double seconds) {
  nlohmann::json j = {{"variant", std::string(to_string(c.variant))},
                      {"expected", expected_to_pass(c.variant) ? "pass" : "caught"},
                      {"end", c.end == SearchEnd::kExhausted   ? "exhausted"
                              : c.end == SearchEnd::kViolation ? "violation"
                                                               : "state limit"},
                      {"scenarios", c.scenarios},
                      {"states", c.states},
                      {"seconds", seconds}};
  if (c.violation) {
    j["property"] = std::string(to_string(c.violation->property));
    j["what"] = c.violation->what;
    j["scenario"] = c.failing->to_string();
    j["trace"] = c.violation->trace;
  }
  return j;
}

}  // namespace

int run_check_etcd(const CheckEtcdCliOptions& options) {
  std::vector<ProtocolVariant> variants;
  for (const auto& name : options.variants) {
    if (name == "all") {
      variants = all_protocol_variants();
      continue;
    }
    const auto v = protocol_variant_from_string(name);
    if (!v) {
      std::string known;
      for (const auto k : all_protocol_variants()) known += " " + std::string(to_string(k));
      throw model::InputError(model::InputProblem::kBadParameter,
                              "unknown protocol variant '" + name + "' (known: all" + known + ")");
    }
    variants.push_back(*v);
  }
  if (variants.empty()) variants = all_protocol_variants();
  const FaultBudget faults{options.lease_expiries, options.duplicates, options.crashes, options.compactions};
  const bool terminal = isatty(fileno(stderr)) != 0;
  fmt::print("etcd protocol: {} client(s), up to {} request(s) each, over", options.clients, options.requests);
  for (const auto& r : default_protocol_pool()) fmt::print(" {}", r.to_string());
  fmt::print("; faults: {} lease expiry, {} duplicate, {} crash, {} compaction\n", faults.lease_expiries,
             faults.duplicates, faults.crashes, faults.compactions);
  int status = kExitPass;
  nlohmann::json out = nlohmann::json::array();
  for (const auto variant : variants) {
    const auto start = std::chrono::steady_clock::now();
    const auto progress = [&](std::size_t done, std::size_t total) {
      if (terminal) fmt::print(stderr, "\r  {}: scenario {}/{}", to_string(variant), done, total);
    };
    const auto c = check_protocol_campaign(variant, default_protocol_pool(), options.clients, options.requests,
                                           faults, options.max_states, progress);
    if (terminal) fmt::print(stderr, "\r\033[K");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.push_back(campaign_json(c, seconds));
    const std::string stats = fmt::format("{} scenarios, {} states, {:.1f} s", c.scenarios, c.states, seconds);
    if (c.end == SearchEnd::kStateLimit) {
      fmt::print("{}: INCONCLUSIVE: a scenario passed {} states ({}): {}\n", to_string(variant), options.max_states,
                 stats, c.failing->to_string());
      if (status == kExitPass) status = kExitInconclusive;
      continue;
    }
    const bool passed = c.end == SearchEnd::kExhausted;
    const bool as_expected = passed == expected_to_pass(variant);
    if (passed) {
      fmt::print("{}: {} ({})\n", to_string(variant), as_expected ? "passes" : "NOT CAUGHT: passes", stats);
    } else {
      fmt::print("{}: {} {}: {} ({})\n  in {}\n", to_string(variant), as_expected ? "caught:" : "FAILS:",
                 to_string(c.violation->property), c.violation->what, stats, c.failing->to_string());
      for (std::size_t i = 0; i < c.violation->trace.size(); ++i) {
        fmt::print("  {:>2}. {}\n", i + 1, c.violation->trace[i]);
      }
    }
    if (!as_expected) status = kExitUnsafe;
  }
  if (!options.json_out.empty()) {
    std::ofstream f(options.json_out);
    f << nlohmann::json{{"schema", "pathlock.check-etcd/1"}, {"variants", out}}.dump(2) << "\n";
    if (!f) throw IoFailure("cannot write " + options.json_out);
  }
  return status;
}

}  // namespace pathlock::cli
