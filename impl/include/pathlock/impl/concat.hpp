#pragma once
// Text from strings and integers, for the lock's header-only diagnostics
// (describe_waits, check_invariants): the public headers use no formatting
// library, so that the installed package asks none of its users.

#include <charconv>
#include <concepts>
#include <string>
#include <string_view>

namespace pathlock::impl {
namespace concat_detail {

inline void append(std::string& out, std::string_view text) { out += text; }

template <std::integral Int>
  requires(!std::same_as<Int, char> && !std::same_as<Int, bool>)
void append(std::string& out, Int n) {
  char digits[24];  // a 64-bit integer has at most 20 digits and a sign
  out.append(digits, std::to_chars(digits, digits + sizeof digits, n).ptr);
}

}  // namespace concat_detail

// concat("entry ", key, " holds ", 3) == "entry /a holds 3"; integers in
// decimal (an 8-bit one as a number, not a character).
template <typename... Parts>
std::string concat(const Parts&... parts) {
  std::string out;
  (concat_detail::append(out, parts), ...);
  return out;
}

}  // namespace pathlock::impl
