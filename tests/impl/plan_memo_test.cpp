// A thread's plan memo (path_lock.hpp: PLAN MEMO): a one-path request it
// took wholly fast is taken again from the memo, with the same locks in the
// same modes; a request of another shape, a gate that closed and an entry
// that was evicted each leave the acquire to the plan, and exclusion holds
// throughout.

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <future>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "pathlock/impl/path_hash.hpp"
#include "pathlock/impl/thread_slots.hpp"
#include "pathlock/path_lock.hpp"
#include "support/fresh_thread.hpp"
#include "support/path_lock_test_peer.hpp"

namespace pathlock {
namespace {

using impl::PathLockTestPeer;
using testing_support::on_fresh_thread;
using testing_support::tried_elsewhere;

model::Path P(std::string_view text) { return model::Path::parse(text); }

// Takes `request` twice on the calling thread (the first acquire opens its
// gates, the second takes them fast), then returns how many steps its memo
// holds for it.
std::size_t taken_twice(PathLock& lock, const model::Request& request) {
  { auto g = lock.acquire(request); }
  { auto g = lock.acquire(request); }
  return PathLockTestPeer::memoized_steps(lock, request);
}

TEST(PlanMemo, AWriteTakenWhollyFastIsMemoizedAndStillExcludes) {
  PathLock lock(impl::path_rwa_joined_scheme());
  const model::Request write = model::write(P("/a/b/c")).request();
  on_fresh_thread([&] {
    { auto first = lock.acquire(write); }  // slow: opens the gates
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, write), 0U);
    { auto second = lock.acquire(write); }  // fast through the cache and index: memoized
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, write), 4U);
    ASSERT_TRUE(PathLockTestPeer::gate_cached(lock, "/a/b"));
    PathLockTestPeer::forget_cached_gate(lock, "/a/b");
    auto third = lock.acquire(write);  // from the memo
    EXPECT_FALSE(PathLockTestPeer::gate_cached(lock, "/a/b")) << "taken from the memo, which looks no gate up";
    ASSERT_EQ(third.status(), AcquireStatus::kGranted);
    EXPECT_EQ(third.lock_count(), 4U);
    EXPECT_EQ(tried_elsewhere(lock, model::read(P("/a/b/c")).request()), AcquireStatus::kWouldBlock);
    EXPECT_EQ(tried_elsewhere(lock, model::write(P("/a/b/c")).request()), AcquireStatus::kWouldBlock);
    EXPECT_EQ(tried_elsewhere(lock, model::read(P("/a/b")).request()), AcquireStatus::kWouldBlock);
    EXPECT_EQ(tried_elsewhere(lock, model::write(P("/a/b/d")).request()), AcquireStatus::kGranted);
    EXPECT_EQ(lock.check_invariants(), "");
  });
  EXPECT_EQ(lock.check_invariants(), "");
}

TEST(PlanMemo, AMemoizedReadDoesNotServeAWriteOfThePath) {
  PathLock lock(impl::path_rwa_joined_scheme());
  const model::Request read = model::read(P("/a")).request();
  const model::Request write = model::write(P("/a")).request();
  on_fresh_thread([&] {
    { auto g = lock.acquire(read); }
    { auto g = lock.acquire(read); }
    ASSERT_EQ(PathLockTestPeer::memoized_steps(lock, read), 2U);
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, write), 0U);
  });
  // Another thread reads /a: this thread's write of /a must wait.
  auto reader = lock.acquire(read);
  on_fresh_thread([&] {
    { auto g = lock.acquire(read); }  // this thread's own memo of the read
    { auto g = lock.acquire(read); }
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, read), 2U);
    EXPECT_EQ(lock.try_acquire(write).status(), AcquireStatus::kWouldBlock);
  });
}

