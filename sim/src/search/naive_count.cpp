// The state graph without any reduction: distinct states, transitions and
// maximal schedules, for showing what the reductions save.

#include <memory>

#include "key_map.hpp"
#include "pathlock/sim/explorer.hpp"

namespace pathlock::sim {

namespace {

class NaiveCount {
 public:
  NaiveCount(const StepMachine& m, std::uint64_t limit) : m_(m), limit_(limit) {}
  std::optional<long double> paths(const StepMachine::State& s, std::size_t depth) {
    while (levels_.size() <= depth) levels_.push_back(std::make_unique<Level>());
    Level& level = *levels_[depth];  // reused: no state or key allocated per step
    m_.key(s, false, level.key, key_scratch_);
    if (const long double* known = memo_.find(level.key)) return *known;
    if (memo_.size() >= limit_) return std::nullopt;
    long double total = 0;
    bool any = false;
    for (std::uint32_t t = 0; t < m_.task_count(); ++t) {
      if (!m_.enabled(s, t)) continue;
      any = true;
      level.child = s;
      m_.apply(level.child, t, effect_, true);
      ++transitions_;
      if (step_failure(m_, level.child, effect_)) {  // a failure ends a schedule
        total += 1;
        continue;
      }
      const auto sub = paths(level.child, depth + 1);
      if (!sub) return std::nullopt;
      total += *sub;
    }
    if (!any) total = 1;
    memo_.try_emplace(level.key, total);
    return total;
  }
  std::uint64_t states() const { return memo_.size(); }
  std::uint64_t transitions() const { return transitions_; }

 private:
  struct Level {
    StepMachine::State child;
    std::string key;  // of the state visited at this depth, stored after its children
  };
  const StepMachine& m_;
  std::uint64_t limit_;
  std::uint64_t transitions_ = 0;
  search::KeyMap<long double> memo_;
  std::vector<std::unique_ptr<Level>> levels_;  // by depth
  StepMachine::Effect effect_;                  // of the step just taken; read before recursing
  StepMachine::KeyScratch key_scratch_;
};

}  // namespace

std::optional<UnreducedCounts> count_unreduced(const StepMachine& m, std::uint64_t max_states) {
  NaiveCount naive(m, max_states);
  const auto paths = naive.paths(m.initial(), 0);
  if (!paths) return std::nullopt;
  return UnreducedCounts{naive.states(), naive.transitions(), *paths};
}

}  // namespace pathlock::sim
