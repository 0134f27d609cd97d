#pragma once
// The scenarios `pathlock check` explores exhaustively, and the larger random
// ones its scheduler campaigns run.
//
// The family (smallest first, so the first failure found is a small one):
//   singles    one task, one request: every operation over the family's
//              paths (a self-deadlock needs no second task);
//   pairs      two tasks, one request each: every unordered pair of
//              operations, the same one twice included;
//   sequences  two tasks, the first issuing two single-path requests one
//              after the other (its second request queues behind locks the
//              other task took while the first ran), the second one;
//   triples    three tasks, one request each, over every operation on paths
//              below the root (cycles of three; the root conflicts with
//              everything, which pairs cover);
//   withdrawals  three tasks over reads and writes below the root, the
//              second a write that may withdraw while it waits (a timeout or
//              a cancellation): what LockQueue::cancel must hand on to those
//              queued behind the withdrawn request.
// Operations are read, write, rename and copy (delete makes the same request
// as write); rename and copy take every ordered pair of distinct paths, into
// and out of their own subtree included, and copy also a path onto itself
// (R and W on one path).
//
// Paths: none   (no scenarios: campaigns only)
//        quick  /, /a, /a/b, /a/c               (depth 2, 4 paths)
//        full   /, /a, /a/b, /a/b/c, /a/c, /ab  (depth 3, 6 paths; /ab shares
//               a string prefix with /a, so prefix bugs show)

#include <cstdint>
#include <string_view>
#include <vector>

#include "pathlock/model/path.hpp"
#include "pathlock/sim/scenario.hpp"

namespace pathlock::sim {

enum class FamilySize { kNone, kQuick, kFull };  // kNone: no exhaustive stage
std::string_view to_string(FamilySize size) noexcept;

enum class FamilyPart { kSingles, kPairs, kSequences, kTriples, kWithdrawals };
inline constexpr std::size_t kFamilyPartCount = 5;
std::string_view to_string(FamilyPart part) noexcept;

struct FamilyScenario {
  FamilyPart part;
  Scenario scenario;
};

std::vector<model::Path> family_paths(FamilySize size);
// The family's operations over `paths`, smallest first.
std::vector<model::Operation> family_operations(const std::vector<model::Path>& paths);
std::vector<FamilyScenario> scenario_family(FamilySize size);

// A random scenario for a scheduler campaign: `tasks` tasks, each of 1 to
// `max_requests` requests drawn uniformly from the operations of a depth-3,
// fanout-2 tree (enumerate_operations), from `seed`.
struct RandomScenarioSpec {
  std::size_t min_tasks = 3;
  std::size_t max_tasks = 6;
  std::size_t max_requests = 3;
};
Scenario random_scenario(const RandomScenarioSpec& spec, std::uint64_t seed);

}  // namespace pathlock::sim
