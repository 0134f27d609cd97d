// The state graph without any reduction: distinct states, transitions and
// maximal schedules, for showing what the reductions save.

#include <unordered_map>

#include "pathlock/sim/explorer.hpp"

namespace pathlock::sim {

namespace {

class NaiveCount {
 public:
  NaiveCount(const StepMachine& m, std::uint64_t limit) : m_(m), limit_(limit) {}
  std::optional<long double> paths(const StepMachine::State& s) {
    std::string k = m_.key(s, false);
    if (auto it = memo_.find(k); it != memo_.end()) return it->second;
    if (memo_.size() >= limit_) return std::nullopt;
    long double total = 0;
    bool any = false;
    for (std::uint32_t t = 0; t < m_.task_count(); ++t) {
      if (!m_.enabled(s, t)) continue;
      any = true;
      StepMachine::State child = s;
      const auto effect = m_.apply(child, t);
      ++transitions_;
      if (step_failure(m_, child, effect)) {  // a failure ends a schedule
        total += 1;
        continue;
      }
      const auto sub = paths(child);
      if (!sub) return std::nullopt;
      total += *sub;
    }
    if (!any) total = 1;
    memo_.emplace(std::move(k), total);
    return total;
  }
  std::uint64_t states() const { return memo_.size(); }
  std::uint64_t transitions() const { return transitions_; }

 private:
  const StepMachine& m_;
  std::uint64_t limit_;
  std::uint64_t transitions_ = 0;
  std::unordered_map<std::string, long double> memo_;  // never iterated
};

}  // namespace

std::optional<UnreducedCounts> count_unreduced(const StepMachine& m, std::uint64_t max_states) {
  NaiveCount naive(m, max_states);
  const auto paths = naive.paths(m.initial());
  if (!paths) return std::nullopt;
  return UnreducedCounts{naive.states(), naive.transitions(), *paths};
}

}  // namespace pathlock::sim
