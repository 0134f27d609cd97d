#pragma once
// Where a lock's path lands: its hash picks the shard (high bits), the
// bucket (low bits) and the entry of a thread's gate cache. Apart from the
// table so that the verification kit can build programs whose paths share a
// gate cache entry (check-lock's `gate-cache-collision`).

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace pathlock::impl {

namespace detail {
__extension__ using Uint128 = unsigned __int128;  // GCC and Clang; __extension__ keeps -Wpedantic quiet
// The 128-bit product of a and b, its halves xored: the mixing step of
// wyhash (public domain), good in both high and low bits.
inline std::uint64_t multiply_fold(std::uint64_t a, std::uint64_t b) noexcept {
  const Uint128 r = static_cast<Uint128>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}
}  // namespace detail

// Bytes p[0, 8) as a little-endian number: one load.
[[gnu::always_inline]] inline std::uint64_t load_le64(const char* p) noexcept {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  return w;
}

// Bytes p[0, n) as a little-endian number, zero above them (n <= 8),
// reading nothing past p + n and with no loop: two overlapping four-byte
// loads, or for fewer than four bytes the first, middle and last (which
// cover them). The byte loop it replaced ran once per byte of every
// path's last word, about a twentieth of an acquire that misses the memo.
[[gnu::always_inline]] inline std::uint64_t load_le(const char* p, std::size_t n) noexcept {
  const auto le32 = [](const char* q) {
    std::uint32_t w;
    std::memcpy(&w, q, 4);
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap32(w);
    return std::uint64_t{w};
  };
  if (n >= 4) return le32(p) | le32(p + n - 4) << (8 * (n - 4));
  if (n == 0) return 0;
  const auto byte = [p](std::size_t i) { return std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i); };
  return byte(0) | byte(n / 2) | byte(n - 1);
}

// Eight bytes at a time through a multiply-fold, inlined: a lock step
// hashes every prefix of its path, and std::hash's out-of-line call cost
// about a tenth of an uncontended acquire. Fixed for a given text on every
// platform (bytes read little-endian).
inline std::uint64_t path_hash(std::string_view text) noexcept {
  constexpr std::uint64_t kSeed = 0xa0761d6478bd642fULL;
  constexpr std::uint64_t kMix = 0xe7037ed1a0b428dbULL;
  constexpr std::uint64_t kLast = 0x8ebc6af09c88c6e3ULL;
  const char* p = text.data();
  std::size_t n = text.size();
  std::uint64_t h = kSeed ^ n;
  for (; n > 8; p += 8, n -= 8) h = detail::multiply_fold(h ^ load_le64(p), kMix);
  return detail::multiply_fold(h ^ load_le(p, n) ^ kLast, kMix ^ kLast);
}

// Whether a[0, n) == b[0, n), inlined: eight bytes at a time, the last
// eight read overlapping the ones before (never past either end). A call
// to memcmp for a path of a few words cost more than the compare, and so
// did a call to this.
[[gnu::always_inline]] inline bool same_bytes(const char* a, const char* b, std::size_t n) noexcept {
  const auto word = [](const char* p) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  };
  if (n < 8) {
    for (std::size_t i = 0; i < n; ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }
  for (std::size_t i = 0; i + 8 < n; i += 8) {
    if (word(a + i) != word(b + i)) return false;
  }
  return word(a + n - 8) == word(b + n - 8);
}

// The shard of a path's entry, in a lock of `shards` shards (a power of
// two): the hash's high bits, so that the low bits pick the bucket.
inline constexpr std::size_t shard_index(std::uint64_t hash, std::size_t shards) noexcept {
  return static_cast<std::size_t>(hash >> 40) & (shards - 1);
}

// A thread's gate cache is direct-mapped: this many entries, one per hash
// modulo the count (path_lock.hpp: GATES).
inline constexpr std::size_t kGateCacheEntries = 512;
inline constexpr std::size_t gate_cache_index(std::uint64_t hash) noexcept { return hash % kGateCacheEntries; }

// A thread's plan memo is direct-mapped too (path_lock.hpp: PLAN MEMO), by
// a hash of a request's one path that reads at most 16 of its bytes (the
// last eight and the first eight, or eight from the middle of a longer
// one; with its length): the memo compares the whole path anyway, and a
// path_hash of a long path cost a tenth of a memoized acquire. Longer paths
// that differ only elsewhere share an entry, and take it from each other.
inline std::uint64_t memo_hash(std::string_view text) noexcept {
  const std::size_t n = text.size();
  const std::uint64_t last = n >= 8 ? load_le64(text.data() + n - 8) : load_le(text.data(), n);
  const std::uint64_t middle = n > 16 ? load_le64(text.data() + n / 2 - 4) : n > 8 ? load_le64(text.data()) : 0;
  return detail::multiply_fold(last ^ 0xa0761d6478bd642fULL ^ n, middle ^ 0xe7037ed1a0b428dbULL);
}
inline constexpr std::size_t kPlanMemoEntries = 64;
inline constexpr std::size_t plan_memo_index(std::uint64_t memo_hash) noexcept {
  return memo_hash % kPlanMemoEntries;
}

// What a thread's gate cache entry and plan memo entry remember of the
// request refused them last (one per thread, shared by every lock of its
// platform): the lock and the hash together, so that a path refused on
// one lock does not count as asked for twice when another lock asks for
// it. A collision only admits a request one refusal early.
inline constexpr std::uint64_t refusal_key(std::uint64_t lock_uid, std::uint64_t hash) noexcept {
  return hash ^ (lock_uid * 0x9e3779b97f4a7c15ULL);
}

// The lock-wide gate index is set-associative: buckets of up to
// kGateIndexWays slots, a bucket a cache line, picked by bits 16 and up of
// the hash (independent of the thread's cache, the low bits, and of the
// shard, bits 40 and up, for every index size the lock makes). A slot keeps
// its path's tag (the hash's top 6 bits) in the low bits of the record's
// pointer, so a lookup reads only the records whose tag is its path's.
inline constexpr std::size_t kGateIndexWays = 8;
inline constexpr std::uintptr_t kGateIndexTagMask = 63;  // a gate record is 64-aligned
inline constexpr std::size_t gate_index_bucket(std::uint64_t hash, std::size_t buckets) noexcept {
  return static_cast<std::size_t>(hash >> 16) & (buckets - 1);
}
inline constexpr std::uintptr_t gate_index_tag(std::uint64_t hash) noexcept {
  return static_cast<std::uintptr_t>(hash >> 58);
}

}  // namespace pathlock::impl
