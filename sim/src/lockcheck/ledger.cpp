#include "pathlock/sim/lockcheck/ledger.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pathlock/model/conflict.hpp"
#include "pathlock/sim/model_agreement.hpp"

namespace pathlock::sim::lockcheck {

std::optional<std::string> GrantLedger::granted(std::uint32_t thread, const model::Request& request) {
  for (std::uint32_t other = 0; other < held_.size(); ++other) {
    if (other == thread) continue;
    for (const auto& r : held_[other]) {
      // A pair the model's two formulations judge differently is a model error, not a lock bug.
      if (auto model_error = sim::model_error(r, request)) return *model_error;
      if (model::conflicts(r, request)) {
        return fmt::format("mutual exclusion broken: thread {} was granted {} while thread {} holds {}", thread,
                           request.to_string(), other, r.to_string());
      }
    }
  }
  held_[thread].push_back(request);
  return std::nullopt;
}

void GrantLedger::releasing(std::uint32_t thread, const model::Request& request) {
  auto& mine = held_[thread];
  const auto it = std::find(mine.rbegin(), mine.rend(), request);
  if (it != mine.rend()) mine.erase(std::next(it).base());
}

std::size_t GrantLedger::total_holds() const noexcept {
  std::size_t n = 0;
  for (const auto& h : held_) n += h.size();
  return n;
}

}  // namespace pathlock::sim::lockcheck
