// pathlock::testing's scenarios and generators.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

#include "pathlock/model/conflict.hpp"
#include "pathlock/testing/generators.hpp"

namespace pathlock::testing {
namespace {

TEST(TestingScenario, PrintsAsItParses) {
  for (const char* text : {"T0: write /a/c; T1: copy /a /a/b, read /a", "T0: delete /", "T0: rename /a /ab"}) {
    EXPECT_EQ(Scenario::parse(text).to_string(), text);
  }
  EXPECT_EQ(Scenario::parse("T0: remove /a").to_string(), "T0: delete /a");
}

TEST(TestingScenario, RefusesMalformedTextNamingTheProblem) {
  const auto problem = [](const char* text) {
    try {
      (void)Scenario::parse(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(problem("T0: frob /a").find("unknown 'frob'"), std::string::npos);
  EXPECT_NE(problem("T0: write a/b").find("a/b"), std::string::npos);
  EXPECT_NE(problem("T0: copy /a").find("copy /a"), std::string::npos);
  EXPECT_NE(problem("T1: read /a").find("should start with 'T0:'"), std::string::npos);
  EXPECT_NE(problem("T0: read /a,").find("empty"), std::string::npos);
}

RC_GTEST_PROP(TestingGenerators, PathsAreWithinTheirShape, ()) {
  PathShape shape;
  shape.max_depth = 2;
  shape.root = false;
  const auto path = *gen_path(shape);
  RC_ASSERT(path.depth() >= 1U);
  RC_ASSERT(path.depth() <= 2U);
  for (auto part : path.components()) RC_ASSERT(part == "a" || part == "b" || part == "ab");
}

RC_GTEST_PROP(TestingGenerators, TreesHoldEveryAncestorOnceInOrder, ()) {
  const auto tree = *gen_tree();
  RC_ASSERT(!tree.empty());
  RC_ASSERT(tree.front().is_root());
  RC_ASSERT(std::is_sorted(tree.begin(), tree.end()));
  RC_ASSERT(std::adjacent_find(tree.begin(), tree.end()) == tree.end());
  for (const auto& path : tree) {
    if (!path.is_root()) RC_ASSERT(std::binary_search(tree.begin(), tree.end(), path.parent()));
  }
}

RC_GTEST_PROP(TestingGenerators, KeysMapToThePathsTheyName, ()) {
  const auto key = *gen_key();
  const auto path = model::Path::from_key(key);
  RC_ASSERT(path.key() + (key.back() == '/' ? "/" : "") == key);
}

RC_GTEST_PROP(TestingGenerators, ScenariosAreWithinTheirShapeAndReparse, ()) {
  ScenarioShape shape;
  shape.min_tasks = 1;
  shape.max_tasks = 4;
  shape.max_operations = 3;
  shape.pool_size = 2;
  const auto scenario = *gen_scenario(shape);
  RC_ASSERT(scenario.tasks.size() >= 1U);
  RC_ASSERT(scenario.tasks.size() <= 4U);
  for (const auto& task : scenario.tasks) {
    RC_ASSERT(!task.empty());
    RC_ASSERT(task.size() <= 3U);
  }
  RC_ASSERT(Scenario::parse(scenario.to_string()) == scenario);
}

TEST(TestingGenerators, DrawEveryOperationSiblingPrefixesAndMirroredPairs) {
  std::set<std::string> ops;
  bool sibling_prefix = false;
  bool mirrored = false;
  const auto generator = gen_scenario();
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    const Scenario scenario = generator(rc::Random(seed), rc::kNominalSize).value();
    std::vector<model::Operation> two_path;
    for (const auto& task : scenario.tasks) {
      for (const auto& op : task) {
        ops.insert(std::string(model::to_string(op.kind)));
        sibling_prefix |= op.source.str().find("/ab") != std::string::npos;
        if (op.target && *op.target != op.source) {
          for (const auto& other : two_path) {
            mirrored |= other.kind == op.kind && other.source == *op.target && *other.target == op.source;
          }
        }
      }
      for (const auto& op : task) {
        if (op.target) two_path.push_back(op);
      }
    }
  }
  EXPECT_EQ(ops, (std::set<std::string>{"read", "write", "delete", "rename", "copy"}));
  EXPECT_TRUE(sibling_prefix);
  EXPECT_TRUE(mirrored);
}

TEST(TestingGenerators, ReplayFromTheirSeed) {
  const auto generator = gen_scenario();
  EXPECT_EQ(generator(rc::Random(7), rc::kNominalSize).value(), generator(rc::Random(7), rc::kNominalSize).value());
  EXPECT_NE(generator(rc::Random(7), rc::kNominalSize).value(), generator(rc::Random(8), rc::kNominalSize).value());
}

TEST(TestingGenerators, RefuseShapesOutsideTheirLimits) {
  const auto path_refused = [](auto edit) {
    PathShape shape;
    edit(shape);
    try {
      (void)gen_path(shape);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const auto scenario_refused = [](auto edit) {
    ScenarioShape shape;
    edit(shape);
    try {
      (void)gen_scenario(shape);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(path_refused([](PathShape& s) { s.names = {}; }).find("names is empty"), std::string::npos);
  EXPECT_NE(path_refused([](PathShape& s) { s.names = {"a/b"}; }).find("'a/b' is not a path component"),
            std::string::npos);
  EXPECT_NE(path_refused([](PathShape& s) { s.names = {"a,b"}; }).find("which a printed scenario cannot carry"),
            std::string::npos);
  EXPECT_NE(path_refused([](PathShape& s) { s.max_depth = 0; }).find("max_depth 0 is outside 1..64"),
            std::string::npos);
  EXPECT_NE(scenario_refused([](ScenarioShape& s) { s.min_tasks = 3; s.max_tasks = 2; }).find("tasks 3..2"),
            std::string::npos);
  EXPECT_NE(scenario_refused([](ScenarioShape& s) { s.max_operations = 0; }).find("max_operations 0"),
            std::string::npos);
  EXPECT_NE(scenario_refused([](ScenarioShape& s) { s.pool_size = 65; }).find("pool_size 65"), std::string::npos);
}

}  // namespace
}  // namespace pathlock::testing
