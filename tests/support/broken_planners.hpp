#pragma once
// Deliberately broken planners, for tests only: the harness must catch them.

#include <algorithm>

#include "pathlock/sim/planner.hpp"

namespace pathlock::testing {

// Locks only the paths the request names: no ancestor locks.
class NoAncestorsPlanner final : public sim::Planner {
 public:
  explicit NoAncestorsPlanner(const impl::Scheme& s) : scheme_(s) {}
  const impl::Scheme& scheme() const override { return scheme_; }
  std::string name() const override { return scheme_.name() + " without ancestor locks"; }
  impl::Plan plan(const model::Operation& op) const override {
    const model::Request r = op.request();
    std::vector<impl::LockStep> steps;
    for (const auto& step : impl::plan_for(scheme_, r)) {
      const auto named = [&](const std::vector<model::Path>& ps) {
        return std::find(ps.begin(), ps.end(), step.lock) != ps.end();
      };
      if (named(r.reads()) || named(r.writes())) steps.push_back(step);
    }
    return impl::Plan(std::move(steps));
  }

 private:
  const impl::Scheme& scheme_;
};

// The right locks in the right modes, acquired in request order: each path's
// ancestors and then the path, source before target, with no sorting.
class RequestOrderPlanner final : public sim::Planner {
 public:
  explicit RequestOrderPlanner(const impl::Scheme& s) : scheme_(s) {}
  const impl::Scheme& scheme() const override { return scheme_; }
  std::string name() const override { return scheme_.name() + " in request order"; }
  impl::Plan plan(const model::Operation& op) const override {
    const impl::Plan sorted = impl::plan_for(scheme_, op.request());
    std::vector<model::Path> walk;
    for (const model::Path* p : {&op.source, op.target ? &*op.target : nullptr}) {
      if (!p) continue;
      for (auto& a : p->proper_ancestors()) walk.push_back(std::move(a));
      walk.push_back(*p);
    }
    std::vector<impl::LockStep> steps;
    for (const auto& path : walk) {
      for (const auto& step : sorted) {
        const bool seen = std::any_of(steps.begin(), steps.end(), [&](const auto& s) { return s.lock == step.lock; });
        if (step.lock == path && !seen) steps.push_back(step);
      }
    }
    return impl::Plan(std::move(steps));
  }

 private:
  const impl::Scheme& scheme_;
};

}  // namespace pathlock::testing
