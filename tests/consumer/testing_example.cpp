// A user's test of their own folder lock with pathlock::testing (GoogleTest +
// RapidCheck), built against the installed package:
//   find_package(pathlock CONFIG REQUIRED COMPONENTS testing)
//   target_link_libraries(my_test PRIVATE pathlock::testing GTest::gtest_main rapidcheck_gtest)
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

#include "pathlock/model/conflict.hpp"
#include "pathlock/testing/check.hpp"

// The lock under test: one std::mutex per path a request names, taken in
// sorted order (so it cannot deadlock), and none on their ancestors.
class FolderLock {
 public:
  struct Handle {
    std::vector<std::mutex*> held;
  };
  Handle acquire(const pathlock::model::Request& request) {
    std::map<pathlock::model::Path, std::mutex*> paths;
    for (const auto& p : request.reads()) paths[p] = entry(p);
    for (const auto& p : request.writes()) paths[p] = entry(p);
    Handle handle;
    for (auto& [path, mutex] : paths) {
      mutex->lock();
      handle.held.push_back(mutex);
    }
    return handle;
  }
  void release(Handle handle) {
    for (auto* mutex : handle.held) mutex->unlock();
  }

 private:
  std::mutex* entry(const pathlock::model::Path& path) {
    std::lock_guard guard(table_);
    return &locks_[path];
  }
  std::mutex table_;
  std::map<pathlock::model::Path, std::mutex> locks_;
};

// One call: generated scenarios on real threads, every grant judged by the model.
TEST(FolderLock, KeepsConflictingFolderOperationsApart) {
  pathlock::testing::CheckOptions options;
  options.seed = 2024;
  const auto result = pathlock::testing::check_lock([] { return FolderLock(); }, options);
  EXPECT_TRUE(result.passed()) << result.report();
}

// PathLock, through the adapter that ships, passes the same call.
TEST(FolderLock, PathLockPassesTheSameCheck) {
  pathlock::testing::CheckOptions options;
  options.seed = 2024;
  const auto result = pathlock::testing::check_lock(
      [] { return pathlock::testing::PathLockAdapter(*pathlock::impl::find_builtin_scheme("path-rwa-joined")); },
      options);
  EXPECT_TRUE(result.passed()) << result.report();
}

// The generators, in a property of your own.
RC_GTEST_PROP(FolderLock, AWriteConflictsWithEveryRequestBelowIt, ()) {
  const auto path = *pathlock::testing::gen_path();
  const auto below = *pathlock::testing::gen_request();
  const bool under = below.reads().end() != std::find_if(below.reads().begin(), below.reads().end(), [&](const auto& p) {
                       return p == path || path.is_proper_ancestor_of(p);
                     });
  RC_PRE(under);
  RC_ASSERT(pathlock::model::conflicts(pathlock::model::write(path).request(), below));
}
