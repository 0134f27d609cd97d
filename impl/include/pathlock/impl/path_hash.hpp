#pragma once
// Where a lock's path lands: its hash picks the shard (high bits), the
// bucket (low bits) and the entry of a thread's gate cache. Apart from the
// table so that the verification kit can build programs whose paths share a
// gate cache entry (check-lock's `gate-cache-collision`).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace pathlock::impl {

inline std::uint64_t path_hash(std::string_view text) noexcept { return std::hash<std::string_view>{}(text); }

// A thread's gate cache is direct-mapped: this many entries, one per hash
// modulo the count (path_lock.hpp: GATES).
inline constexpr std::size_t kGateCacheEntries = 512;
inline constexpr std::size_t gate_cache_index(std::uint64_t hash) noexcept { return hash % kGateCacheEntries; }

}  // namespace pathlock::impl
