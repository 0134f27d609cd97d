#pragma once
// A thread's copy of a path in its gate cache or plan memo (path_lock.hpp:
// GATES, PLAN MEMO), compared whole at every look-up: the bytes inline up
// to kInlineBytes, else in a buffer of the entry's own, kept for the next
// long path (grown, never shrunk), so that a thread cycling through long
// paths allocates only until each entry's buffer fits its longest. Every
// path fits: kMaxBytes is "/" and S3's longest key. Only its thread reads
// or writes it.
//
// Before it, a cached path was at most 80 bytes, inline: every step of a
// longer S3 key went through its shard lock at every acquire, and so did a
// hot folder's, bouncing its line between the cores. path_lock_bench's
// key-length rows measure a 128- and a 1,024-byte key against a short one.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string_view>

#include "pathlock/impl/path_hash.hpp"
#include "pathlock/model/path.hpp"

namespace pathlock::impl {

class CachedKey {
 public:
  static constexpr std::size_t kInlineBytes = 64;
  static constexpr std::size_t kMaxBytes = 1 + model::kMaxKeyBytes;

  CachedKey() noexcept = default;
  CachedKey(const CachedKey&) = delete;
  CachedKey& operator=(const CachedKey&) = delete;
  ~CachedKey() { delete[] heap_; }

  // Holds `text` from now on. kRefused (and holds nothing) if it is longer
  // than kMaxBytes (no path is), or longer than the buffer and a longer one
  // could not be allocated.
  enum class Assigned : unsigned char { kHeld, kRefused };
  Assigned assign(std::string_view text) noexcept {
    size_ = kNothing;
    if (text.size() > kMaxBytes) return Assigned::kRefused;
    char* to = inline_;
    if (text.size() > kInlineBytes) {
      if (text.size() > capacity_) {
        // Rounded up to a cache line: the next path a few bytes longer fits.
        const std::size_t capacity = (text.size() + 63) / 64 * 64;
        // The throwing form, caught: a replaced operator new (a test's
        // injected failure) is reached under every sanitizer, which the
        // nothrow form is not under AddressSanitizer's own.
        char* grown = nullptr;
        try {
          grown = new char[capacity];
        } catch (const std::bad_alloc&) {
          return Assigned::kRefused;
        }
        delete[] heap_;
        heap_ = grown;
        capacity_ = static_cast<std::uint32_t>(capacity);
      }
      to = heap_;
    }
    std::memcpy(to, text.data(), text.size());
    size_ = static_cast<std::uint32_t>(text.size());
    return Assigned::kHeld;
  }

  bool holds(std::string_view text) const noexcept {
    if (text.size() != size_) return false;
    // A long one through memcmp's vector loop: a word at a time, a 1,025-byte
    // path's compare was most of its memoized acquire.
    return size_ <= kInlineBytes ? same_bytes(inline_, text.data(), size_)
                                 : std::memcmp(heap_, text.data(), size_) == 0;
  }

  // The bytes of the buffer kept for long paths (0 if none).
  std::size_t heap_bytes() const noexcept { return capacity_; }

 private:
  static constexpr std::uint32_t kNothing = ~std::uint32_t{0};  // equals no path's length
  std::uint32_t size_ = kNothing;
  std::uint32_t capacity_ = 0;
  char* heap_ = nullptr;
  char inline_[kInlineBytes];
};
static_assert(sizeof(CachedKey) == 80, "a gate cache entry is 120 bytes and a memo entry 640 (the caches' budgets)");

}  // namespace pathlock::impl
