// impl::path_hash, which picks a path's shard (high bits), bucket (low
// bits) and gate-cache entry (modulo kGateCacheEntries): a pure function of
// the text, and spread evenly over each of those for the paths of a tree,
// whose texts differ in a few bytes (siblings, prefixes, 8-byte boundaries).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "pathlock/impl/path_hash.hpp"

namespace pathlock::impl {
namespace {

// Every path of an 8x8x8x8 tree and its folders: 4,680 texts.
std::vector<std::string> tree_paths() {
  std::vector<std::string> out{"/"};
  for (int a = 0; a < 8; ++a) {
    const std::string pa = "/d" + std::to_string(a);
    out.push_back(pa);
    for (int b = 0; b < 8; ++b) {
      const std::string pb = pa + "/d" + std::to_string(b);
      out.push_back(pb);
      for (int c = 0; c < 8; ++c) {
        const std::string pc = pb + "/d" + std::to_string(c);
        out.push_back(pc);
        for (int d = 0; d < 8; ++d) out.push_back(pc + "/o" + std::to_string(d));
      }
    }
  }
  return out;
}

// The fullest of `buckets` buckets, as a multiple of the mean.
double worst_over_mean(const std::vector<std::uint64_t>& keys, std::size_t buckets) {
  std::vector<std::size_t> n(buckets, 0);
  for (const std::uint64_t k : keys) ++n[k % buckets];
  const double mean = static_cast<double>(keys.size()) / static_cast<double>(buckets);
  return static_cast<double>(*std::max_element(n.begin(), n.end())) / mean;
}

TEST(PathHash, DependsOnTheTextOnly) {
  const std::string a = "/hot/folder/sub/object";
  const std::string b = a;  // another buffer, the same text
  EXPECT_EQ(path_hash(a), path_hash(b));
  EXPECT_EQ(path_hash(std::string_view(a).substr(0, 4)), path_hash("/hot"));
  EXPECT_NE(path_hash(""), path_hash("/"));
  EXPECT_NE(path_hash("/a/b"), path_hash("/a/bc"));
  EXPECT_NE(path_hash("/abcdefg"), path_hash("/abcdefg/"));  // a ninth byte
}

TEST(PathHash, TreePathsSpreadOverShardsBucketsAndTheGateCache) {
  const auto paths = tree_paths();
  std::vector<std::uint64_t> low;
  std::vector<std::uint64_t> high;
  std::set<std::uint64_t> distinct;
  for (const auto& p : paths) {
    const std::uint64_t h = path_hash(p);
    distinct.insert(h);
    low.push_back(h);
    high.push_back(h >> 40);  // the lock's shard comes from the high bits
  }
  EXPECT_EQ(distinct.size(), paths.size()) << "no two paths of the tree share a hash";
  // A uniform hash puts at most about twice the mean in the fullest bucket
  // at these sizes (4,680 keys; 73 per shard, 9 per cache entry).
  EXPECT_LT(worst_over_mean(high, 64), 1.6) << "shards";
  EXPECT_LT(worst_over_mean(low, 8192), 14.0) << "buckets (mean 0.57: at most 8 in one)";
  EXPECT_LT(worst_over_mean(low, kGateCacheEntries), 2.5) << "gate cache entries";
}

// same_bytes, the gate cache's compare: agrees with memcmp for every length
// up to a cache entry's 80 bytes and every position of one differing byte,
// reading neither buffer past n (the buffers end exactly there).
TEST(SameBytes, AgreesWithMemcmpAtEveryLengthAndDifference) {
  for (std::size_t n = 0; n <= 80; ++n) {
    const std::string text(n, 'a');
    const auto a = std::make_unique<char[]>(n);  // exact sizes: ASan sees an overread
    const auto b = std::make_unique<char[]>(n);
    std::memcpy(a.get(), text.data(), n);
    std::memcpy(b.get(), text.data(), n);
    EXPECT_TRUE(same_bytes(a.get(), b.get(), n)) << n;
    for (std::size_t i = 0; i < n; ++i) {
      b[i] = 'b';
      EXPECT_FALSE(same_bytes(a.get(), b.get(), n)) << "length " << n << ", differing at " << i;
      b[i] = 'a';
    }
  }
}

}  // namespace
}  // namespace pathlock::impl
