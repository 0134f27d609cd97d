// impl::CachedKey, a thread's copy of a path in its gate cache and plan
// memo: holds exactly the text it was given last, inline or in its buffer,
// for every length a path can have; keeps its buffer for the next long
// path; refuses (holding nothing) only what no path is.
#include <gtest/gtest.h>

#include <string>

#include "pathlock/impl/cached_key.hpp"
#include "pathlock/impl/path_hash.hpp"
#include "pathlock/model/path.hpp"

namespace pathlock::impl {
namespace {

TEST(CachedKey, HoldsNothingUntilAssigned) {
  CachedKey key;
  EXPECT_FALSE(key.holds(""));
  EXPECT_FALSE(key.holds("/"));
  EXPECT_EQ(key.heap_bytes(), 0U);
}

// Every length around the inline room and up to the longest path: the text
// is held, and a text differing in its first or last byte, or one byte
// shorter, is not.
TEST(CachedKey, HoldsExactlyItsTextAtEveryLength) {
  for (const std::size_t n : {std::size_t{1}, std::size_t{8}, CachedKey::kInlineBytes - 1, CachedKey::kInlineBytes,
                              CachedKey::kInlineBytes + 1, std::size_t{200}, CachedKey::kMaxBytes}) {
    CachedKey key;
    std::string text(n, 'a');
    text.front() = '/';
    ASSERT_EQ(key.assign(text), CachedKey::Assigned::kHeld) << n;
    EXPECT_TRUE(key.holds(text)) << n;
    EXPECT_FALSE(key.holds(std::string_view(text).substr(0, n - 1))) << n;
    std::string other = text;
    other.back() = 'b';
    EXPECT_FALSE(key.holds(other)) << n;
    other = text;
    other.front() = 'b';
    EXPECT_FALSE(key.holds(other)) << n;
    EXPECT_EQ(key.heap_bytes() != 0, n > CachedKey::kInlineBytes) << n;
  }
}

// The longest path fits: no path is left to the slow path by its length.
TEST(CachedKey, TheLongestPathFits) {
  CachedKey key;
  const std::string longest(1 + model::kMaxKeyBytes, 'k');
  ASSERT_EQ(key.assign(longest), CachedKey::Assigned::kHeld);
  EXPECT_TRUE(key.holds(longest));
}

// What the README's Memory bullet says a thread's caches may hold beyond
// their arrays: a buffer for every gate cache and memo entry, each holding
// a longest path (rounded up to a cache line), 612 KiB.
TEST(CachedKey, AThreadsLongPathBuffersAreAtMost612KiB) {
  CachedKey key;
  ASSERT_EQ(key.assign(std::string(CachedKey::kMaxBytes, 'k')), CachedKey::Assigned::kHeld);
  const std::size_t worst = (kGateCacheEntries + kPlanMemoEntries) * key.heap_bytes();
  EXPECT_EQ(worst, 612U * 1024U);
}

TEST(CachedKey, RefusesOnlyWhatNoPathIsAndThenHoldsNothing) {
  CachedKey key;
  ASSERT_EQ(key.assign("/a"), CachedKey::Assigned::kHeld);
  const std::string too_long(CachedKey::kMaxBytes + 1, 'x');
  EXPECT_EQ(key.assign(too_long), CachedKey::Assigned::kRefused);
  EXPECT_FALSE(key.holds("/a"));
  EXPECT_FALSE(key.holds(too_long));
}

// A long path's buffer is kept for the next one (rounded up to a cache
// line, grown only for a longer one), and a short path after it is inline.
TEST(CachedKey, KeepsItsBufferForTheNextLongPath) {
  CachedKey key;
  const std::string first(100, 'a');
  ASSERT_EQ(key.assign(first), CachedKey::Assigned::kHeld);
  EXPECT_EQ(key.heap_bytes(), 128U);
  const std::string second(120, 'b');
  ASSERT_EQ(key.assign(second), CachedKey::Assigned::kHeld);
  EXPECT_EQ(key.heap_bytes(), 128U) << "no new buffer";
  EXPECT_TRUE(key.holds(second));
  EXPECT_FALSE(key.holds(first));
  ASSERT_EQ(key.assign("/short"), CachedKey::Assigned::kHeld);
  EXPECT_TRUE(key.holds("/short"));
  EXPECT_FALSE(key.holds(second));
  const std::string third(300, 'c');
  ASSERT_EQ(key.assign(third), CachedKey::Assigned::kHeld);
  EXPECT_EQ(key.heap_bytes(), 320U);
  EXPECT_TRUE(key.holds(third));
}

}  // namespace
}  // namespace pathlock::impl
