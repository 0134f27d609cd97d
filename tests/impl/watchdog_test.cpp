// The tests' watchdog (support/watchdog.hpp) fails a hung scope instead of
// letting it hang: a thread blocked forever behind a held guard, and two
// threads in a nested acquire cycle, each run in a child process under a
// 1-second watchdog, end with the watchdog's exit status and a report that
// names the threads' requests and what each acquisition waits for. Without
// the watchdog these scopes never return. Also: a scope left in time ends
// quietly, and PATHLOCK_WATCHDOG_SECONDS sets the default limit or is
// rejected, naming the variable and the bounds.

#include <gtest/gtest.h>

#include <barrier>
#include <chrono>
#include <cstdlib>
#include <stop_token>
#include <string_view>
#include <thread>

#include "pathlock/path_lock.hpp"
#include "support/path_lock_support.hpp"
#include "support/watchdog.hpp"

namespace pathlock {
namespace {

using namespace std::chrono_literals;
using model::Path;
using testing_support::ThreadPhase;
using testing_support::Watchdog;

Path P(std::string_view s) { return Path::parse(s); }

// Short, so that each death test ends in seconds; not scaled under
// sanitizers (the scopes below hang at once).
constexpr auto kShortLimit = 1s;

// Holds write(/docs) and joins a thread that asks for read(/docs/report):
// never returns.
void blocked_forever_behind_a_held_guard() {
  PathLock lock(impl::path_rwa_joined_scheme(), PathLockOptions{.unsafe_nesting = UnsafeNesting::kThrow});
  Watchdog watchdog("a thread blocked forever behind a held guard", kShortLimit);
  watchdog.watch("lock", lock);
  const auto write = model::write(P("/docs")).request();
  const auto read = model::read(P("/docs/report")).request();
  auto& self = watchdog.thread("test thread");
  auto& reader = watchdog.thread("reader");
  auto held = lock.acquire(write);
  self.at(ThreadPhase::kHolding, write);
  std::thread t([&] {
    reader.at(ThreadPhase::kAcquiring, read);
    auto g = lock.acquire(read);
    reader.at(ThreadPhase::kDone);
  });
  t.join();
}

// Thread A holds write(/a) and asks for write(/b); thread B holds write(/b)
// and asks for write(/a). The second acquires pass a stop token (never
// requested) so that the lock's unsafe-nesting report stays out of the way.
void nested_acquire_cycle() {
  PathLock lock(impl::path_rwa_joined_scheme(), PathLockOptions{.unsafe_nesting = UnsafeNesting::kThrow});
  Watchdog watchdog("two threads in a nested acquire cycle", kShortLimit);
  watchdog.watch("lock", lock);
  const auto write_a = model::write(P("/a")).request();
  const auto write_b = model::write(P("/b")).request();
  std::barrier both_hold(2);
  std::stop_source never;
  const auto run = [&](testing_support::WatchedThread& me, const model::Request& first,
                       const model::Request& second) {
    auto outer = lock.acquire(first);
    me.note("holds " + first.to_string());
    both_hold.arrive_and_wait();
    me.at(ThreadPhase::kAcquiring, second);
    auto inner = lock.acquire(second, never.get_token());
    me.at(ThreadPhase::kDone);
  };
  auto& a = watchdog.thread("thread A");
  auto& b = watchdog.thread("thread B");
  std::thread ta([&] { run(a, write_a, write_b); });
  std::thread tb([&] { run(b, write_b, write_a); });
  ta.join();
  tb.join();
}

class WatchdogDeathTest : public ::testing::Test {
 protected:
  // Re-executes the test binary for the child: forking a process with
  // threads is unsafe.
  WatchdogDeathTest() { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(WatchdogDeathTest, FailsAThreadBlockedForeverBehindAHeldGuard) {
  EXPECT_EXIT(blocked_forever_behind_a_held_guard(), ::testing::ExitedWithCode(Watchdog::kExitCode),
              "WATCHDOG: \"a thread blocked forever behind a held guard\" still running after 1\\.[0-9] s"
              ".*test thread: holding W\\{/docs\\}"
              ".*reader: acquiring R\\{/docs/report\\}"
              ".*task [0-9]+ WAITS for /docs in RA, request R\\{/docs/report\\}"
              ".*blocked by: task [0-9]+ holding /docs in W, request W\\{/docs\\}"
              ".*failing with exit status 3");
}

TEST_F(WatchdogDeathTest, FailsTwoThreadsInANestedAcquireCycle) {
  EXPECT_EXIT(nested_acquire_cycle(), ::testing::ExitedWithCode(Watchdog::kExitCode),
              "still running after"
              ".*thread A: acquiring W\\{/b\\} \\(for [0-9.]+ s\\); holds W\\{/a\\}"
              ".*thread B: acquiring W\\{/a\\} \\(for [0-9.]+ s\\); holds W\\{/b\\}"
              ".*4 acquisitions, 2 waiting"
              ".*WAITS for /[ab] in W, request W\\{/[ab]\\}"
              ".*blocked by: task [0-9]+ holding /[ab] in W, request W\\{/[ab]\\}"
              ".*WAITS for /[ab] in W, request W\\{/[ab]\\}"
              ".*blocked by: task [0-9]+ holding /[ab] in W, request W\\{/[ab]\\}");
}

TEST(Watchdog, AScopeLeftInTimeEndsQuietly) {
  const auto start = std::chrono::steady_clock::now();
  {
    Watchdog watchdog("quick", 10s);
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s) << "leaving the scope did not stop the watchdog";
}

// Sets PATHLOCK_WATCHDOG_SECONDS for one scope.
class LimitVariable {
 public:
  explicit LimitVariable(const char* value) { setenv(Watchdog::kLimitVariable, value, 1); }
  ~LimitVariable() { unsetenv(Watchdog::kLimitVariable); }
  LimitVariable(const LimitVariable&) = delete;
  LimitVariable& operator=(const LimitVariable&) = delete;
};

TEST(Watchdog, TheDefaultLimitIsThirtySecondsTimesTheSanitizerFactorOrTheVariable) {
  unsetenv(Watchdog::kLimitVariable);
  EXPECT_EQ(Watchdog::default_limit(), Watchdog::under_sanitizer() ? 120s : 30s);
  LimitVariable set("2.5");
  EXPECT_EQ(Watchdog::default_limit(), 2500ms);
}

TEST_F(WatchdogDeathTest, ABadLimitVariableIsRejectedNamingItAndTheBounds) {
  for (const char* bad : {"", "ten", "0", "-1", "5s", "86401"}) {
    SCOPED_TRACE(bad);
    EXPECT_EXIT(
        {
          LimitVariable set(bad);
          Watchdog::default_limit();
        },
        ::testing::ExitedWithCode(Watchdog::kBadLimitExitCode),
        "watchdog: PATHLOCK_WATCHDOG_SECONDS='.*' is not a number of seconds in \\(0, 86400\\]");
  }
}

}  // namespace
}  // namespace pathlock
