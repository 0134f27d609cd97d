#pragma once
// Generated trees of pseudo-folders and the operations over them.

#include <cstddef>
#include <string>
#include <vector>

#include "pathlock/model/path.hpp"
#include "pathlock/model/request.hpp"

namespace pathlock::sim {

struct TreeSpec {
  int depth = 3;   // levels below the root: 1..kMaxTreeDepth
  int fanout = 2;  // children per folder: 1..kMaxTreeFanout
};
inline constexpr int kMaxTreeDepth = 6;
inline constexpr int kMaxTreeFanout = 8;

// Child names, in order: "a", "ab", "b", "bc", ... Every other name extends
// the one before it, so siblings like /a and /ab share a string prefix and
// test prefix semantics.
std::vector<std::string> child_names(int fanout);

// Every path of the full tree, the root included, sorted by component.
// Throws InputError(kBadParameter) if depth or fanout is out of range.
std::vector<model::Path> generate_tree(const TreeSpec& spec);

// Every operation on those paths: read, write, delete of each path; rename and
// copy of each ordered pair of distinct paths (into and out of their own
// subtree included). Sorted smallest first: by number of paths, then total
// depth, then kind and text, so the first witness found is a small one.
std::vector<model::Operation> enumerate_operations(const std::vector<model::Path>& paths);

}  // namespace pathlock::sim
