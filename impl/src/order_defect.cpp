#include "pathlock/impl/order_defect.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "pathlock/model/error.hpp"

namespace pathlock::impl {
namespace {

std::string_view result_text(std::strong_ordering c) {
  if (c < 0) return "less";
  if (c > 0) return "greater";
  return "equal";
}

OrderDefect defect(OrderProperty property, std::vector<model::Path> witness, std::string explanation) {
  return {property, std::move(witness), std::move(explanation)};
}

}  // namespace

std::string_view to_string(OrderProperty property) noexcept {
  switch (property) {
    case OrderProperty::kIrreflexive: return "irreflexivity";
    case OrderProperty::kAntisymmetric: return "antisymmetry";
    case OrderProperty::kTransitive: return "transitivity";
    case OrderProperty::kTotal: return "totality";
  }
  return "?";
}

// Pairs first: once every pair is decided one way, consistently both ways,
// the results form a tournament, and a tournament is transitive iff no two
// paths precede the same number of others. Two that do, x < y, give the
// cycle: y precedes some w that x does not precede, so w < x.
std::optional<OrderDefect> find_order_defect(const LockOrder& order, std::span<const model::Path> paths) {
  std::vector<model::Path> s(paths.begin(), paths.end());
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  if (s.size() > kMaxOrderCheckPaths) {
    throw model::InputError(model::InputProblem::kBadParameter,
                            fmt::format("checking order \"{}\": {} distinct paths; at most {}", order.name(),
                                        s.size(), kMaxOrderCheckPaths));
  }
  for (const auto& p : s) {
    if (const auto c = order.compare(p, p); c != 0) {
      return defect(OrderProperty::kIrreflexive, {p}, fmt::format("{} compares {} to itself", p.str(), result_text(c)));
    }
  }
  std::vector<std::size_t> precedes(s.size(), 0);  // how many paths each one is less than
  for (std::size_t i = 0; i < s.size(); ++i) {
    for (std::size_t j = i + 1; j < s.size(); ++j) {
      const auto ab = order.compare(s[i], s[j]);
      const auto ba = order.compare(s[j], s[i]);
      if (ab != (0 <=> ba)) {
        return defect(OrderProperty::kAntisymmetric, {s[i], s[j]},
                      fmt::format("{} compares {} to {}, but {} compares {} to {}", s[i].str(), result_text(ab),
                                  s[j].str(), s[j].str(), result_text(ba), s[i].str()));
      }
      if (ab == 0) {
        return defect(OrderProperty::kTotal, {s[i], s[j]},
                      fmt::format("{} and {} compare equal", s[i].str(), s[j].str()));
      }
      ++precedes[ab < 0 ? i : j];
    }
  }
  std::vector<std::size_t> by_count(s.size());
  std::iota(by_count.begin(), by_count.end(), std::size_t{0});
  std::stable_sort(by_count.begin(), by_count.end(),
                   [&](std::size_t a, std::size_t b) { return precedes[a] > precedes[b]; });
  for (std::size_t k = 1; k < by_count.size(); ++k) {
    std::size_t x = by_count[k - 1];
    std::size_t y = by_count[k];
    if (precedes[x] != precedes[y]) continue;
    if (order.less(s[y], s[x])) std::swap(x, y);
    for (std::size_t w = 0; w < s.size(); ++w) {
      if (w == x || w == y || !order.less(s[y], s[w]) || order.less(s[x], s[w])) continue;
      return defect(OrderProperty::kTransitive, {s[x], s[y], s[w]},
                    fmt::format("{} < {} and {} < {}, but {} < {}", s[x].str(), s[y].str(), s[y].str(), s[w].str(),
                                s[w].str(), s[x].str()));
    }
  }
  return std::nullopt;
}

}  // namespace pathlock::impl