TEST(PlanMemo, AWriteWhoseLeafIsTakenSlowlyIsNotMemoized) {
  PathLock lock(impl::path_rwa_joined_scheme());
  const model::Request read = model::read(P("/a/b")).request();
  const model::Request write = model::write(P("/a/b")).request();
  { auto g = lock.acquire(read); }  // opens /a/b's gate for reads
  // A reader holds /a/b fast: the write takes the folders fast, and its
  // take of /a/b's word sees the reader, so it waits for /a/b slowly.
  auto reader = lock.acquire(read);
  std::thread writer([&] {
    {
      auto g = lock.acquire(write);
      ASSERT_EQ(g.lock_count(), 3U);
    }
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, write), 0U);
  });
  // The writer closed the gate (at most 10 s: a writer that took /a/b fast would never).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (PathLockTestPeer::pseudo_held(lock, "/a/b") == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_NE(PathLockTestPeer::pseudo_held(lock, "/a/b"), 0U) << "the write did not wait for the reader";
  reader.release();
  writer.join();
  EXPECT_EQ(lock.check_invariants(), "");
}

TEST(PlanMemo, AHitWhoseGateClosedTakesTheRestSlowlyInOrder) {
  PathLock lock(impl::path_rwa_joined_scheme());
  const model::Request write = model::write(P("/a/b")).request();
  on_fresh_thread([&] {
    ASSERT_EQ(taken_twice(lock, write), 3U);
    {
      // A reader of /a closes the folder's gate: the memo's second step is refused.
      auto reader = lock.acquire(model::read(P("/a")).request());
      EXPECT_EQ(lock.try_acquire(write).status(), AcquireStatus::kWouldBlock);
      EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, write), 3U);  // kept: a closed gate reopens
      EXPECT_EQ(lock.check_invariants(), "");
    }
    {
      auto g = lock.acquire(write);  // /a's gate admits reads now: taken slowly, and opened for folders again
      ASSERT_EQ(g.status(), AcquireStatus::kGranted);
      EXPECT_EQ(g.lock_count(), 3U);
      EXPECT_EQ(tried_elsewhere(lock, model::read(P("/a")).request()), AcquireStatus::kWouldBlock);
    }
    auto g = lock.acquire(write);  // from the memo again
    EXPECT_EQ(g.lock_count(), 3U);
    EXPECT_EQ(tried_elsewhere(lock, model::read(P("/a/b")).request()), AcquireStatus::kWouldBlock);
  });
  EXPECT_EQ(lock.check_invariants(), "");
}

TEST(PlanMemo, AWriteWhoseGateReopenedForReadsIsMemoizedAnew) {
  // The memo's take of /a/b expects the word of its exclusive gate; a read
  // of /a/b reopens it as a shared set (which a write takes too). The
  // refused hit drops the entry, so the next write memoizes the new word:
  // kept, it would refuse every write while the gate stays shared.
  PathLock lock(impl::path_rwa_joined_scheme());
  const model::Request write = model::write(P("/a/b")).request();
  on_fresh_thread([&] {
    ASSERT_EQ(taken_twice(lock, write), 3U);
    const auto memoized = PathLockTestPeer::gate_state(lock, "/a/b");
    { auto g = lock.acquire(model::read(P("/a/b")).request()); }  // slow: the gate reopens for reads
    const auto reopened = PathLockTestPeer::gate_state(lock, "/a/b");
    ASSERT_EQ(reopened.generation, memoized.generation) << "the premise: not evicted (that drops the entry too)";
    ASSERT_NE(reopened.admitted, memoized.admitted) << "the premise: open with another set";
    ASSERT_NE(reopened.admitted, 0U);
    {
      auto g = lock.acquire(write);  // refused at /a/b's word, taken slowly there
      ASSERT_EQ(g.lock_count(), 3U);
      EXPECT_EQ(tried_elsewhere(lock, model::read(P("/a/b")).request()), AcquireStatus::kWouldBlock);
    }
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, write), 0U);
    { auto g = lock.acquire(write); }  // wholly fast, the word of the shared set taken: memoized
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, write), 3U);
    ASSERT_TRUE(PathLockTestPeer::gate_cached(lock, "/a"));
    PathLockTestPeer::forget_cached_gate(lock, "/a");
    auto g = lock.acquire(write);  // from the memo
    EXPECT_FALSE(PathLockTestPeer::gate_cached(lock, "/a")) << "taken from the memo, which looks no gate up";
    ASSERT_EQ(g.lock_count(), 3U);
    EXPECT_EQ(tried_elsewhere(lock, model::read(P("/a/b")).request()), AcquireStatus::kWouldBlock);
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, write), 3U);
  });
  EXPECT_EQ(lock.check_invariants(), "");
}

