#pragma once
// A clock for a test platform (impl/platform.hpp: P::Clock): nanosecond
// ticks read from `Now` (a default-constructible callable returning them),
// with a time_point type of its own, so that no code can mix it with
// std::chrono's clocks.

#include <chrono>

namespace pathlock::testing_support {

template <typename Now>
struct TestClock {
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<TestClock>;
  static constexpr bool is_steady = true;
  static time_point now() noexcept { return time_point(duration(Now{}())); }
};

}  // namespace pathlock::testing_support
