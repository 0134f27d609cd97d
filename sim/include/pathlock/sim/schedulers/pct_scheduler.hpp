#pragma once
// PctScheduler: probabilistic concurrency testing (Burckhardt, Kothari,
// Musuvathi, Nagarakatte, "A Randomized Scheduler with Probabilistic
// Guarantees of Finding Bugs", ASPLOS 2010).
//
// For a run of n tasks and k steps, with bug depth d:
//   - the tasks get distinct random priorities d, d+1, ..., d+n-1;
//   - d-1 distinct change points k_1..k_{d-1} are drawn uniformly among the
//     k steps (k_i is the i-th draw, not the i-th smallest);
//   - every step runs the runnable task of highest priority; at step k_i the
//     task about to run drops to priority i (below every initial priority),
//     and the choice is made again.
// Theorem (ibid., Thm 7): for any bug of depth d (d ordering constraints
// between steps suffice to expose it), one run finds it with probability
// at least 1 / (n k^(d-1)). A deadlock between two tasks that each take
// their first lock before the other's second has depth 2; a violation that
// needs one task to pass between another's steps, depth 2 or 3.
//
// Deterministic from the seed.

#include <vector>

#include "pathlock/sim/rng.hpp"
#include "pathlock/sim/scheduler.hpp"

namespace pathlock::sim {

// The per-run detection probability bound 1 / (n k^(d-1)). REQUIRES: n, k, d >= 1.
double pct_bound(std::size_t tasks, std::size_t steps, std::size_t depth);

// The probability that `runs` independent runs, each detecting with
// probability at least `p`, all miss: at most (1 - p)^runs.
double miss_probability(double p, std::uint64_t runs);

class PctScheduler final : public Scheduler {
 public:
  // REQUIRES: depth >= 1.
  explicit PctScheduler(std::size_t depth);
  std::string_view name() const noexcept override { return "pct"; }
  void begin(std::uint64_t seed, std::size_t tasks, std::size_t steps) override;
  std::uint32_t pick(std::span<const std::uint32_t> runnable, std::size_t step) override;
  std::size_t depth() const noexcept { return depth_; }

 private:
  std::size_t depth_;
  Rng rng_{0};
  std::vector<std::size_t> priority_;       // by task; higher runs first
  struct Change {
    std::size_t step;
    std::size_t priority;
  };
  std::vector<Change> changes_;  // by step, ascending
  std::size_t next_change_ = 0;
};

}  // namespace pathlock::sim