// A thread_local made after the thread's memo and before its number is
// claimed (and its gate cache made) is destroyed after the number is given
// back and the gate cache freed, and before the memo: a hit in its
// destructor must not set slots in the old number's block (the block the
// memo found), which a new thread may hold by then, since the thread has
// another number now, with no block; and its slow steps must not make the
// gate cache again (nothing would free it).
struct AcquiresAtExit {
  PathLock* lock = nullptr;
  const model::Request* request = nullptr;
  std::size_t old_block = 0;
  std::size_t* memoized = nullptr;
  std::size_t* set_in_old_block = nullptr;
  bool* cache_made_again = nullptr;
  ~AcquiresAtExit() {
    if (lock == nullptr) return;
    *memoized = PathLockTestPeer::memoized_steps(*lock, *request);
    auto g = lock->try_acquire(*request);
    *set_in_old_block = PathLockTestPeer::set_slots(*lock, old_block);
    *cache_made_again = PathLockTestPeer::gate_cached(*lock, "/a");
  }
};

TEST(PlanMemo, AnAcquireAfterTheThreadsNumberIsGivenBackUsesNeitherItsBlockNorANewCache) {
  PathLock lock(impl::path_rwa_joined_scheme());
  const model::Request write = model::write(P("/a/b")).request();
  std::size_t memoized = 0;
  std::size_t set_in_old_block = 0;
  bool cache_made_again = false;
  on_fresh_thread([&] {
    PathLockTestPeer::make_plan_memo();
    ASSERT_EQ(impl::t_thread_slot_plus_one, 0U) << "the premise: no number claimed yet";
    thread_local AcquiresAtExit at_exit;
    ASSERT_EQ(taken_twice(lock, write), 3U);  // claims the number, whose block the memo keeps
    ASSERT_TRUE(PathLockTestPeer::gate_cached(lock, "/a"));
    at_exit = {&lock, &write, impl::this_thread_slot(), &memoized, &set_in_old_block, &cache_made_again};
    ASSERT_LT(at_exit.old_block, PathLockTestPeer::gate_blocks());
  });
  EXPECT_EQ(memoized, 3U) << "the premise: the destructor ran with the memo alive";
  EXPECT_EQ(set_in_old_block, 0U) << "a slot of the number given back was set";
  EXPECT_FALSE(cache_made_again) << "a gate cache was made after the thread's destructors freed it";
  EXPECT_EQ(lock.check_invariants(), "");
}

TEST(PlanMemo, AnEvictedEntrysMemoMissesItsNewGeneration) {
  // No idle entry kept: every release evicts, and each record's new
  // generation makes the memo's (record, generation) stale.
  PathLock lock(impl::path_rwa_joined_scheme(), PathLockOptions{.shards = 1, .max_idle_locks_per_shard = 0});
  const model::Request write = model::write(P("/a/b")).request();
  on_fresh_thread([&] {
    for (int i = 0; i < 4; ++i) {
      auto g = lock.acquire(write);
      ASSERT_EQ(g.status(), AcquireStatus::kGranted);
      EXPECT_EQ(g.lock_count(), 3U);
      EXPECT_EQ(tried_elsewhere(lock, model::read(P("/a/b")).request()), AcquireStatus::kWouldBlock);
    }
  });
  EXPECT_EQ(lock.idle_locks(), 0U);
  EXPECT_EQ(lock.check_invariants(), "");
}

