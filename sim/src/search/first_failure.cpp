// Plain depth-first search: the first failing schedule it meets, for when
// breadth-first search is off or over its limit.

#include <unordered_set>

#include "pathlock/sim/explorer.hpp"

namespace pathlock::sim {

namespace {

class FirstFailure {
 public:
  FirstFailure(const StepMachine& m, std::uint64_t limit) : m_(m), limit_(limit) {}
  bool visit(const StepMachine::State& s) {
    if (m_.stuck(s)) return true;
    if (!seen_.insert(m_.key(s, false)).second || seen_.size() > limit_) return false;
    for (std::uint32_t t = 0; t < m_.task_count(); ++t) {
      if (!m_.enabled(s, t)) continue;
      StepMachine::State child = s;
      const auto effect = m_.apply(child, t);
      path_.push_back(t);
      if (step_failure(m_, child, effect) || visit(child)) return true;
      path_.pop_back();
    }
    return false;
  }
  std::vector<std::uint32_t>& path() { return path_; }

 private:
  const StepMachine& m_;
  std::uint64_t limit_;
  std::unordered_set<std::string> seen_;  // never iterated
  std::vector<std::uint32_t> path_;
};

}  // namespace

std::optional<std::vector<std::uint32_t>> first_failure(const StepMachine& m, std::uint64_t limit) {
  FirstFailure search(m, limit);
  if (search.visit(m.initial())) return std::move(search.path());
  return std::nullopt;
}

}  // namespace pathlock::sim
