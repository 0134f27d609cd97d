#include "pathlock/impl/scheme.hpp"

#include <fmt/format.h>

#include "pathlock/model/error.hpp"

namespace pathlock::impl {
namespace {

[[noreturn]] void reject(const SchemeSpec& spec, const std::string& why) {
  throw model::InputError(model::InputProblem::kBadParameter,
                          fmt::format("scheme \"{}\": {}", spec.name, why));
}

}  // namespace

std::string_view to_string(Granularity granularity) noexcept {
  return granularity == Granularity::kGlobal ? "global" : "per-path";
}

std::string_view to_string(Role role) noexcept {
  switch (role) {
    case Role::kWriteTarget: return "write target";
    case Role::kReadTarget: return "read target";
    case Role::kWriteAncestor: return "write ancestor";
    case Role::kReadAncestor: return "read ancestor";
  }
  return "?";
}

std::string_view to_string(Acquisition acquisition) noexcept {
  switch (acquisition) {
    case Acquisition::kInOrder: return "in order";
    case Acquisition::kRequestOrder: return "request order";
  }
  return "?";
}

std::string_view to_string(ModeJoining joining) noexcept {
  switch (joining) {
    case ModeJoining::kJoin: return "join";
    case ModeJoining::kPerRole: return "per role";
  }
  return "?";
}

std::string_view to_string(Fairness fairness) noexcept {
  switch (fairness) {
    case Fairness::kFifo: return "FIFO";
    case Fairness::kBoundedBypass: return "bounded bypass";
    case Fairness::kNone: return "none";
  }
  return "?";
}

std::string Scheme::fairness_text() const {
  switch (spec_.fairness) {
    case Fairness::kFifo: return "FIFO";
    case Fairness::kBoundedBypass:
      return fmt::format("bounded bypass (at most {} overtake{} per wait)", spec_.bypass_bound,
                         spec_.bypass_bound == 1 ? "" : "s");
    case Fairness::kNone: return "none (measured only)";
  }
  return "?";
}

Scheme::Scheme(SchemeSpec spec) : spec_(std::move(spec)) {
  const std::size_t n = spec_.modes.size();
  if (spec_.name.empty()) reject(spec_, "the name is empty");
  if (spec_.fairness == Fairness::kBoundedBypass) {
    if (spec_.bypass_bound < 1 || spec_.bypass_bound > kMaxBypassBound) {
      reject(spec_, fmt::format("a bounded-bypass promise needs a bound of 1 to {} overtakes per wait, not {}",
                                kMaxBypassBound, spec_.bypass_bound));
    }
  } else if (spec_.bypass_bound != 0) {
    reject(spec_, fmt::format("a bypass bound ({}) goes only with a bounded-bypass promise, not {}",
                              spec_.bypass_bound, to_string(spec_.fairness)));
  }
  if (n == 0 || n > kMaxModes) {
    reject(spec_, fmt::format("has {} modes; a scheme needs 1 to {}", n, kMaxModes));
  }
  for (std::size_t a = 0; a < n; ++a) {
    if (spec_.modes[a].name.empty()) reject(spec_, fmt::format("mode {} has no name", a));
    for (std::size_t b = 0; b < a; ++b) {
      if (spec_.modes[a].name == spec_.modes[b].name) {
        reject(spec_, fmt::format("mode name \"{}\" is used twice", spec_.modes[a].name));
      }
    }
  }
  if (spec_.compatibility.size() != n) {
    reject(spec_, fmt::format("compatibility matrix has {} rows for {} modes",
                              spec_.compatibility.size(), n));
  }
  if (spec_.join.size() != n) {
    reject(spec_, fmt::format("join table has {} rows for {} modes", spec_.join.size(), n));
  }
  for (std::size_t a = 0; a < n; ++a) {
    if (spec_.compatibility[a].size() != n) {
      reject(spec_, fmt::format("compatibility row {} has {} entries for {} modes",
                                spec_.modes[a].name, spec_.compatibility[a].size(), n));
    }
    if (spec_.join[a].size() != n) {
      reject(spec_, fmt::format("join row {} has {} entries for {} modes", spec_.modes[a].name,
                                spec_.join[a].size(), n));
    }
  }
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      if (spec_.compatibility[a][b] != spec_.compatibility[b][a]) {
        reject(spec_, fmt::format("compatibility is not symmetric: {}/{} differs from {}/{}",
                                  spec_.modes[a].name, spec_.modes[b].name, spec_.modes[b].name,
                                  spec_.modes[a].name));
      }
      if (spec_.compatibility[a][b] == Compatibility::kCompatible) {
        compatible_mask_[a] = static_cast<std::uint8_t>(compatible_mask_[a] | (1U << b));
      }
      const ModeId j = spec_.join[a][b];
      if (j.index >= n) {
        reject(spec_, fmt::format("join of {} and {} names mode #{}, which does not exist",
                                  spec_.modes[a].name, spec_.modes[b].name, j.index));
      }
      join_[a][b] = j;
    }
  }
  for (std::size_t a = 0; a < n; ++a) {
    if (join_[a][a].index != a) {
      reject(spec_, fmt::format("join is not idempotent: {} v {} = {}", spec_.modes[a].name,
                                spec_.modes[a].name, spec_.modes[join_[a][a].index].name));
    }
    for (std::size_t b = 0; b < n; ++b) {
      if (join_[a][b] != join_[b][a]) {
        reject(spec_, fmt::format("join is not commutative: {} v {} differs from {} v {}",
                                  spec_.modes[a].name, spec_.modes[b].name, spec_.modes[b].name,
                                  spec_.modes[a].name));
      }
      for (std::size_t c = 0; c < n; ++c) {
        if (join_[join_[a][b].index][c] != join_[a][join_[b][c].index]) {
          reject(spec_, fmt::format("join is not associative on {}, {}, {}", spec_.modes[a].name,
                                    spec_.modes[b].name, spec_.modes[c].name));
        }
      }
    }
  }
  for (Role role : kAllRoles) {
    if (mode_for(role).index >= n) {
      reject(spec_, fmt::format("role \"{}\" names mode #{}, which does not exist",
                                to_string(role), mode_for(role).index));
    }
  }
}

std::string Scheme::lock_label(const model::Path& lock) const {
  return spec_.granularity == Granularity::kGlobal ? std::string("global") : lock.str();
}

Scheme Scheme::with_order(const LockOrder& order, std::string name) const {
  SchemeSpec spec = spec_;
  spec.order = order;
  spec.name = std::move(name);
  spec.title = fmt::format("{}, ordered {}", spec_.title, order.name());
  return Scheme(std::move(spec));
}

std::vector<JoinDefect> join_defects(const Scheme& scheme) {
  std::vector<JoinDefect> out;
  const auto n = static_cast<std::uint8_t>(scheme.mode_count());
  for (std::uint8_t a = 0; a < n; ++a) {
    for (std::uint8_t b = a; b < n; ++b) {
      const ModeId left{a};
      const ModeId right{b};
      const ModeId joined = scheme.join(left, right);
      for (ModeId operand : {left, right}) {
        for (std::uint8_t m = 0; m < n; ++m) {
          const ModeId w{m};
          if (!scheme.compatible(operand, w) && scheme.compatible(joined, w)) {
            out.push_back({left, right, joined, operand, w});
            break;
          }
        }
      }
    }
  }
  return out;
}

}  // namespace pathlock::impl
