#pragma once
// What the PathLock test files share: one tag type per built-in scheme (for
// typed tests and templates), a bounded wait for a state of the lock, and
// the running test's name (for a Watchdog's scope, support/watchdog.hpp).

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "pathlock/impl/scheme.hpp"

namespace pathlock::testing_support {

using namespace std::chrono_literals;

struct GlobalMutex { static const impl::Scheme& scheme() { return impl::global_mutex_scheme(); } };
struct GlobalRw { static const impl::Scheme& scheme() { return impl::global_rw_scheme(); } };
struct PathRw { static const impl::Scheme& scheme() { return impl::path_rw_scheme(); } };
struct PathRwa { static const impl::Scheme& scheme() { return impl::path_rwa_scheme(); } };
struct PathRwaJoined { static const impl::Scheme& scheme() { return impl::path_rwa_joined_scheme(); } };

// Polls `done` until it holds or `limit` passes: a test that waits for a
// state of the lock fails, instead of hanging, if the state never comes.
template <typename Done>
bool eventually(Done done, std::chrono::milliseconds limit = 5s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(100us);
  }
  return true;
}

// "Suite.Test" of the running test, for the watchdog's report.
inline std::string current_test_name() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info == nullptr ? std::string("(no test)") : std::string(info->test_suite_name()) + "." + info->name();
}

}  // namespace pathlock::testing_support
