// The public API (pathlock/pathlock.hpp): the README's example, written with
// pathlock:: names alone, compiles and behaves as the README says.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "pathlock/pathlock.hpp"

namespace {

TEST(PublicApi, TheReadmeExampleRunsOnPathlockNamesAlone) {
  using pathlock::Path;
  pathlock::PathLock lock(pathlock::path_rwa_joined_scheme());
  {  // rename photos/2024/ to archive/2024/
    pathlock::Guard guard = lock.rename(Path::from_key("photos/2024"), Path::from_key("archive/2024"));
    EXPECT_TRUE(guard.owns_lock());
    const pathlock::Request req = pathlock::copy(Path::parse("/archive"), Path::parse("/b")).request();
    pathlock::Guard g = lock.acquire_for(req, std::chrono::milliseconds(1));
    EXPECT_FALSE(g);
    EXPECT_EQ(pathlock::to_string(g.status()), "timed out");
  }
  EXPECT_TRUE(lock.try_acquire(pathlock::remove(Path::parse("/archive/2024")).request()).owns_lock());
}

TEST(PublicApi, BadInputAndDefectiveSchemesThrowThroughPathlockNames) {
  EXPECT_THROW((void)pathlock::Path::parse("a/b"), pathlock::InputError);
  EXPECT_THROW(pathlock::PathLock(pathlock::path_rwa_scheme()), std::invalid_argument);
  EXPECT_EQ(pathlock::scheme_defects(pathlock::path_rwa_scheme()).front().kind, pathlock::SchemeDefectKind::kWeakJoin);
  pathlock::PathLock allowed(pathlock::path_rwa_scheme(),
                             pathlock::PathLockOptions{.scheme_admission = pathlock::SchemeAdmission::kAllowDefective});
  EXPECT_TRUE(allowed.read(pathlock::Path::parse("/a")).owns_lock());
  ASSERT_NE(pathlock::find_builtin_scheme("path-rw"), nullptr);
  EXPECT_EQ(pathlock::builtin_schemes().size(), 5U);
  static_assert(std::is_same_v<pathlock::Guard, pathlock::PathLock::Guard>);
  EXPECT_EQ(std::string(PATHLOCK_VERSION).empty(), false);
}

}  // namespace