TEST(PlanMemo, AnEntryEvictedUnderTheMemoIsDroppedAndMemoizedAnew) {
  // One shard keeping 4 idle entries: writes of eight other paths evict /a/b's.
  PathLock lock(impl::path_rwa_joined_scheme(), PathLockOptions{.shards = 1, .max_idle_locks_per_shard = 4});
  const model::Request write = model::write(P("/a/b")).request();
  on_fresh_thread([&] {
    ASSERT_EQ(taken_twice(lock, write), 3U);
    for (int i = 0; i < 8; ++i) {
      auto g = lock.acquire(model::write(P("/z" + std::to_string(i))).request());
    }
    {
      auto g = lock.acquire(write);  // a step's record has a new generation: dropped, planned
      ASSERT_EQ(g.lock_count(), 3U);
      EXPECT_EQ(tried_elsewhere(lock, model::read(P("/a/b")).request()), AcquireStatus::kWouldBlock);
    }
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, write), 0U);
    EXPECT_EQ(taken_twice(lock, write), 3U);
  });
  EXPECT_EQ(lock.check_invariants(), "");
}

// One-path requests of any length are memoized (a long path's text in a
// buffer of its entry's own), up to the steps of a fast prefix; a request
// of two paths never is.
TEST(PlanMemo, OnlyOnePathRequestsOfAFastPrefixsStepsAreMemoized) {
  PathLock lock(impl::path_rwa_joined_scheme());
  const model::Request copy = model::copy(P("/a"), P("/b")).request();
  std::string long_text;
  while (long_text.size() <= 80) long_text += "/longer";  // 12 components: 13 steps
  std::string deep_text;
  for (int i = 0; i < 16; ++i) deep_text += "/d";  // 17 steps: more than a fast prefix takes
  const model::Request long_write = model::write(P(long_text)).request();
  const model::Request deep_write = model::write(P(deep_text)).request();
  on_fresh_thread([&] {
    for (int i = 0; i < 3; ++i) {
      { auto g = lock.acquire(copy); }
      { auto g = lock.acquire(long_write); }
      { auto g = lock.acquire(deep_write); }
    }
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, copy), 0U);
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, long_write), 13U);
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, deep_write), 0U);
  });
}

// Two long paths that differ only where memo_hash does not read (it reads a
// long path's middle and last eight bytes): one hash, one memo entry. The
// entry compares the whole text, so the second path is never served the
// first one's plan, and a hold of it still excludes.
TEST(PlanMemo, LongPathsOfOneMemoHashAreToldApartByTheirText) {
  PathLock lock(impl::path_rwa_joined_scheme());
  const std::string tail = std::string(100, 'm') + "/leaf";
  const std::string first = "/a" + tail;
  const std::string second = "/b" + tail;
  ASSERT_EQ(impl::memo_hash(first), impl::memo_hash(second));
  const model::Request write_first = model::write(P(first)).request();
  const model::Request write_second = model::write(P(second)).request();
  on_fresh_thread([&] {
    { auto g = lock.acquire(write_first); }
    ASSERT_EQ(taken_twice(lock, write_first), 3U);
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, write_second), 0U) << "the entry is the first path's";
    auto held = lock.acquire(write_second);
    ASSERT_EQ(held.status(), AcquireStatus::kGranted);
    EXPECT_EQ(tried_elsewhere(lock, write_second), AcquireStatus::kWouldBlock);
    EXPECT_EQ(tried_elsewhere(lock, write_first), AcquireStatus::kGranted);
    EXPECT_EQ(lock.check_invariants(), "");
  });
}

