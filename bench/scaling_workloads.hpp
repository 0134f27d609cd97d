#pragma once
// The scaling benchmark's workloads: what each thread acquires, as a cycle
// of operations prepared before timing (so the timed loop allocates nothing
// of its own).
//
//   disjoint     thread i writes /t<i>/folder/sub/object         (no two conflict)
//   hot-folder   thread i writes /hot/folder/sub/o<i>            (no two conflict)
//   hot-read     every thread reads /hot/folder/sub/object       (no two conflict)
//   mixed        90% reads, 10% writes, uniform over the 4,096 objects of an
//                8x8x8x8 tree (/d<a>/d<b>/d<c>/o<d>); drawn from a seed
//   conflicting  every thread writes /hot/folder/sub/object      (every pair conflicts)

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pathlock/model/path.hpp"
#include "pathlock/model/request.hpp"

namespace pathlock::bench {

enum class Access : std::uint8_t { kRead, kWrite };

// One operation of a workload: the request for PathLock, and the same thing
// spelled for the baselines (the path's prefixes, shallowest first, the last
// one the target).
struct Operation {
  model::Request request;
  std::vector<std::string> prefixes;
  Access access = Access::kWrite;
};

enum class Workload : std::uint8_t { kDisjoint, kHotFolder, kHotRead, kMixed, kConflicting };
inline constexpr Workload kAllWorkloads[] = {Workload::kDisjoint, Workload::kHotFolder, Workload::kHotRead,
                                             Workload::kMixed, Workload::kConflicting};

inline std::string_view to_string(Workload w) noexcept {
  switch (w) {
    case Workload::kDisjoint: return "disjoint";
    case Workload::kHotFolder: return "hot-folder";
    case Workload::kHotRead: return "hot-read";
    case Workload::kMixed: return "mixed";
    case Workload::kConflicting: return "conflicting";
  }
  return "?";
}

// What the workload is, in one line for the summary.
inline std::string_view describe(Workload w) noexcept {
  switch (w) {
    case Workload::kDisjoint: return "thread i writes /t<i>/folder/sub/object (no two conflict)";
    case Workload::kHotFolder: return "thread i writes /hot/folder/sub/o<i> (no two conflict)";
    case Workload::kHotRead: return "every thread reads /hot/folder/sub/object (no two conflict)";
    case Workload::kMixed: return "90% reads, 10% writes, uniform over the 4,096 objects of an 8x8x8x8 tree";
    case Workload::kConflicting: return "every thread writes /hot/folder/sub/object (every pair conflicts)";
  }
  return "?";
}

// Whether requests of different threads can conflict: the scaling target
// applies to the workloads where they cannot (and to mixed, where few do).
enum class Contention : std::uint8_t { kNoConflicts, kSomeConflicts, kAllConflict };
inline Contention contention_of(Workload w) noexcept {
  switch (w) {
    case Workload::kMixed: return Contention::kSomeConflicts;
    case Workload::kConflicting: return Contention::kAllConflict;
    default: return Contention::kNoConflicts;
  }
}

inline Operation make_operation(const std::string& key, Access access) {
  const model::Path path = model::Path::from_key(key);
  std::vector<std::string> prefixes;
  for (const auto& a : path.proper_ancestors()) prefixes.push_back(a.str());
  prefixes.push_back(path.str());
  return Operation{access == Access::kRead ? model::Request({path}, {}) : model::Request({}, {path}),
                   std::move(prefixes), access};
}

// The cycle of operations thread `thread` runs, for `seed` (mixed only).
inline std::vector<Operation> operations_for(Workload w, int thread, std::uint64_t seed) {
  const std::string t = std::to_string(thread);
  switch (w) {
    case Workload::kDisjoint: return {make_operation("t" + t + "/folder/sub/object", Access::kWrite)};
    case Workload::kHotFolder: return {make_operation("hot/folder/sub/o" + t, Access::kWrite)};
    case Workload::kHotRead: return {make_operation("hot/folder/sub/object", Access::kRead)};
    case Workload::kConflicting: return {make_operation("hot/folder/sub/object", Access::kWrite)};
    case Workload::kMixed: break;
  }
  // A stream per thread, replayable from the seed.
  std::mt19937_64 rng(seed * std::uint64_t{1'000'003} + static_cast<std::uint64_t>(thread));
  std::uniform_int_distribution<int> component(0, 7);
  std::uniform_int_distribution<int> percent(0, 99);
  std::vector<Operation> ops;
  constexpr int kCycle = 4096;
  ops.reserve(kCycle);
  for (int i = 0; i < kCycle; ++i) {
    const std::string key = "d" + std::to_string(component(rng)) + "/d" + std::to_string(component(rng)) + "/d" +
                            std::to_string(component(rng)) + "/o" + std::to_string(component(rng));
    ops.push_back(make_operation(key, percent(rng) < 90 ? Access::kRead : Access::kWrite));
  }
  return ops;
}

}  // namespace pathlock::bench
