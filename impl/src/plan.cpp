#include "pathlock/impl/plan.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace pathlock::impl {

Plan plan_for(const Scheme& scheme, const model::Request& request) {
  if (scheme.granularity() == Granularity::kGlobal) {
    // Every role of every path lands on the one lock.
    ModeId mode = scheme.mode_for(request.writes().empty() ? Role::kReadTarget : Role::kWriteTarget);
    const auto fold = [&](const std::vector<model::Path>& paths, Role target, Role ancestor) {
      for (const auto& p : paths) {
        mode = scheme.join(mode, scheme.mode_for(target));
        if (!p.is_root()) mode = scheme.join(mode, scheme.mode_for(ancestor));
      }
    };
    fold(request.writes(), Role::kWriteTarget, Role::kWriteAncestor);
    fold(request.reads(), Role::kReadTarget, Role::kReadAncestor);
    return Plan({LockStep{model::Path::root(), mode}});
  }

  std::vector<LockStep> entries;
  const auto add = [&](const std::vector<model::Path>& paths, Role target, Role ancestor) {
    for (const auto& p : paths) {
      entries.push_back({p, scheme.mode_for(target)});
      for (auto& a : p.proper_ancestors()) entries.push_back({std::move(a), scheme.mode_for(ancestor)});
    }
  };
  add(request.writes(), Role::kWriteTarget, Role::kWriteAncestor);
  add(request.reads(), Role::kReadTarget, Role::kReadAncestor);

  const LockOrder& order = scheme.order();
  std::stable_sort(entries.begin(), entries.end(),
                   [&](const LockStep& x, const LockStep& y) { return order.less(x.lock, y.lock); });
  std::vector<LockStep> steps;
  steps.reserve(entries.size());
  for (auto& e : entries) {
    if (!steps.empty() && steps.back().lock == e.lock) {
      steps.back().mode = scheme.join(steps.back().mode, e.mode);
    } else {
      steps.push_back(std::move(e));
    }
  }
  return Plan(std::move(steps));
}

std::string to_string(const Scheme& scheme, const Plan& plan) {
  std::string out;
  for (const auto& step : plan) {
    if (!out.empty()) out += ' ';
    out += fmt::format("{}({})", scheme.mode_name(step.mode), scheme.lock_label(step.lock));
  }
  return out;
}

std::optional<PlanConflict> plans_conflict(const Scheme& scheme, const Plan& a, const Plan& b) {
  // Both plans are sorted by the scheme's order: merge them.
  const LockOrder& order = scheme.order();
  auto i = a.begin();
  auto j = b.begin();
  while (i != a.end() && j != b.end()) {
    const auto c = order.compare(i->lock, j->lock);
    if (c < 0) {
      ++i;
    } else if (c > 0) {
      ++j;
    } else {
      if (!scheme.compatible(i->mode, j->mode)) return PlanConflict{i->lock, i->mode, j->mode};
      ++i;
      ++j;
    }
  }
  return std::nullopt;
}

}  // namespace pathlock::impl
