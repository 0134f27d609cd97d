#pragma once
// Scenarios and scheme variants for the model-checker tests.

#include <string>
#include <vector>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/sim/scenario.hpp"
#include "pathlock/sim/variants.hpp"

namespace pathlock::testing {

// {{"copy /a /b", "read /a"}, {"write /b"}}: one list of requests per task.
inline sim::Scenario scenario_of(const std::vector<std::vector<std::string>>& tasks) {
  sim::Scenario s;
  s.name = "test";
  for (const auto& task : tasks) {
    std::vector<model::Operation> ops;
    for (const auto& text : task) ops.push_back(sim::parse_operation_text(text, "test"));
    s.tasks.emplace_back(ops.begin(), ops.end());
  }
  return s;
}

// The verification kit's broken variants (sim/variants.hpp), by their old names.
using sim::depth_only_variant;
using sim::per_role_variant;
using sim::request_order_variant;
using sim::scheme_variant;

}  // namespace pathlock::testing