// An S3 key of the longest kind (a path of 1,025 bytes, its folders' keys
// long too) is taken from the memo as a short one is, and still excludes:
// an acquire of the same text from another thread waits, one of a path
// that differs in its last byte does not.
TEST(PlanMemo, ALongestPathIsMemoizedAndStillExcludes) {
  PathLock lock(impl::path_rwa_joined_scheme());
  const std::string folder = "/" + std::string(300, 'f') + "/" + std::string(300, 'g');
  std::string text = folder + "/" + std::string(1 + model::kMaxKeyBytes - folder.size() - 1, 'o');
  ASSERT_EQ(text.size(), 1 + model::kMaxKeyBytes);
  const model::Request write = model::write(P(text)).request();
  std::string sibling = text;
  sibling.back() = 'p';
  on_fresh_thread([&] {
    // Three times: the lock-wide index keeps no path this long, so the
    // second acquire finds the target's gate (open since the first) only
    // slowly, and caches it; the third is wholly fast.
    { auto g = lock.acquire(write); }
    EXPECT_EQ(taken_twice(lock, write), 4U);
    EXPECT_TRUE(PathLockTestPeer::gate_cached(lock, folder));
    EXPECT_TRUE(PathLockTestPeer::gate_cached(lock, text));
    auto held = lock.acquire(write);  // from the memo
    ASSERT_EQ(held.status(), AcquireStatus::kGranted);
    EXPECT_EQ(tried_elsewhere(lock, model::write(P(text)).request()), AcquireStatus::kWouldBlock);
    EXPECT_EQ(tried_elsewhere(lock, model::read(P(folder)).request()), AcquireStatus::kWouldBlock);
    EXPECT_EQ(tried_elsewhere(lock, model::write(P(sibling)).request()), AcquireStatus::kGranted);
    EXPECT_EQ(lock.check_invariants(), "");
  });
  EXPECT_EQ(lock.check_invariants(), "");
}

// Writes of /x0/leaf and of the first of /x1/leaf, /x2/leaf, ... that
// shares its memo entry.
std::pair<model::Request, model::Request> writes_sharing_a_memo_entry() {
  const std::size_t target = impl::plan_memo_index(impl::memo_hash("/x0/leaf"));
  for (int i = 1;; ++i) {
    const std::string candidate = "/x" + std::to_string(i) + "/leaf";
    if (impl::plan_memo_index(impl::memo_hash(candidate)) == target) {
      return {model::write(P("/x0/leaf")).request(), model::write(P(candidate)).request()};
    }
  }
}

// Two paths of one memo entry take it from each other, each the second
// time in a row it is refused it; each is still granted its own plan.
TEST(PlanMemo, PathsSharingAMemoEntryTakeItFromEachOther) {
  PathLock lock(impl::path_rwa_joined_scheme());
  const auto writes = writes_sharing_a_memo_entry();
  const model::Request& first = writes.first;
  const model::Request& second = writes.second;
  on_fresh_thread([&] {
    for (int i = 0; i < 3; ++i) {
      for (const model::Request* r : {&first, &second}) {
        auto g = lock.acquire(*r);
        ASSERT_EQ(g.lock_count(), 3U);
        EXPECT_EQ(tried_elsewhere(lock, model::read(r->writes().front()).request()), AcquireStatus::kWouldBlock);
      }
    }
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, first), 0U);  // the second took the entry last
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, second), 3U);
  });
}

// On the calling thread: `hot` memoized, then `once` taken slowly (its
// gates open) and then wholly fast, refused `hot`'s entry.
void memoize_then_refuse(PathLock& lock, const model::Request& hot, const model::Request& once) {
  for (int i = 0; i < 2; ++i) {
    auto g = lock.acquire(hot);
  }
  ASSERT_EQ(PathLockTestPeer::memoized_steps(lock, hot), 3U);
  { auto g = lock.acquire(once); }
  { auto g = lock.acquire(once); }
}

// A request taken once does not push out a hot one that shares its entry.
TEST(PlanMemo, ARequestTakenOnceLeavesAHotOnesEntry) {
  PathLock lock(impl::path_rwa_joined_scheme());
  const auto writes = writes_sharing_a_memo_entry();
  const model::Request& hot = writes.first;
  const model::Request& once = writes.second;
  on_fresh_thread([&] {
    memoize_then_refuse(lock, hot, once);
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, hot), 3U);
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, once), 0U);
  });
}

