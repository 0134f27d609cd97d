// impl::path_hash, which picks a path's shard (high bits), bucket (low
// bits) and gate-cache entry (modulo kGateCacheEntries): a pure function of
// the text, and spread evenly over each of those for the paths of a tree,
// whose texts differ in a few bytes (siblings, prefixes, 8-byte boundaries).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
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

// path_hash is part of what a run replays (which shard, bucket and cache
// entry a path lands in, and check-lock's programs build their collisions
// from it): a faster way to compute it must give the same values. Pinned
// from the byte-at-a-time definition; memo_hash's since it reads a path of
// up to sixteen bytes whole.
TEST(PathHash, ValuesArePinned) {
  struct Pinned {
    const char* text;
    std::uint64_t path;
    std::uint64_t memo;
  };
  const Pinned pinned[] = {
      {"", 0x32fd7808eec6a275ULL, 0x1ff5c2923a788d2cULL},
      {"/", 0x2b49bd55c0025baeULL, 0x9c54fb295a98342bULL},
      {"/a", 0x7ca088f6a2b9f347ULL, 0x3747371e1f23b380ULL},
      {"/ab", 0xa1cd9cfcddfce6dfULL, 0xf6aa0c5f2d73183fULL},
      {"/abc", 0x90a6225d46b0091aULL, 0xb6c4105183937ef1ULL},
      {"/abcd", 0xd34faa7c0d487fd3ULL, 0xd6609b70af8319fcULL},
      {"/abcde", 0x5f32ff476d7c74a7ULL, 0xa8f8a162cd63b2feULL},
      {"/abcdef", 0xeb557482c55c747aULL, 0x47863ed9375de3e9ULL},
      {"/abcdefg", 0xda253ac8f89c47d5ULL, 0xa85827f9a7ac7497ULL},
      {"/abcdefgh", 0x26946a8c4c94403dULL, 0x421979d2dc837f07ULL},
      {"/hot/folder/sub/object", 0xa13ce606ab181ff4ULL, 0xb37d38091881970dULL},
      {"/d3/d5/d7/o1", 0xe4dab7aa4c61175fULL, 0x566d4b8b46d7f24fULL},
  };
  for (const Pinned& p : pinned) {
    EXPECT_EQ(path_hash(p.text), p.path) << p.text;
    EXPECT_EQ(memo_hash(p.text), p.memo) << p.text;
  }
}

// memo_hash reads at most sixteen bytes: a path of up to sixteen is read
// whole, so paths that differ anywhere in those take different memo entries
// (and the refusal that keeps one path from evicting another tells them
// apart). Reading only the last eight of a 12-byte path made /d0/d5/d7/o1
// and its seven cousins one hash, and the memo evict itself at random.
TEST(MemoHash, ReadsEveryByteOfAPathOfUpToSixteen) {
  for (std::size_t n = 1; n <= 16; ++n) {
    const std::string base(n, 'a');
    for (std::size_t i = 0; i < n; ++i) {
      std::string other = base;
      other[i] = 'b';
      EXPECT_NE(memo_hash(base), memo_hash(other)) << "length " << n << ", differing at " << i;
    }
  }
}

// load_le, the hashes' and the gate index's read of a path's last word:
// the bytes as a little-endian number, for every length up to eight and
// every byte value at every position, reading nothing past the end.
TEST(LoadLe, IsTheBytesLittleEndian) {
  EXPECT_EQ(load_le(nullptr, 0), 0U);
  for (std::size_t n = 1; n <= 8; ++n) {
    std::vector<char> p(n);  // exact size: ASan sees an overread
    for (std::size_t at = 0; at < n; ++at) {
      for (int value = 0; value < 256; value += 17) {
        std::array<unsigned char, 8> bytes{};
        std::uint64_t expected = 0;
        for (std::size_t i = 0; i < n; ++i) {
          bytes[i] = static_cast<unsigned char>(i == at ? value : 0x30 + static_cast<int>(i));
          expected |= std::uint64_t{bytes[i]} << (8 * i);
        }
        std::memcpy(p.data(), bytes.data(), n);
        EXPECT_EQ(load_le(p.data(), n), expected) << "length " << n << ", byte " << at << " = " << value;
      }
    }
    if (n == 8) {
      EXPECT_EQ(load_le64(p.data()), load_le(p.data(), 8));
    }
  }
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
    high.push_back(shard_index(h, 64));  // the lock's shard (its hash's high bits), of 64
  }
  EXPECT_EQ(distinct.size(), paths.size()) << "no two paths of the tree share a hash";
  // A uniform hash puts at most about twice the mean in the fullest bucket
  // at these sizes (4,680 keys; 73 per shard, 9 per cache entry).
  EXPECT_LT(worst_over_mean(high, 64), 1.6) << "shards";
  EXPECT_LT(worst_over_mean(low, 8192), 14.0) << "buckets (mean 0.57: at most 8 in one)";
  EXPECT_LT(worst_over_mean(low, kGateCacheEntries), 2.5) << "gate cache entries";
}

// same_bytes, the compare of a path kept inline in a gate cache or memo
// entry: agrees with memcmp for every length up to 80 bytes (past the
// inline 64) and every position of one differing byte, reading neither
// buffer past n (the buffers end exactly there).
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
