#pragma once
// Counting replacements of the global allocation functions, for a benchmark
// program: allocations (per acquire, in the lock benchmarks) and live heap
// bytes as the allocator rounds them (bytes per idle lock entry). Include it
// in exactly one file of a program: it defines the replacements.
//
// GCC 12 flags free() on memory from the replaced operator new as a
// mismatch; here both sides are ours and use malloc/free, so the warning
// does not apply.

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace pathlock::bench {
inline std::atomic<std::uint64_t> g_allocations{0};
inline std::atomic<std::int64_t> g_live_bytes{0};

inline void* counted(void* p) {
  if (p == nullptr) throw std::bad_alloc();
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  g_live_bytes.fetch_add(static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  return p;
}
}  // namespace pathlock::bench

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t size) { return pathlock::bench::counted(std::malloc(std::max<std::size_t>(size, 1))); }
// The lock's entries are cache-line aligned: they come through this one.
void* operator new(std::size_t size, std::align_val_t align) {
  const auto a = static_cast<std::size_t>(align);
  return pathlock::bench::counted(std::aligned_alloc(a, (std::max<std::size_t>(size, 1) + a - 1) / a * a));
}
void operator delete(void* p) noexcept {
  if (p == nullptr) return;
  pathlock::bench::g_live_bytes.fetch_sub(static_cast<std::int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }
void operator delete(void* p, std::align_val_t) noexcept { operator delete(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { operator delete(p); }