// The memo is the thread's, shared by its locks: a request refused on one
// lock has not been asked for on another.
TEST(PlanMemo, ARefusalOnOneLockDoesNotCountForAnother) {
  PathLock lock(impl::path_rwa_joined_scheme());
  PathLock other(impl::path_rwa_joined_scheme());
  const auto writes = writes_sharing_a_memo_entry();
  const model::Request& hot = writes.first;
  const model::Request& once = writes.second;
  on_fresh_thread([&] {
    memoize_then_refuse(lock, hot, once);
    { auto g = other.acquire(once); }  // slow, on the other lock
    { auto g = other.acquire(once); }  // wholly fast: asked for once there, refused
    EXPECT_EQ(PathLockTestPeer::memoized_steps(lock, hot), 3U);
    EXPECT_EQ(PathLockTestPeer::memoized_steps(other, once), 0U);
  });
}

// A write from the memo that finds its path's word taken holds it briefly
// from then on (path_lock_memo.hpp: CONTENDED WORDS): that acquire and its
// next kShortHolds hits give the word back before their slots are cleared,
// each hit that takes the word at once counts one down, and then the
// cheaper order returns. Exclusion holds in either order.
TEST(PlanMemo, AWriteThatFoundItsWordTakenHoldsItBrieflyUntilItComesAtOnceAgain) {
  PathLock lock(impl::path_rwa_joined_scheme());
  const model::Request write = model::write(P("/a/b")).request();
  std::promise<void> memoized;
  std::promise<void> held;
  std::thread writer([&] {
    EXPECT_EQ(taken_twice(lock, write), 3U);
    {
      auto hit = lock.acquire(write);
      EXPECT_FALSE(PathLockTestPeer::gives_words_back_first(hit)) << "uncontended: the cheaper order";
    }
    EXPECT_EQ(PathLockTestPeer::short_holds(lock, write), 0U);
    memoized.set_value();
    held.get_future().wait();
    {
      auto waited = lock.acquire(write);  // its hit finds the word taken, and queues at the gate
      EXPECT_EQ(waited.status(), AcquireStatus::kGranted);
      EXPECT_TRUE(PathLockTestPeer::gives_words_back_first(waited));
      EXPECT_EQ(PathLockTestPeer::short_holds(lock, write), PathLockTestPeer::kShortHolds);
      EXPECT_EQ(tried_elsewhere(lock, write), AcquireStatus::kWouldBlock);
    }
    for (unsigned left = PathLockTestPeer::kShortHolds; left > 0; --left) {
      auto hit = lock.acquire(write);
      EXPECT_TRUE(PathLockTestPeer::gives_words_back_first(hit)) << left << " brief holds left";
      EXPECT_EQ(tried_elsewhere(lock, write), AcquireStatus::kWouldBlock);
      EXPECT_EQ(tried_elsewhere(lock, model::read(P("/a")).request()), AcquireStatus::kWouldBlock);
      hit.release();
      EXPECT_EQ(PathLockTestPeer::short_holds(lock, write), left - 1);
    }
    auto hit = lock.acquire(write);
    EXPECT_FALSE(PathLockTestPeer::gives_words_back_first(hit)) << "the cheaper order, back";
  });
  memoized.get_future().wait();
  // This thread's third write is a hit of its own memo: it holds the word.
  EXPECT_EQ(taken_twice(lock, write), 3U);
  auto holder = lock.acquire(write);
  EXPECT_NE(PathLockTestPeer::taken(lock, "/a/b"), 0U) << "held by the word";
  held.set_value();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (lock.waiting_acquisitions() == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  EXPECT_EQ(lock.waiting_acquisitions(), 1U) << "the writer did not queue at the gate";
  holder.release();
  writer.join();
  EXPECT_EQ(lock.check_invariants(), "");
}

}  // namespace
}  // namespace pathlock
