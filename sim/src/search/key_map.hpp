#pragma once
// The searches' visited sets: state keys (StepMachine::key) to a small value,
// in one open-addressed table with the key bytes packed into one buffer. A
// search looks up one key per transition and stores one per state; node
// tables with a string per key spend most of that time allocating. Never
// iterated, so the order of the slots is never observable. Internal.

#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace pathlock::sim::search {

// A 64-bit hash of the key bytes (a multiply-xorshift over 8-byte words);
// never 0, which marks an empty slot.
inline std::uint64_t key_hash(std::string_view key) noexcept {
  constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ULL;
  std::uint64_t h = kMul ^ key.size();
  const char* p = key.data();
  std::size_t n = key.size();
  const auto mix = [&](std::uint64_t word) {
    h = (h ^ word) * kMul;
    h ^= h >> 29U;
  };
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    mix(word);
  }
  if (n > 0) {
    std::uint64_t word = 0;
    std::memcpy(&word, p, n);
    mix(word);
  }
  h ^= h >> 32U;
  h *= 0xD6E8FEB86659FD93ULL;
  h ^= h >> 32U;
  return h | 1U;
}

template <typename Value>
class KeyMap {
 public:
  // The value stored under `key`, and whether it was just inserted (with
  // `value`). The pointer is valid until the next insertion.
  std::pair<Value*, bool> try_emplace(std::string_view key, const Value& value) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    const std::uint64_t h = key_hash(key);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.hash == 0) {
        slot = {h, bytes_.size(), static_cast<std::uint32_t>(key.size()), value};
        bytes_.insert(bytes_.end(), key.begin(), key.end());
        ++size_;
        return {&slot.value, true};
      }
      if (slot.hash == h && slot.size == key.size() && std::memcmp(bytes_.data() + slot.offset, key.data(), key.size()) == 0) {
        return {&slot.value, false};
      }
    }
  }
  // Null if absent.
  Value* find(std::string_view key) {
    if (size_ == 0) return nullptr;
    const std::uint64_t h = key_hash(key);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.hash == 0) return nullptr;
      if (slot.hash == h && slot.size == key.size() && std::memcmp(bytes_.data() + slot.offset, key.data(), key.size()) == 0) {
        return &slot.value;
      }
    }
  }
  std::size_t size() const noexcept { return size_; }

 private:
  struct Slot {
    std::uint64_t hash = 0;  // 0: empty
    std::uint64_t offset = 0;
    std::uint32_t size = 0;
    Value value{};
  };

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    mask_ = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.hash == 0) continue;
      std::size_t i = slot.hash & mask_;
      while (slots_[i].hash != 0) i = (i + 1) & mask_;
      slots_[i] = slot;
    }
  }

  std::vector<Slot> slots_;
  std::vector<char> bytes_;  // every key, back to back
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace pathlock::sim::search
