#include "pathlock/sim/core/task_planners.hpp"

#include <fmt/format.h>

#include "pathlock/io/scheme_file.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/sim/variants.hpp"

namespace pathlock::sim {

namespace {

[[noreturn]] void bad(const std::string& why) {
  throw model::InputError(model::InputProblem::kBadParameter, why);
}

impl::Scheme resolve(const impl::Scheme& base, const SchemeChoice& choice, std::size_t task) {
  std::optional<impl::Scheme> scheme;
  if (choice.scheme_file) {
    scheme = io::load_scheme_file(*choice.scheme_file);
  } else if (choice.scheme) {
    const impl::Scheme* builtin = impl::find_builtin_scheme(*choice.scheme);
    if (builtin == nullptr) bad(fmt::format("task {}: unknown scheme \"{}\"", task, *choice.scheme));
    scheme = *builtin;
  } else {
    scheme = base;
  }
  if (choice.order) {
    const impl::LockOrder* order = find_harness_order(*choice.order);
    if (order == nullptr) bad(fmt::format("task {}: unknown order \"{}\"", task, *choice.order));
    scheme = scheme->with_order(*order, fmt::format("{}/{}", scheme->name(), *choice.order));
  }
  return *scheme;
}

void require_same_modes(const impl::Scheme& base, const impl::Scheme& s, std::size_t task) {
  const auto differ = [&](const std::string& what) {
    bad(fmt::format("task {}: scheme {} {} than the scenario's scheme {}; tasks share one lock table, so their "
                    "schemes must have the same modes and compatibility",
                    task, s.name(), what, base.name()));
  };
  if (s.mode_count() != base.mode_count()) differ("has other modes");
  for (std::uint8_t a = 0; a < s.mode_count(); ++a) {
    if (s.mode_name(impl::ModeId{a}) != base.mode_name(impl::ModeId{a})) differ("names its modes otherwise");
    for (std::uint8_t b = 0; b < s.mode_count(); ++b) {
      if (s.compatible(impl::ModeId{a}, impl::ModeId{b}) != base.compatible(impl::ModeId{a}, impl::ModeId{b})) {
        differ("has another compatibility");
      }
    }
  }
  if (s.granularity() != base.granularity()) differ("has another granularity");
}

}  // namespace

TaskPlanners::TaskPlanners(const impl::Scheme& base, const Scenario& scenario) {
  per_task_.assign(scenario.tasks.size(), nullptr);
  for (std::size_t t = 0; t < scenario.tasks.size(); ++t) {
    if (scenario.tasks[t].empty() || scenario.tasks[t].front().scheme.empty()) continue;
    auto scheme = std::make_unique<impl::Scheme>(resolve(base, scenario.tasks[t].front().scheme, t));
    require_same_modes(base, *scheme, t);
    owned_.push_back(std::make_unique<SchemePlanner>(*scheme));
    schemes_.push_back(std::move(scheme));
    per_task_[t] = owned_.back().get();
  }
}

}  // namespace pathlock::sim
