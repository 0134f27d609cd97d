#pragma once
// The simulator's one source of randomness: xoshiro256** seeded by
// SplitMix64, with the project's own distributions, so that a seed gives the
// same numbers with any standard library (std:: distributions are not
// specified bit for bit).

#include <cmath>
#include <cstdint>
#include <vector>

namespace pathlock::sim {

__extension__ typedef unsigned __int128 Uint128;  // GCC and clang; -Wpedantic-clean

// SplitMix64 step: also used to derive independent seeds from one seed.
inline std::uint64_t splitmix64(std::uint64_t& state) noexcept {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// A seed for the `index`-th stream derived from `seed`.
inline std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t index) noexcept {
  std::uint64_t s = seed ^ (0xD1B54A32D192ED03ULL * (index + 1));
  return splitmix64(s);
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed) noexcept {
    std::uint64_t s = seed;
    for (auto& word : state_) word = splitmix64(s);
  }

  std::uint64_t next() noexcept {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, n), unbiased (Lemire's multiply-and-reject). REQUIRES n > 0.
  std::uint64_t below(std::uint64_t n) noexcept {
    Uint128 m = static_cast<Uint128>(next()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<Uint128>(next()) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

  // Uniform in [0, 1), 53 bits.
  double uniform01() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Exponential with the given mean (inverse transform).
  double exponential(double mean) noexcept { return -mean * std::log1p(-uniform01()); }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4];
};

// A distribution over 0..n-1 proportional to the given weights (inverse CDF
// by binary search). REQUIRES: at least one positive weight, none negative.
class DiscreteDistribution {
 public:
  DiscreteDistribution() = default;
  explicit DiscreteDistribution(const std::vector<double>& weights) {
    double total = 0;
    cumulative_.reserve(weights.size());
    for (double w : weights) cumulative_.push_back(total += w);
    for (double& c : cumulative_) c /= total;
  }
  std::size_t operator()(Rng& rng) const noexcept {
    const double u = rng.uniform01();
    std::size_t lo = 0;
    std::size_t hi = cumulative_.size() - 1;
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      if (u < cumulative_[mid]) hi = mid; else lo = mid + 1;
    }
    return lo;
  }
  std::size_t size() const noexcept { return cumulative_.size(); }

 private:
  std::vector<double> cumulative_;
};

// Zipf over ranks 0..n-1: P(k) proportional to 1 / (k + 1)^s. s = 0 is uniform.
inline DiscreteDistribution zipf_distribution(std::size_t n, double s) {
  std::vector<double> w(n);
  for (std::size_t k = 0; k < n; ++k) w[k] = 1.0 / std::pow(static_cast<double>(k + 1), s);
  return DiscreteDistribution(w);
}

}  // namespace pathlock::sim
