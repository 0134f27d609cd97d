#pragma once
// What the tasks of one test run ask a lock for: each task takes its
// operations one after another, holding one at a time. The text form is the
// one the harness prints and the Python kit shares:
//   "T0: write /a/c; T1: copy /a /a/b, read /a"

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "pathlock/model/request.hpp"

namespace pathlock::testing {

inline constexpr std::size_t kMaxTasks = 64;
inline constexpr std::size_t kMaxOperationsPerTask = 64;

struct Scenario {
  std::vector<std::vector<model::Operation>> tasks;

  std::size_t operation_count() const noexcept;
  // "T0: write /a/c; T1: copy /a /a/b, read /a".
  std::string to_string() const;
  // The printed form back. Throws std::invalid_argument naming the part and
  // the problem (an unknown operation, a malformed path, a task label out of
  // order, more than kMaxTasks tasks or kMaxOperationsPerTask operations).
  static Scenario parse(std::string_view text);

  friend bool operator==(const Scenario&, const Scenario&) = default;
};

// "copy /a /a/b".
std::string operation_text(const model::Operation& operation);

// RapidCheck and GoogleTest print values with it.
std::ostream& operator<<(std::ostream& out, const Scenario& scenario);

}  // namespace pathlock::testing
