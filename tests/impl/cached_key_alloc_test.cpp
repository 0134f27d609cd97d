// impl::CachedKey and the lock's caches under allocation failure: a long
// path whose buffer cannot be allocated is not cached (the entry holds
// nothing, keeps the buffer it had), and the lock goes on granting and
// excluding, since a cache is only ever a hint of where a gate is.
#include <gtest/gtest.h>

#include <new>
#include <string>
#include <thread>

#include "allocation_failure.hpp"
#include "pathlock/impl/scheme.hpp"
#include "pathlock/impl/cached_key.hpp"
#include "pathlock/path_lock.hpp"

namespace pathlock::impl {
namespace {

using testing_support::FailAllocation;

TEST(CachedKeyAllocation, ALongPathWithoutItsBufferIsNotHeldAndTheOldBufferStays) {
  CachedKey key;
  ASSERT_EQ(key.assign("/short"), CachedKey::Assigned::kHeld);
  const std::string first(100, 'a');
  {
    FailAllocation fail(0);
    EXPECT_EQ(key.assign(first), CachedKey::Assigned::kRefused);
    EXPECT_TRUE(fail.injected());
  }
  EXPECT_FALSE(key.holds(first));
  EXPECT_FALSE(key.holds("/short")) << "a refused assignment holds nothing";
  EXPECT_EQ(key.heap_bytes(), 0U);
  ASSERT_EQ(key.assign(first), CachedKey::Assigned::kHeld);
  EXPECT_EQ(key.heap_bytes(), 128U);
  const std::string longer(300, 'b');
  {
    FailAllocation fail(0);
    EXPECT_EQ(key.assign(longer), CachedKey::Assigned::kRefused);
  }
  EXPECT_EQ(key.heap_bytes(), 128U) << "the buffer it had is kept";
  const std::string shorter(120, 'c');
  {
    FailAllocation fail(0);
    EXPECT_EQ(key.assign(shorter), CachedKey::Assigned::kHeld) << "fits the kept buffer: no allocation";
    EXPECT_FALSE(fail.injected());
  }
  EXPECT_TRUE(key.holds(shorter));
}

// Every allocation of a long path's acquires failed in turn (its entries,
// its gate records, its cache and memo buffers): each acquire is granted or
// throws std::bad_alloc, and either way the lock is left consistent, and a
// held write of the path still excludes another thread's.
TEST(CachedKeyAllocation, ALongPathsAcquiresFailingAtEachAllocationLeaveTheLockConsistent) {
  const std::string text = "/" + std::string(200, 'f') + "/" + std::string(200, 'o');
  const model::Request write = model::write(model::Path::parse(text)).request();
  for (std::size_t point = 0;; ++point) {
    PathLock lock(path_rwa_joined_scheme());
    bool injected = false;
    for (int round = 0; round < 4; ++round) {  // slow, slow (the index keeps no long path), fast, memoized
      FailAllocation fail(point);
      try {
        auto held = lock.acquire(write);
        EXPECT_EQ(held.status(), AcquireStatus::kGranted);
      } catch (const std::bad_alloc&) {
      }
      injected = injected || fail.injected();
    }
    EXPECT_EQ(lock.check_invariants(), "") << "allocation " << point;
    auto held = lock.acquire(write);
    ASSERT_EQ(held.status(), AcquireStatus::kGranted);
    AcquireStatus other = AcquireStatus::kGranted;
    std::thread([&] { other = lock.try_acquire(write).status(); }).join();
    EXPECT_EQ(other, AcquireStatus::kWouldBlock) << "allocation " << point;
    if (!injected) {
      EXPECT_GT(point, 4U) << "the acquires allocate: an entry, a record, the caches and their buffers";
      break;
    }
  }
}

}  // namespace
}  // namespace pathlock::impl
