#pragma once
// A sound, cheap pre-test for conflicts: 64-bit Bloom signatures of a
// request's paths and of their ancestors. Two related paths are one a prefix
// (ancestor or equal) of the other, so the shorter one's own bit is among the
// longer one's prefix bits; if no such bit is shared for any write pair, the
// requests cannot conflict. may_conflict() == false implies
// conflicts() == false (tested); true says nothing, so callers then ask
// conflicts(). The simulators ask it for every pair of running requests.

#include <cstdint>

#include "pathlock/model/request.hpp"

namespace pathlock::model {

class LineageFilter {
 public:
  LineageFilter() = default;
  explicit LineageFilter(const Request& request);

  friend bool may_conflict(const LineageFilter& a, const LineageFilter& b) noexcept {
    const auto meet = [](std::uint64_t self_a, std::uint64_t prefixes_a, std::uint64_t self_b,
                         std::uint64_t prefixes_b) { return (self_a & prefixes_b) != 0 || (self_b & prefixes_a) != 0; };
    return meet(a.write_self_, a.write_prefixes_, b.write_self_ | b.read_self_, b.write_prefixes_ | b.read_prefixes_) ||
           meet(a.read_self_, a.read_prefixes_, b.write_self_, b.write_prefixes_);
  }

 private:
  std::uint64_t write_self_ = 0;      // bit of each written path
  std::uint64_t write_prefixes_ = 0;  // bits of each written path and its ancestors
  std::uint64_t read_self_ = 0;
  std::uint64_t read_prefixes_ = 0;
};

}  // namespace pathlock::model
