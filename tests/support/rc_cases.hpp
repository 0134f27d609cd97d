#pragma once
// RapidCheck properties that run at least a given number of cases, whatever
// RC_PARAMS says (it may raise the count and sets the seed and reproduce as
// usual): for properties whose bugs are rare among random inputs, so that
// CI runs enough cases to see them.

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/detail/TestListenerAdapter.h>

#include <algorithm>
#include <sstream>
#include <string>

namespace pathlock::testing {

template <typename Testable>
void check_with_cases(Testable&& testable, int min_cases) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  rc::detail::TestMetadata metadata;
  metadata.id = std::string(info->test_case_name()) + "/" + std::string(info->name());
  metadata.description = std::string(info->name());
  const auto& config = rc::detail::configuration();
  rc::detail::TestParams params = config.testParams;
  params.maxSuccess = std::max(params.maxSuccess, min_cases);
  rc::detail::TestListenerAdapter quiet;
  const auto result = rc::detail::checkProperty(rc::detail::toProperty(std::forward<Testable>(testable)), metadata,
                                                params, quiet, config.reproduce);
  if (!result.template is<rc::detail::SuccessResult>()) {
    std::ostringstream ss;
    rc::detail::printResultMessage(result, ss);
    FAIL() << ss.str() << " (" << params.maxSuccess << " cases)";
  }
}

}  // namespace pathlock::testing

// RC_GTEST_PROP with at least `cases` cases.
#define PATHLOCK_PROP(TestCase, Name, cases, ArgList)                                          \
  void pathlock_prop_##TestCase##_##Name ArgList;                                              \
  TEST(TestCase, Name) { ::pathlock::testing::check_with_cases(&pathlock_prop_##TestCase##_##Name, cases); } \
  void pathlock_prop_##TestCase##_##Name ArgList
