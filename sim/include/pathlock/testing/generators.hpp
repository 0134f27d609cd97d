#pragma once
// RapidCheck generators for paths, S3 keys, operations, requests and
// scenarios, with shrinking: a path shrinks towards "/" and the first
// names, an operation towards a read, a scenario towards fewer tasks with
// fewer operations. Usable in a user's RC_GTEST_PROP:
//
//   RC_GTEST_PROP(MyLock, ..., ()) {
//     const auto scenario = *pathlock::testing::gen_scenario();
//     ...
//   }
//
// The default names include sibling prefixes (/a and /ab, /a/b and
// /a/bc): the keys a prefix-based lock confuses.

#include <rapidcheck.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "pathlock/model/path.hpp"
#include "pathlock/model/request.hpp"
#include "pathlock/testing/scenario.hpp"

namespace pathlock::testing {

struct PathShape {
  std::vector<std::string> names = {"a", "b", "ab"};  // each a valid path component
  int max_depth = 3;                                  // components, 1..64
  bool root = true;                                   // "/" itself may be drawn
};

struct ScenarioShape {
  int min_tasks = 2;       // 1..kMaxTasks
  int max_tasks = 3;       // min_tasks..kMaxTasks
  int max_operations = 2;  // per task, 1..kMaxOperationsPerTask
  int pool_size = 4;       // paths the operations mostly share, 1..64
};

// Throw std::invalid_argument naming the field and its limit.
void validate(const PathShape& shape);
void validate(const ScenarioShape& shape);

inline rc::Gen<model::Path> gen_path(PathShape shape = {}) {
  validate(shape);
  auto names = rc::gen::elementOf(shape.names);
  return rc::gen::mapcat(rc::gen::inRange(shape.root ? 0 : 1, shape.max_depth + 1), [names](int depth) {
    return rc::gen::map(rc::gen::container<std::vector<std::string>>(static_cast<std::size_t>(depth), names),
                        [](const std::vector<std::string>& parts) { return model::Path::from_components(parts); });
  });
}

// A tree: up to `max_paths` drawn paths with every ancestor of each (the
// root included), sorted; shrinks towards fewer, shallower paths.
inline rc::Gen<std::vector<model::Path>> gen_tree(PathShape shape = {}, int max_paths = 6) {
  if (max_paths < 1 || max_paths > 1024) throw std::invalid_argument("gen_tree: max_paths is outside 1..1024");
  const auto path = gen_path(shape);
  return rc::gen::mapcat(rc::gen::inRange(1, max_paths + 1), [path](int count) {
    return rc::gen::map(rc::gen::container<std::vector<model::Path>>(static_cast<std::size_t>(count), path),
                        [](std::vector<model::Path> drawn) {
                          std::vector<model::Path> tree{model::Path::root()};
                          for (const auto& p : drawn) {
                            for (auto ancestor : p.proper_ancestors()) tree.push_back(std::move(ancestor));
                            tree.push_back(p);
                          }
                          std::sort(tree.begin(), tree.end());
                          tree.erase(std::unique(tree.begin(), tree.end()), tree.end());
                          return tree;
                        });
  });
}

// "a/b" (an object) or "a/b/" (a folder marker); model::Path::from_key
// maps either to /a/b.
inline rc::Gen<std::string> gen_key(PathShape shape = {}) {
  shape.root = false;
  return rc::gen::apply([](const model::Path& path, bool folder) { return path.key() + (folder ? "/" : ""); },
                        gen_path(shape), rc::gen::arbitrary<bool>());
}

// read, write, delete, rename or copy on paths from `paths`.
inline rc::Gen<model::Operation> gen_operation(rc::Gen<model::Path> paths = gen_path()) {
  return rc::gen::apply(
      [](int kind, model::Path p, model::Path q) {
        switch (kind) {
          case 0: return model::read(std::move(p));
          case 1: return model::write(std::move(p));
          case 2: return model::remove(std::move(p));
          case 3: return model::rename(std::move(p), std::move(q));
          default: return model::copy(std::move(p), std::move(q));
        }
      },
      rc::gen::inRange(0, 5), paths, paths);
}

inline rc::Gen<model::Request> gen_request(rc::Gen<model::Path> paths = gen_path()) {
  return rc::gen::map(gen_operation(std::move(paths)), [](const model::Operation& op) { return op.request(); });
}

namespace detail {

// A two-path operation of an earlier task in the opposite direction (rename
// /b /a beside rename /a /b): the pair that deadlocks a lock taking its
// paths in request order.
inline void mirror(Scenario& scenario, const std::vector<bool>& flags) {
  std::size_t flag = 0;
  std::vector<model::Operation> earlier;
  for (auto& task : scenario.tasks) {
    std::vector<model::Operation> mine;
    for (auto& op : task) {
      if (flag < flags.size() && flags[flag++] && !earlier.empty()) {
        const auto& original = earlier.back();
        op = model::Operation::make(original.kind, {*original.target, original.source});
      }
      if (op.target && *op.target != op.source) mine.push_back(op);
    }
    earlier.insert(earlier.end(), mine.begin(), mine.end());
  }
}

}  // namespace detail

// min_tasks..max_tasks tasks of 1..max_operations operations each, whose
// paths come mostly from a pool of up to pool_size paths (so that tasks meet
// on the same paths), sometimes freshly drawn; an operation is sometimes an
// earlier task's two-path operation mirrored.
inline rc::Gen<Scenario> gen_scenario(ScenarioShape shape = {}, PathShape path_shape = {}) {
  validate(shape);
  validate(path_shape);
  const auto fresh = gen_path(path_shape);
  auto pool = rc::gen::mapcat(rc::gen::inRange(1, shape.pool_size + 1), [fresh](int size) {
    return rc::gen::container<std::vector<model::Path>>(static_cast<std::size_t>(size), fresh);
  });
  return rc::gen::mapcat(std::move(pool), [shape, fresh](const std::vector<model::Path>& paths) {
    const auto path = rc::gen::weightedOneOf<model::Path>({{3, rc::gen::elementOf(paths)}, {1, fresh}});
    const auto operation = gen_operation(path);
    const auto task = rc::gen::mapcat(rc::gen::inRange(1, shape.max_operations + 1), [operation](int count) {
      return rc::gen::container<std::vector<model::Operation>>(static_cast<std::size_t>(count), operation);
    });
    const auto tasks = rc::gen::mapcat(rc::gen::inRange(shape.min_tasks, shape.max_tasks + 1), [task](int count) {
      return rc::gen::container<std::vector<std::vector<model::Operation>>>(static_cast<std::size_t>(count), task);
    });
    return rc::gen::mapcat(tasks, [](std::vector<std::vector<model::Operation>> drawn) {
      const std::size_t count = Scenario{drawn}.operation_count();
      return rc::gen::map(rc::gen::container<std::vector<bool>>(count, rc::gen::weightedElement<bool>({{1, false}, {1, true}})),
                          [drawn = std::move(drawn)](const std::vector<bool>& flags) {
                            Scenario scenario{drawn};
                            detail::mirror(scenario, flags);
                            return scenario;
                          });
    });
  });
}

}  // namespace pathlock::testing
