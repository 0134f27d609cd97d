// Exhaustive depth-first search with state hashing, sleep sets and symmetry.

#include "dfs.hpp"

#include <unordered_map>

namespace pathlock::sim::search {

namespace {

using State = StepMachine::State;

constexpr std::uint64_t kProgressEvery = 1U << 16;
constexpr std::uint64_t kEntryOverhead = 72;  // hash node, string header, sleep mask

class Dfs {
 public:
  Dfs(const StepMachine& m, const ExploreOptions& o, ExploreResult& r) : m_(m), o_(o), r_(r) {}

  // Returns false to stop (a failure, or a limit).
  bool visit(State& s, std::uint32_t sleep) {
    std::vector<std::uint8_t> perm;
    std::string k = m_.key(s, o_.symmetry, &perm);
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
    auto it = visited_.find(k);
    if (it == visited_.end()) {
      if (!admit(k.size())) return false;
      visited_.emplace(std::move(k), sleep_c);
      if (o_.check_deadlock && m_.stuck(s)) {
        r_.verdict = Verdict::kDeadlock;
        return false;
      }
      todo &= ~sleep;
    } else {
      // Godefroid: explore only what the earlier visit slept on and we do not.
      const std::uint32_t extra = it->second & ~sleep_c;
      if (extra == 0) return true;
      it->second &= sleep_c;
      todo &= from_canonical(extra);
    }
    std::uint32_t done = 0;
    for (std::uint32_t t = 0; t < n; ++t) {
      if (((todo >> t) & 1U) == 0) continue;
      State child = s;
      const auto effect = m_.apply(child, t);
      ++r_.transitions;
      if (const auto failure = step_failure(m_, child, effect, o_.check_safety ? SafetyCheck::kOn : SafetyCheck::kOff)) {
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
      if (!visit(child, child_sleep)) return false;
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

  const StepMachine& m_;
  const ExploreOptions& o_;
  ExploreResult& r_;
  std::unordered_map<std::string, std::uint32_t> visited_;  // key -> sleep set (canonical); never iterated
};

}  // namespace

void depth_first(const StepMachine& m, const ExploreOptions& options, ExploreResult& result) {
  Dfs dfs(m, options, result);
  State s = m.initial();
  dfs.visit(s, 0);
}

}  // namespace pathlock::sim::search
