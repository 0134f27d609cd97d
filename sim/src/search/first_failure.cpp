// Plain depth-first search: the first failing schedule it meets, for when
// breadth-first search is off or over its limit.

#include <memory>

#include "key_map.hpp"
#include "pathlock/sim/explorer.hpp"

namespace pathlock::sim {

namespace {

class FirstFailure {
 public:
  FirstFailure(const StepMachine& m, std::uint64_t limit) : m_(m), limit_(limit) {}
  bool visit(const StepMachine::State& s, std::size_t depth) {
    if (m_.stuck(s)) return true;
    m_.key(s, false, key_, key_scratch_);
    if (!seen_.try_emplace(key_, 0).second || seen_.size() > limit_) return false;
    while (children_.size() <= depth) children_.push_back(std::make_unique<StepMachine::State>());
    StepMachine::State& child = *children_[depth];  // reused: no state allocated per step
    for (std::uint32_t t = 0; t < m_.task_count(); ++t) {
      if (!m_.enabled(s, t)) continue;
      child = s;
      m_.apply(child, t, effect_, true);
      path_.push_back(t);
      if (step_failure(m_, child, effect_) || visit(child, depth + 1)) return true;
      path_.pop_back();
    }
    return false;
  }
  std::vector<std::uint32_t>& path() { return path_; }

 private:
  const StepMachine& m_;
  std::uint64_t limit_;
  search::KeyMap<char> seen_;  // the value is unused
  std::vector<std::uint32_t> path_;
  std::vector<std::unique_ptr<StepMachine::State>> children_;  // by depth
  StepMachine::Effect effect_;
  std::string key_;
  StepMachine::KeyScratch key_scratch_;
};

}  // namespace

std::optional<std::vector<std::uint32_t>> first_failure(const StepMachine& m, std::uint64_t limit) {
  FirstFailure search(m, limit);
  if (search.visit(m.initial(), 0)) return std::move(search.path());
  return std::nullopt;
}

}  // namespace pathlock::sim
