// Exhaustive depth-first search with state hashing, sleep sets and symmetry.

#include "dfs.hpp"

#include <memory>

#include "key_map.hpp"

namespace pathlock::sim::search {

namespace {

using State = StepMachine::State;

constexpr std::uint64_t kProgressEvery = 1U << 16;
constexpr std::uint64_t kEntryOverhead = 72;  // a table slot (24 bytes, the table a quarter to half full)

class Dfs {
 public:
  Dfs(const StepMachine& m, const ExploreOptions& o, ExploreResult& r) : m_(m), o_(o), r_(r) {}

  // Returns false to stop (a failure, or a limit).
  bool visit(const State& s, std::uint32_t sleep, std::size_t depth) {
    m_.key(s, o_.symmetry, key_, key_scratch_);
    const auto& perm = key_scratch_.pos;  // valid until the children are visited
    const auto n = static_cast<std::uint32_t>(m_.task_count());
    const auto to_canonical = [&](std::uint32_t mask) {
      std::uint32_t out = 0;
      for (std::uint32_t t = 0; t < n; ++t) {
        if ((mask >> t) & 1U) out |= 1U << perm[t];
      }
      return out;
    };
    const auto from_canonical = [&](std::uint32_t mask) {
      std::uint32_t out = 0;
      for (std::uint32_t t = 0; t < n; ++t) {
        if ((mask >> perm[t]) & 1U) out |= 1U << t;
      }
      return out;
    };
    std::uint32_t todo = 0;
    for (std::uint32_t t = 0; t < n; ++t) {
      if (m_.enabled(s, t)) todo |= 1U << t;
    }
    const std::uint32_t sleep_c = to_canonical(sleep);
    // Stored before it is admitted: a state over a limit ends the search.
    const auto [slept, fresh] = visited_.try_emplace(key_, sleep_c);
    if (fresh) {
      if (!admit(key_.size())) return false;
      if (o_.check_deadlock && m_.stuck(s)) {
        r_.verdict = Verdict::kDeadlock;
        return false;
      }
      todo &= ~sleep;
    } else {
      // Godefroid: explore only what the earlier visit slept on and we do not.
      const std::uint32_t extra = *slept & ~sleep_c;
      if (extra == 0) return true;
      *slept &= sleep_c;
      todo &= from_canonical(extra);
    }
    std::uint32_t done = 0;
    for (std::uint32_t t = 0; t < n; ++t) {
      if (((todo >> t) & 1U) == 0) continue;
      State& child = child_at(depth);
      child = s;  // copy-assignment: the buffers of this depth's child are reused
      m_.apply(child, t, effect_, true);
      ++r_.transitions;
      if (const auto failure = step_failure(m_, child, effect_, o_.check_safety ? SafetyCheck::kOn : SafetyCheck::kOff)) {
        r_.verdict = *failure;
        return false;
      }
      std::uint32_t child_sleep = 0;
      if (o_.partial_order_reduction) {
        const std::uint32_t candidates = (sleep | done) & ~(1U << t);
        for (std::uint32_t u = 0; u < n; ++u) {
          if (((candidates >> u) & 1U) && m_.enabled(s, u) && m_.independent(s, t, u)) child_sleep |= 1U << u;
        }
      }
      if (!visit(child, child_sleep, depth + 1)) return false;
      done |= 1U << t;
    }
    return true;
  }

 private:
  // Counts a new state against the limits; false when one is passed.
  bool admit(std::size_t key_size) {
    ++r_.states;
    r_.bytes += key_size + kEntryOverhead;
    if (r_.states > o_.max_states) return stop(SearchLimit::kStates);
    if (r_.bytes > o_.max_memory) return stop(SearchLimit::kMemory);
    if (o_.progress && r_.states % kProgressEvery == 0) o_.progress({r_.states, r_.transitions, r_.bytes});
    return true;
  }
  bool stop(SearchLimit limit) {
    r_.verdict = Verdict::kIncomplete;
    r_.stopped_by = limit;
    return false;
  }

  // The state after a step taken at `depth`: one per depth, reused, so a
  // step copies into warm buffers instead of allocating a state.
  State& child_at(std::size_t depth) {
    while (children_.size() <= depth) children_.push_back(std::make_unique<State>());
    return *children_[depth];
  }

  const StepMachine& m_;
  const ExploreOptions& o_;
  ExploreResult& r_;
  std::vector<std::unique_ptr<State>> children_;  // by depth
  StepMachine::Effect effect_;                    // of the step just taken; read before recursing
  std::string key_;                               // of the state being visited; read before recursing
  StepMachine::KeyScratch key_scratch_;
  KeyMap<std::uint32_t> visited_;  // key -> sleep set (canonical)
};

}  // namespace

void depth_first(const StepMachine& m, const ExploreOptions& options, ExploreResult& result) {
  Dfs dfs(m, options, result);
  const State s = m.initial();
  dfs.visit(s, 0, 0);
}

}  // namespace pathlock::sim::search
