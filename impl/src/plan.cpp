#include "pathlock/impl/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

namespace pathlock::impl {

namespace {
constexpr std::string_view kRootText = "/";

// Sorts the steps by `order` when its first key is depth (ancestor-first,
// deepest-first, and user orders that start so), each step's depth known
// from where it was emitted: the order's own comparison counts both depths
// at every call, which was most of a two-path request's planning. Ties
// (equal depths) go to the order itself.
// An insertion sort: a plan's steps are few and mostly in order already.
// False (nothing done) for other orders and for plans beyond the buffer's
// inline room.
// REQUIRES: `out` as plan_into emitted it, each path as its chain from the
// root ("/", then each proper ancestor, then the path), so a step's depth is
// its distance from the root step that starts its chain.
bool sort_by_emitted_depth(const LockOrder& order, StepBuffer& out) {
  const auto keys = order.keys();
  const std::size_t n = out.size();
  if (keys.empty() || keys[0].by != OrderKeyKind::kDepth || n > StepBuffer::kInline) return false;
  const bool deeper_first = keys[0].direction == Direction::kDescending;
  std::size_t depth[StepBuffer::kInline];  // uninitialised: only [0, n) is read
  StepView* steps = out.begin();
  assert(n == 0 || steps[0].lock == kRootText);
  for (std::size_t i = 0; i < n; ++i) depth[i] = steps[i].lock == kRootText ? 0 : depth[i - 1] + 1;
  const auto before = [&](std::size_t da, std::string_view a, std::size_t db, std::string_view b) {
    if (da != db) return deeper_first ? da > db : da < db;
    return order.less(a, b);
  };
  for (std::size_t i = 1; i < n; ++i) {
    const StepView step = steps[i];
    const std::size_t d = depth[i];
    std::size_t j = i;
    for (; j > 0 && before(d, step.lock, depth[j - 1], steps[j - 1].lock); --j) {
      steps[j] = steps[j - 1];
      depth[j] = depth[j - 1];
    }
    steps[j] = step;
    depth[j] = d;
  }
  return true;
}
}  // namespace

void plan_into(const Scheme& scheme, const model::Request& request, StepBuffer& out) {
  out.clear();
  if (scheme.granularity() == Granularity::kGlobal) {
    // Every role of every path lands on the one lock, the root's slot.
    ModeId mode = scheme.mode_for(request.writes().empty() ? Role::kReadTarget : Role::kWriteTarget);
    const auto fold = [&](const std::vector<model::Path>& paths, Role target, Role ancestor) {
      for (const auto& p : paths) {
        mode = scheme.join(mode, scheme.mode_for(target));
        if (!p.is_root()) mode = scheme.join(mode, scheme.mode_for(ancestor));
      }
    };
    fold(request.writes(), Role::kWriteTarget, Role::kWriteAncestor);
    fold(request.reads(), Role::kReadTarget, Role::kReadAncestor);
    out.push_back({kRootText, mode});
    return;
  }
  // Each path's proper ancestors, shallowest first (prefixes of its own
  // text), then the path itself; read paths first, then write paths: the
  // request order.
  const auto add = [&](const std::vector<model::Path>& paths, Role target, Role ancestor) {
    const ModeId target_mode = scheme.mode_for(target);
    const ModeId ancestor_mode = scheme.mode_for(ancestor);
    for (const auto& p : paths) {
      const std::string_view text = p.str();
      if (!p.is_root()) {
        out.push_back(kRootText, ancestor_mode);
        // A byte loop: paths are short, and one memchr call per component costs more.
        for (std::size_t i = 1; i < text.size(); ++i) {
          if (text[i] == '/') out.push_back(text.substr(0, i), ancestor_mode);
        }
      }
      out.push_back(text, target_mode);
    }
  };
  add(request.reads(), Role::kReadTarget, Role::kReadAncestor);
  add(request.writes(), Role::kWriteTarget, Role::kWriteAncestor);
  const LockOrder& order = scheme.order();
  StepView* steps = out.begin();
  if (scheme.canonical_plans()) {
    // Sort by the order and join the modes of equal locks; the join is a
    // semilattice, so the order among equals does not matter. A one-path
    // request is emitted shallowest first: sorted already if the order puts
    // ancestors first.
    const bool one_path = request.reads().size() + request.writes().size() == 1;
    if (one_path && order.ancestry() == Ancestry::kAncestorsFirst) return;  // distinct and sorted
    if (!sort_by_emitted_depth(order, out)) {
      std::sort(out.begin(), out.end(),
                [&](const StepView& x, const StepView& y) { return order.less(x.lock, y.lock); });
    }
    std::size_t kept = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (kept > 0 && steps[kept - 1].lock == steps[i].lock) {
        steps[kept - 1].mode = scheme.join(steps[kept - 1].mode, steps[i].mode);
      } else {
        steps[kept++] = steps[i];
      }
    }
    out.truncate(kept);
    return;
  }
  // The variants (scheme.hpp: Acquisition, ModeJoining, a non-total order):
  // merge in request order, keeping first occurrences, then sort stably, so
  // locks the order ties keep their request order.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    bool merged = false;
    for (std::size_t k = 0; k < kept && !merged; ++k) {
      if (steps[k].lock != steps[i].lock) continue;
      if (scheme.joining() == ModeJoining::kJoin) {
        steps[k].mode = scheme.join(steps[k].mode, steps[i].mode);
        merged = true;
      } else {
        merged = steps[k].mode == steps[i].mode;  // the same role mode twice is one step
      }
    }
    if (!merged) steps[kept++] = steps[i];
  }
  out.truncate(kept);
  if (scheme.acquisition() == Acquisition::kInOrder) {
    std::stable_sort(out.begin(), out.end(),
                     [&](const StepView& x, const StepView& y) { return order.less(x.lock, y.lock); });
  }
}

Plan plan_for(const Scheme& scheme, const model::Request& request) {
  StepBuffer buffer;
  plan_into(scheme, request, buffer);
  std::vector<LockStep> steps;
  steps.reserve(buffer.size());
  for (const auto& s : buffer) steps.push_back({model::Path::parse(s.lock), s.mode});
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
  if (!scheme.canonical_plans()) {
    // Unsorted, or a lock more than once: compare every pair of steps. The
    // first conflict in the first plan's step order is reported.
    for (const auto& x : a) {
      for (const auto& y : b) {
        if (x.lock == y.lock && !scheme.compatible(x.mode, y.mode)) return PlanConflict{x.lock, x.mode, y.mode};
      }
    }
    return std::nullopt;
  }
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
