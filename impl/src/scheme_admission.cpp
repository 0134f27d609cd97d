#include "pathlock/impl/scheme_admission.hpp"

#include <fmt/format.h>

#include <array>
#include <stdexcept>

#include "pathlock/impl/order_defect.hpp"

namespace pathlock::impl {
namespace {

// Paths on which an order's promise is tried: siblings, a parent and its
// child, and names that share a prefix (/a and /ab), where the orders that
// are not total tie.
std::vector<model::Path> probe_paths() {
  std::vector<model::Path> paths;
  for (const char* p : {"/", "/a", "/a/b", "/a/c", "/ab", "/b", "/b/a"}) paths.push_back(model::Path::parse(p));
  return paths;
}

void add_order_defects(const Scheme& scheme, std::vector<SchemeDefect>& out) {
  const LockOrder& order = scheme.order();
  const auto found = find_order_defect(order, probe_paths());
  if (order.totality() == Totality::kStrictTotal && !found) return;
  std::string why = fmt::format("the order \"{}\" is not a strict total order", order.name());
  if (found) why += fmt::format(" ({} fails: {})", to_string(found->property), found->explanation);
  why += ", so two requests can take the same locks in opposite orders and deadlock";
  out.push_back({SchemeDefectKind::kOrderNotTotal, std::move(why)});
}

}  // namespace

std::string_view to_string(SchemeDefectKind kind) noexcept {
  switch (kind) {
    case SchemeDefectKind::kRequestOrder: return "request order";
    case SchemeDefectKind::kPerRoleModes: return "per-role modes";
    case SchemeDefectKind::kOrderNotTotal: return "order not total";
    case SchemeDefectKind::kWeakJoin: return "weak join";
  }
  return "?";
}

std::vector<SchemeDefect> scheme_defects(const Scheme& scheme) {
  std::vector<SchemeDefect> out;
  if (scheme.acquisition() == Acquisition::kRequestOrder) {
    out.push_back({SchemeDefectKind::kRequestOrder,
                   "its locks are taken in request order, not sorted, so two requests can take the same locks "
                   "in opposite orders and deadlock"});
  }
  if (scheme.joining() == ModeJoining::kPerRole) {
    out.push_back({SchemeDefectKind::kPerRoleModes,
                   "it takes a lock once per role mode instead of once in their join, so a request can wait "
                   "for a lock it holds itself"});
  }
  if (scheme.acquisition() == Acquisition::kInOrder) add_order_defects(scheme, out);
  for (const JoinDefect& d : join_defects(scheme)) {
    out.push_back({SchemeDefectKind::kWeakJoin,
                   fmt::format("join({}, {}) = {} is compatible with {}, which {} conflicts with, so a request "
                               "holding the join lets a conflicting one in",
                               scheme.mode_name(d.left), scheme.mode_name(d.right), scheme.mode_name(d.joined),
                               scheme.mode_name(d.witness), scheme.mode_name(d.operand))});
  }
  return out;
}

void require_sound_scheme(const Scheme& scheme) {
  const std::vector<SchemeDefect> defects = scheme_defects(scheme);
  if (defects.empty()) return;
  std::string text = fmt::format("PathLock refuses the scheme \"{}\", which is not sound:", scheme.name());
  for (const SchemeDefect& d : defects) text += fmt::format(" [{}] {};", to_string(d.kind), d.explanation);
  text +=
      " to run it anyway (to test a checker), set PathLockOptions::scheme_admission to "
      "SchemeAdmission::kAllowDefective";
  throw std::invalid_argument(text);
}

}  // namespace pathlock::impl
