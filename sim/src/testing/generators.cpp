#include "pathlock/testing/generators.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "pathlock/model/error.hpp"

namespace pathlock::testing {

void validate(const PathShape& shape) {
  if (shape.names.empty()) throw std::invalid_argument("PathShape.names is empty: give at least one name");
  for (const auto& name : shape.names) {
    // The printed scenario must read back: no separator of its text form.
    if (name.find_first_of(" \t\n,;:") != std::string::npos) {
      throw std::invalid_argument(fmt::format(
          "PathShape.names: '{}' holds a space, ',', ';' or ':', which a printed scenario cannot carry", name));
    }
    try {
      (void)model::Path::root().child(name);
    } catch (const model::InputError& e) {
      throw std::invalid_argument(fmt::format("PathShape.names: '{}' is not a path component: {}", name, e.what()));
    }
  }
  if (shape.max_depth < 1 || shape.max_depth > 64) {
    throw std::invalid_argument(fmt::format("PathShape.max_depth {} is outside 1..64", shape.max_depth));
  }
}

void validate(const ScenarioShape& shape) {
  const int max_tasks = static_cast<int>(kMaxTasks);
  if (shape.min_tasks < 1 || shape.min_tasks > shape.max_tasks || shape.max_tasks > max_tasks) {
    throw std::invalid_argument(fmt::format("ScenarioShape tasks {}..{}: need 1 <= min_tasks <= max_tasks <= {}",
                                            shape.min_tasks, shape.max_tasks, max_tasks));
  }
  if (shape.max_operations < 1 || shape.max_operations > static_cast<int>(kMaxOperationsPerTask)) {
    throw std::invalid_argument(fmt::format("ScenarioShape.max_operations {} is outside 1..{}", shape.max_operations,
                                            kMaxOperationsPerTask));
  }
  if (shape.pool_size < 1 || shape.pool_size > 64) {
    throw std::invalid_argument(fmt::format("ScenarioShape.pool_size {} is outside 1..64", shape.pool_size));
  }
}

}  // namespace pathlock::testing
