#pragma once
// Scenarios and scheme variants for the model-checker tests.

#include <string>
#include <vector>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/sim/scenario.hpp"

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

// `base` with one edit to its specification, under a new name.
inline impl::Scheme variant(const impl::Scheme& base, void (*edit)(impl::SchemeSpec&), const char* name) {
  impl::SchemeSpec spec = base.spec();
  spec.name = name;
  edit(spec);
  return impl::Scheme(std::move(spec));
}

// The three broken variants of proofs/flaws.md (each breaks deadlock
// freedom's hypothesis H1), and a harmless reordering.
inline impl::Scheme request_order_variant() {
  return variant(impl::path_rwa_joined_scheme(),
                 [](impl::SchemeSpec& s) { s.acquisition = impl::Acquisition::kRequestOrder; }, "request-order");
}
inline impl::Scheme per_role_variant() {
  return variant(impl::path_rwa_joined_scheme(), [](impl::SchemeSpec& s) { s.joining = impl::ModeJoining::kPerRole; },
                 "per-role");
}
inline impl::Scheme depth_only_variant() {
  return impl::path_rwa_joined_scheme().with_order(impl::LockOrder::depth_only(), "depth-only");
}

}  // namespace pathlock::testing
