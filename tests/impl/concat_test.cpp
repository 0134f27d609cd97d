// impl::concat, the lock's header-only text builder: strings as they are,
// integers in decimal, an 8-bit one as a number rather than a character.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "pathlock/impl/concat.hpp"

namespace pathlock::impl {
namespace {

TEST(Concat, StringsAndIntegersInDecimal) {
  const std::string key = "/a/b";
  EXPECT_EQ(concat("entry ", key, " holds ", std::string_view("W"), " x", 3), "entry /a/b holds W x3");
  EXPECT_EQ(concat(std::uint8_t{7}, ' ', std::int64_t{-12}), "7 -12");
  EXPECT_EQ(concat(std::numeric_limits<std::uint64_t>::max()), "18446744073709551615");
  EXPECT_EQ(concat(std::numeric_limits<std::int64_t>::min()), "-9223372036854775808");
  EXPECT_EQ(concat(), "");
}

}  // namespace
}  // namespace pathlock::impl
