#include "pathlock/sim/schedulers/pct_scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace pathlock::sim {

double pct_bound(std::size_t tasks, std::size_t steps, std::size_t depth) {
  return 1.0 / (static_cast<double>(tasks) *
                std::pow(static_cast<double>(steps), static_cast<double>(depth) - 1.0));
}

double miss_probability(double p, std::uint64_t runs) {
  // (1 - p)^runs without losing a small p to rounding.
  return std::exp(static_cast<double>(runs) * std::log1p(-p));
}

PctScheduler::PctScheduler(std::size_t depth) : depth_(depth < 1 ? 1 : depth) {}

void PctScheduler::begin(std::uint64_t seed, std::size_t tasks, std::size_t steps) {
  rng_ = Rng(seed);
  // A uniformly random permutation of the priorities d .. d+n-1 (Fisher-Yates).
  priority_.resize(tasks);
  std::iota(priority_.begin(), priority_.end(), depth_);
  for (std::size_t i = tasks; i > 1; --i) std::swap(priority_[i - 1], priority_[rng_.below(i)]);
  // d-1 distinct change points among the k steps; the i-th drawn lowers to i.
  changes_.clear();
  next_change_ = 0;
  const std::size_t wanted = std::min(depth_ - 1, steps);
  while (changes_.size() < wanted) {
    const std::size_t step = rng_.below(steps);
    const bool taken = std::any_of(changes_.begin(), changes_.end(), [&](const Change& c) { return c.step == step; });
    if (!taken) changes_.push_back({step, changes_.size() + 1});
  }
  std::sort(changes_.begin(), changes_.end(), [](const Change& a, const Change& b) { return a.step < b.step; });
}

std::uint32_t PctScheduler::pick(std::span<const std::uint32_t> runnable, std::size_t step) {
  const auto highest = [&] {
    return *std::max_element(runnable.begin(), runnable.end(),
                             [&](std::uint32_t a, std::uint32_t b) { return priority_[a] < priority_[b]; });
  };
  std::uint32_t chosen = highest();
  while (next_change_ < changes_.size() && changes_[next_change_].step <= step) {
    if (changes_[next_change_].step == step) {
      priority_[chosen] = changes_[next_change_].priority;
      chosen = highest();
    }
    ++next_change_;
  }
  return chosen;
}

}  // namespace pathlock::sim
