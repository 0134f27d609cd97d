// Graphviz pictures of wait-for cycles, written by Boost.Graph.

#include "dot.hpp"

#include <boost/graph/adjacency_list.hpp>
// GCC 12 reports a false -Wmaybe-uninitialized inside Boost 1.74's
// write_graphviz edge loop once it is inlined; clang is clean.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <boost/graph/graphviz.hpp>

#include <sstream>

namespace pathlock::sim {

std::string cycle_dot(const std::vector<std::string>& labels) {
  boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS> g(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) boost::add_edge(i, (i + 1) % labels.size(), g);
  std::ostringstream dot;
  boost::write_graphviz(dot, g, [&](std::ostream& os, std::size_t v) {
    os << "[label=\"" << labels[v] << "\", shape=box]";
  });
  return dot.str();
}

}  // namespace pathlock::sim
