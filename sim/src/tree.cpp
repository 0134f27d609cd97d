#include "pathlock/sim/tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "pathlock/model/error.hpp"

namespace pathlock::sim {

std::vector<std::string> child_names(int fanout) {
  std::vector<std::string> names;
  for (int k = 0; k < fanout; ++k) {
    std::string name(1, static_cast<char>('a' + k / 2));
    if (k % 2 == 1) name += static_cast<char>('a' + k / 2 + 1);
    names.push_back(std::move(name));
  }
  return names;
}

std::vector<model::Path> generate_tree(const TreeSpec& spec) {
  if (spec.depth < 1 || spec.depth > kMaxTreeDepth) {
    throw model::InputError(model::InputProblem::kBadParameter,
                            fmt::format("tree depth {} is out of range 1..{}", spec.depth,
                                        kMaxTreeDepth));
  }
  if (spec.fanout < 1 || spec.fanout > kMaxTreeFanout) {
    throw model::InputError(model::InputProblem::kBadParameter,
                            fmt::format("tree fanout {} is out of range 1..{}", spec.fanout,
                                        kMaxTreeFanout));
  }
  const auto names = child_names(spec.fanout);
  std::vector<model::Path> all{model::Path::root()};
  std::vector<model::Path> level{model::Path::root()};
  for (int d = 0; d < spec.depth; ++d) {
    std::vector<model::Path> next;
    for (const auto& parent : level) {
      for (const auto& name : names) next.push_back(parent.child(name));
    }
    all.insert(all.end(), next.begin(), next.end());
    level = std::move(next);
  }
  std::sort(all.begin(), all.end());
  return all;
}

std::vector<model::Operation> enumerate_operations(const std::vector<model::Path>& paths) {
  std::vector<model::Operation> ops;
  for (const auto& p : paths) {
    ops.push_back(model::read(p));
    ops.push_back(model::write(p));
    ops.push_back(model::remove(p));
  }
  for (const auto& p : paths) {
    for (const auto& q : paths) {
      if (p == q) continue;
      ops.push_back(model::rename(p, q));
      ops.push_back(model::copy(p, q));
    }
  }
  const auto key = [](const model::Operation& op) {
    const std::size_t depth = op.source.depth() + (op.target ? op.target->depth() : 0);
    return std::make_tuple(model::arity(op.kind), depth, static_cast<int>(op.kind), op.source,
                           op.target.value_or(model::Path::root()));
  };
  std::stable_sort(ops.begin(), ops.end(),
                   [&](const auto& a, const auto& b) { return key(a) < key(b); });
  return ops;
}

}  // namespace pathlock::sim
