// What a thread's gate cache keeps (path_lock.hpp: GATES): a folder's gate
// at once; a target's only when its gate was open already and the cache
// entry is free or the target asks for it twice in a row. The cache is the
// level before the lock-wide gate index; these tests fill a target's index
// bucket with other paths' open gates first, so that the index never finds
// it and every step of theirs asks the cache.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <thread>

#include "pathlock/impl/path_hash.hpp"
#include "pathlock/path_lock.hpp"
#include "support/path_lock_test_peer.hpp"

namespace pathlock {
namespace {

using impl::PathLockTestPeer;

model::Path P(std::string_view text) { return model::Path::parse(text); }

// One shard of 64 idle entries: an index of 128 slots.
PathLockOptions small_index() { return PathLockOptions{.shards = 1, .max_idle_locks_per_shard = 64}; }

// Opens the gates of top-level paths of `path`'s index bucket until the
// bucket has no room: `path`'s gate, opened later, is never indexed.
void crowd_out_of_index(PathLock& lock, std::string_view path) {
  const auto bucket = [&](std::string_view p) { return PathLockTestPeer::index_bucket(lock, p); };
  std::size_t opened = 0;
  for (int i = 0; opened < PathLockTestPeer::index_ways(lock); ++i) {
    const std::string crowd = "/crowd" + std::to_string(i);
    if (bucket(crowd) != bucket(path)) continue;
    (void)lock.read(P(crowd));
    ++opened;
  }
}

// A top-level path whose gate cache entry is `folder`'s (kSameCacheEntry)
// or not the root's (kFreeCacheEntry), crowded out of the index.
enum class CacheEntry : std::uint8_t { kSameCacheEntry, kFreeCacheEntry };
std::string target_for(PathLock& lock, std::string_view folder, CacheEntry entry) {
  const auto cache_index = [](std::string_view p) { return impl::gate_cache_index(impl::path_hash(p)); };
  for (int i = 0;; ++i) {
    std::string candidate = "/leaf" + std::to_string(i);
    const bool same = cache_index(candidate) == cache_index(folder);
    if (entry == CacheEntry::kSameCacheEntry ? same : (!same && cache_index(candidate) != cache_index("/"))) {
      crowd_out_of_index(lock, candidate);
      return candidate;
    }
  }
}

// Runs `body` on a thread of its own: its gate cache starts empty.
template <typename Body>
void on_fresh_thread(Body body) {
  std::thread t(body);
  t.join();
}

TEST(GateCache, ALeafReadOnceAmongManyLeavesTheFolderCached) {
  PathLock lock(impl::path_rwa_joined_scheme(), small_index());
  const std::string leaf = target_for(lock, "/f", CacheEntry::kSameCacheEntry);
  on_fresh_thread([&] {
    (void)lock.read(P("/f/x"));  // /f: a folder, remembered at once
    EXPECT_TRUE(PathLockTestPeer::gate_cached(lock, "/f"));
    (void)lock.read(P(leaf));  // opens the leaf's gate
    (void)lock.read(P(leaf));  // its gate open: a candidate, refused once
    EXPECT_TRUE(PathLockTestPeer::gate_cached(lock, "/f")) << "the folder /f is still in the cache, not " << leaf;
    EXPECT_FALSE(PathLockTestPeer::gate_cached(lock, leaf));
  });
}

TEST(GateCache, ALeafAskedForTwiceInARowIsRemembered) {
  PathLock lock(impl::path_rwa_joined_scheme(), small_index());
  const std::string leaf = target_for(lock, "/f", CacheEntry::kSameCacheEntry);
  on_fresh_thread([&] {
    (void)lock.read(P("/f/x"));
    (void)lock.read(P(leaf));  // opens the leaf's gate
    (void)lock.read(P(leaf));  // refused once
    (void)lock.read(P(leaf));  // asked again: remembered in /f's place
    EXPECT_TRUE(PathLockTestPeer::gate_cached(lock, leaf)) << leaf << " is read fast";
    EXPECT_FALSE(PathLockTestPeer::gate_cached(lock, "/f")) << "/f gave its entry to the hot leaf";
  });
}

// The cache is the thread's, shared by its locks: a leaf refused on one
// lock has not been asked for on another.
TEST(GateCache, ARefusalOnOneLockDoesNotCountForAnother) {
  PathLock lock(impl::path_rwa_joined_scheme(), small_index());
  PathLock other(impl::path_rwa_joined_scheme(), small_index());
  const std::string leaf = target_for(lock, "/f", CacheEntry::kSameCacheEntry);
  crowd_out_of_index(other, leaf);
  on_fresh_thread([&] {
    (void)lock.read(P("/f/x"));
    (void)lock.read(P(leaf));   // opens the leaf's gate
    (void)lock.read(P(leaf));   // refused once
    (void)other.read(P(leaf));  // opens its gate on the other lock
    (void)other.read(P(leaf));  // asked for once there: refused
    EXPECT_TRUE(PathLockTestPeer::gate_cached(lock, "/f")) << "/f kept its entry";
    EXPECT_FALSE(PathLockTestPeer::gate_cached(other, leaf));
  });
}

TEST(GateCache, ALeafInAFreeEntryIsRememberedOnceItsGateIsOpen) {
  PathLock lock(impl::path_rwa_joined_scheme(), small_index());
  const std::string hot = target_for(lock, "/", CacheEntry::kFreeCacheEntry);
  on_fresh_thread([&] {
    (void)lock.read(P(hot));  // opens its gate
    EXPECT_FALSE(PathLockTestPeer::gate_cached(lock, hot)) << "its gate was closed when it was taken";
    (void)lock.read(P(hot));  // the gate open, the entry free: remembered
    EXPECT_TRUE(PathLockTestPeer::gate_cached(lock, hot));
  });
}

// A folder's gate found through the index joins the thread's cache.
TEST(GateCache, AFolderFoundThroughTheIndexIsRemembered) {
  PathLock lock(impl::path_rwa_joined_scheme(), small_index());
  (void)lock.read(P("/f/x"));  // this thread opens the gates of / and /f
  on_fresh_thread([&] {
    EXPECT_FALSE(PathLockTestPeer::gate_cached(lock, "/f"));
    (void)lock.read(P("/f/y"));
    EXPECT_TRUE(PathLockTestPeer::gate_cached(lock, "/f"));
  });
}

// A target found through the index joins the thread's cache by the same
// admission: at once where its cache entry is free.
TEST(GateCache, ATargetFoundThroughTheIndexInAFreeEntryIsRemembered) {
  PathLock lock(impl::path_rwa_joined_scheme(), small_index());
  (void)lock.read(P("/g/leaf"));  // this thread opens the leaf's gate
  on_fresh_thread([&] {
    (void)lock.read(P("/g/leaf"));  // found through the index; its cache entry free
    EXPECT_TRUE(PathLockTestPeer::gate_cached(lock, "/g/leaf"));
  });
}

}  // namespace
}  // namespace pathlock
