// PathLock::describe_waits(): a thread blocked behind a holder is described
// with both requests, the lock and mode it waits for and the holder that
// blocks it; a waiter behind a gate's fast holders names them; a
// granted request is "not recorded" unless the lock tracks holders; once
// everything is released nothing is described.

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "pathlock/path_lock.hpp"
#include "support/path_lock_support.hpp"
#include "support/watchdog.hpp"

namespace pathlock {
namespace {

using namespace std::chrono_literals;
using model::Path;
using testing_support::current_test_name;
using testing_support::eventually;
using testing_support::ThreadPhase;
using testing_support::Watchdog;

Path P(std::string_view s) { return Path::parse(s); }

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// A copy that reads /docs waits behind a writer of /docs/2024, which holds
// /docs in WA (path-rwa-joined): the copy holds its earlier step, /backup.
void blocked_behind_a_writer(UnsafeNesting tracking) {
  PathLock lock(impl::path_rwa_joined_scheme(), PathLockOptions{.shards = 8, .unsafe_nesting = tracking});
  Watchdog watchdog(current_test_name());
  watchdog.watch("lock", lock);
  const auto write = model::write(P("/docs/2024")).request();
  const auto copy = model::copy(P("/docs"), P("/backup")).request();
  auto& copier = watchdog.thread("copier");
  auto holder = lock.acquire(write);
  std::thread t([&] {
    copier.at(ThreadPhase::kAcquiring, copy);
    auto g = lock.acquire(copy);
    copier.at(ThreadPhase::kDone);
  });
  ASSERT_TRUE(eventually([&] { return lock.waiting_acquisitions() == 1; })) << "the copy never queued";
  const std::string text = lock.describe_waits();
  EXPECT_TRUE(contains(text, "2 acquisitions, 1 waiting")) << text;
  EXPECT_TRUE(contains(text, "WAITS for /docs in R, request R{/docs} W{/backup}")) << text;
  EXPECT_TRUE(contains(text, "holds: W(/backup)")) << text;
  // The writer's slow grants opened the gates of / and /docs; the copy took
  // / fast (found through the lock's gate index), and its R on /docs closed
  // the latter (it had no fast holder to stand for).
  EXPECT_TRUE(contains(text, "gates: 1 open; fast holders by entry:\n  /: gate open; fast holders WA 1")) << text;
  if (tracking == UnsafeNesting::kIgnore) {
    EXPECT_TRUE(contains(text, "holding /docs in WA, request not recorded")) << text;
    EXPECT_TRUE(contains(text, "holds WA(/docs), W(/docs/2024), WA(/), request not recorded")) << text;
  } else {
    EXPECT_TRUE(contains(text, "holding /docs in WA, request W{/docs/2024}")) << text;
    EXPECT_TRUE(contains(text, "holds WA(/docs), W(/docs/2024), WA(/), request W{/docs/2024}")) << text;
  }
  holder.release();
  t.join();
  EXPECT_TRUE(contains(lock.describe_waits(), "0 acquisitions, 0 waiting")) << lock.describe_waits();
}

TEST(PathLockDescribe, AThreadBlockedBehindAHolderIsDescribedWithBothRequests) {
  blocked_behind_a_writer(UnsafeNesting::kThrow);
}

TEST(PathLockDescribe, AGrantedRequestIsNotRecordedUnlessHoldersAreTracked) {
  blocked_behind_a_writer(UnsafeNesting::kIgnore);
}

// A writer of / closes the root's gate and waits behind the pseudo holder
// that stands for a reader's fast hold of the root.
TEST(PathLockDescribe, AWaiterBehindAGatesFastHoldersNamesThem) {
  PathLock lock(impl::path_rwa_joined_scheme(), PathLockOptions{.shards = 2});
  Watchdog watchdog(current_test_name());
  watchdog.watch("lock", lock);
  // The first read opens the gates of / and /a and teaches this thread where
  // the root's is (a folder's gate is remembered at once); the second teaches
  // it /a's (a target's gate only once it is open), so the third is all fast.
  lock.read(P("/a")).release();
  lock.read(P("/a")).release();
  auto reader = lock.read(P("/a"));
  EXPECT_TRUE(contains(lock.describe_waits(), "gates: 2 open; fast holders by entry:")) << lock.describe_waits();
  EXPECT_TRUE(contains(lock.describe_waits(), "  /: gate open; fast holders RA 1\n")) << lock.describe_waits();
  EXPECT_TRUE(contains(lock.describe_waits(), "  /a: gate open; fast holders R 1\n")) << lock.describe_waits();
  const auto write_root = model::write(P("/")).request();
  std::atomic<bool> granted{false};
  std::thread writer([&] { granted = lock.acquire(write_root).owns_lock(); });
  ASSERT_TRUE(eventually([&] { return lock.waiting_acquisitions() == 1; })) << "the writer never queued";
  const std::string text = lock.describe_waits();
  EXPECT_TRUE(contains(text, "  /: gate closed; fast holders RA 1; pseudo holders for them: RA (task 0)")) << text;
  EXPECT_TRUE(contains(text, "WAITS for / in W, request W{/}")) << text;
  EXPECT_TRUE(contains(text, "blocked by: the gate's fast holders (pseudo task 0) holding / in RA")) << text;
  reader.release();
  writer.join();
  EXPECT_TRUE(granted.load());
}

// Gate slots are set by plain stores, so each live thread number has its
// own block; a thread numbered beyond the blocks never publishes a slot:
// it holds the same entries through their queues, and the lock works as
// ever. 129 threads alive at once give the last one number 128 or more.
TEST(PathLockDescribe, AThreadNumberedBeyondTheGateBlocksTakesTheSlowPath) {
  PathLock lock(impl::path_rwa_joined_scheme(), PathLockOptions{.shards = 2});
  Watchdog watchdog(current_test_name());
  watchdog.watch("lock", lock);
  constexpr std::size_t kAlive = 129;  // Gates::kBlocks + 1
  std::atomic<std::size_t> started{0};
  std::atomic<bool> done{false};
  std::vector<std::thread> others;
  others.reserve(kAlive - 1);
  for (std::size_t i = 0; i + 1 < kAlive; ++i) {
    others.emplace_back([&] {
      (void)impl::StdPlatform::thread_slot();
      started.fetch_add(1);
      while (!done.load()) std::this_thread::yield();
    });
  }
  ASSERT_TRUE(eventually([&] { return started.load() == kAlive - 1; }));
  std::string while_held;
  std::size_t slot = 0;
  std::thread last([&] {
    slot = impl::StdPlatform::thread_slot();
    for (int i = 0; i < 3; ++i) lock.read(P("/a")).release();  // enough to be all fast, with a block
    auto reader = lock.read(P("/a"));
    while_held = lock.describe_waits();
    EXPECT_TRUE(lock.write(P("/b")).owns_lock());
  });
  last.join();
  done.store(true);
  for (auto& t : others) t.join();
  EXPECT_GE(slot, std::size_t{128});
  EXPECT_TRUE(contains(while_held, "gates: 2 open; no fast holders")) << while_held;
  EXPECT_TRUE(lock.check_invariants().empty()) << lock.check_invariants();
}

}  // namespace
}  // namespace pathlock
