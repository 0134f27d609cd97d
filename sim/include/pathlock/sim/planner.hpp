#pragma once
// Where the simulator gets its lock plans. The default is impl's own planner,
// so what the harness validates is what production runs; tests plug in
// deliberately broken planners to show that the harness catches them.

#include <string>

#include "pathlock/impl/plan.hpp"
#include "pathlock/model/request.hpp"

namespace pathlock::sim {

class Planner {
 public:
  virtual ~Planner() = default;
  virtual const impl::Scheme& scheme() const = 0;
  // The steps, in the order the task acquires them.
  virtual impl::Plan plan(const model::Operation& op) const = 0;
  virtual std::string name() const { return scheme().name(); }
};

// impl::plan_for: the production planner.
class SchemePlanner final : public Planner {
 public:
  explicit SchemePlanner(const impl::Scheme& scheme) : scheme_(scheme) {}
  const impl::Scheme& scheme() const override { return scheme_; }
  impl::Plan plan(const model::Operation& op) const override { return impl::plan_for(scheme_, op.request()); }

 private:
  const impl::Scheme& scheme_;
};

}  // namespace pathlock::sim
