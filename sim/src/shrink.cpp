#include "pathlock/sim/shrink.hpp"

#include <rapidcheck/seq/Create.h>
#include <rapidcheck/seq/Transform.h>
#include <rapidcheck/shrink/Shrink.h>

namespace pathlock::sim {
namespace {

using Task = ScenarioTask;
using Tasks = std::vector<Task>;

rc::Seq<model::Operation> operation_shrinks(const model::Operation& op) {
  std::vector<model::Operation> out;
  if (op.kind == model::OpKind::kCopy) {
    out.push_back(model::read(op.source));
    out.push_back(model::write(*op.target));
  } else if (op.kind == model::OpKind::kRename) {
    out.push_back(model::write(op.source));
    out.push_back(model::write(*op.target));
  }
  const auto shorter = [](const model::Path& p) { return p.depth() >= 2; };
  if (shorter(op.source)) {
    model::Operation o = op;
    o.source = op.source.parent();
    if (!o.target || o.source != *o.target || o.kind == model::OpKind::kCopy) out.push_back(o);
  }
  if (op.target && shorter(*op.target)) {
    model::Operation o = op;
    o.target = op.target->parent();
    if (o.source != *o.target || o.kind == model::OpKind::kCopy) out.push_back(o);
  }
  return rc::seq::fromContainer(std::move(out));
}

// A request shrinks as its operation does, keeping how it is taken; a
// request taken in a special way also shrinks to a plain one.
rc::Seq<ScenarioRequest> request_shrinks(const ScenarioRequest& request) {
  rc::Seq<ScenarioRequest> simpler_op = rc::seq::map(operation_shrinks(request.operation()), [request](model::Operation op) {
    ScenarioRequest out = request;
    static_cast<model::Operation&>(out) = std::move(op);
    return out;
  });
  if (request.acquire == AcquireStyle::kBlocking && request.withdraw == WithdrawStyle::kNever &&
      request.release == ReleaseStyle::kBeforeNext) {
    return simpler_op;
  }
  ScenarioRequest plain = request;
  plain.acquire = AcquireStyle::kBlocking;
  plain.withdraw = WithdrawStyle::kNever;
  plain.release = ReleaseStyle::kBeforeNext;
  return rc::seq::concat(rc::seq::just(std::move(plain)), std::move(simpler_op));
}

}  // namespace

std::string_view to_string(ShrinkStop stop) noexcept {
  switch (stop) {
    case ShrinkStop::kOneMinimal: return "1-minimal";
    case ShrinkStop::kTryLimit: return "stopped at the try limit";
  }
  return "?";
}

rc::Seq<Scenario> scenario_shrinks(const Scenario& scenario) {
  const auto with_tasks = [scenario](Tasks tasks) {
    Scenario s = scenario;
    s.tasks = std::move(tasks);
    return s;
  };
  const auto non_empty = [](const Tasks& tasks) {
    if (tasks.empty()) return false;
    for (const auto& t : tasks) {
      if (t.empty()) return false;
    }
    return true;
  };
  rc::Seq<Tasks> fewer_tasks = rc::shrink::removeChunks(scenario.tasks);
  rc::Seq<Tasks> fewer_requests =
      rc::shrink::eachElement(scenario.tasks, [](const Task& task) { return rc::shrink::removeChunks(task); });
  rc::Seq<Tasks> simpler_requests = rc::shrink::eachElement(scenario.tasks, [](const Task& task) {
    return rc::shrink::eachElement(task, request_shrinks);
  });
  return rc::seq::map(
      rc::seq::filter(rc::seq::concat(std::move(fewer_tasks), std::move(fewer_requests), std::move(simpler_requests)),
                      non_empty),
      with_tasks);
}

ShrinkResult shrink_scenario(Scenario scenario, const std::function<bool(const Scenario&)>& still_fails,
                             std::size_t max_tries) {
  ShrinkResult result{std::move(scenario), 0, 0};
  // Each pass tries the current scenario's candidates in order and takes the
  // first that fails; a pass that takes none has tried them all: 1-minimal.
  for (;;) {
    rc::Seq<Scenario> candidates = scenario_shrinks(result.scenario);
    std::size_t rejected = 0;
    bool took = false;
    while (auto candidate = candidates.next()) {
      if (result.tried >= max_tries) {
        result.stop = ShrinkStop::kTryLimit;
        return result;
      }
      ++result.tried;
      if (still_fails(*candidate)) {
        result.scenario = std::move(*candidate);
        ++result.accepted;
        took = true;
        break;
      }
      ++rejected;
    }
    if (!took) {
      result.stop = ShrinkStop::kOneMinimal;
      result.final_candidates = rejected;
      return result;
    }
  }
}

}  // namespace pathlock::sim
