#pragma once
#include <string>
#include <vector>

namespace pathlock::sim {
// A directed cycle through boxes with these labels (already DOT-escaped), in
// Graphviz DOT: label 0 -> label 1 -> ... -> label 0.
std::string cycle_dot(const std::vector<std::string>& labels);
}  // namespace pathlock::sim
