#include <array>
#include <initializer_list>
#include <string_view>

#include "pathlock/impl/scheme.hpp"

namespace pathlock::impl {
namespace {

// '+' = may be held together, '-' = may not.
std::vector<std::vector<Compatibility>> grid(std::initializer_list<std::string_view> rows) {
  std::vector<std::vector<Compatibility>> out;
  for (auto row : rows) {
    auto& r = out.emplace_back();
    for (char c : row) r.push_back(c == '+' ? Compatibility::kCompatible : Compatibility::kIncompatible);
  }
  return out;
}

// Join as precedence: modes are listed weakest first, and a path takes the
// strongest mode among its roles.
std::vector<std::vector<ModeId>> precedence_join(std::size_t n) {
  std::vector<std::vector<ModeId>> out(n, std::vector<ModeId>(n));
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) out[a][b] = ModeId{static_cast<std::uint8_t>(std::max(a, b))};
  }
  return out;
}

std::array<ModeId, kRoleCount> roles(std::uint8_t write_target, std::uint8_t read_target,
                                     std::uint8_t write_ancestor, std::uint8_t read_ancestor) {
  return {ModeId{write_target}, ModeId{read_target}, ModeId{write_ancestor}, ModeId{read_ancestor}};
}

}  // namespace

const Scheme& global_mutex_scheme() {
  static const Scheme scheme(SchemeSpec{
      .name = "global-mutex",
      .title = "global exclusive lock",
      .description = "One mutex for every request, whatever it reads or writes.",
      .granularity = Granularity::kGlobal,
      .modes = {{"X", "exclusive"}},
      .compatibility = grid({"-"}),
      .role_modes = roles(0, 0, 0, 0),
      .join = precedence_join(1),
  });
  return scheme;
}

const Scheme& global_rw_scheme() {
  static const Scheme scheme(SchemeSpec{
      .name = "global-rw",
      .title = "global read/write lock",
      .description = "One read/write lock: shared for a request with no writes, exclusive "
                     "otherwise.",
      .granularity = Granularity::kGlobal,
      .modes = {{"S", "shared: the request only reads"}, {"X", "exclusive: the request writes"}},
      .compatibility = grid({"+-", "--"}),
      .role_modes = roles(1, 0, 1, 0),
      .join = precedence_join(2),
  });
  return scheme;
}

const Scheme& path_rw_scheme() {
  static const Scheme scheme(SchemeSpec{
      .name = "path-rw",
      .title = "per-path read/write locks",
      .description = "A read/write lock per path: W on every path read or written, R on "
                     "every proper ancestor of those paths not itself among them.",
      .granularity = Granularity::kPerPath,
      .modes = {{"R", "an ancestor of an accessed path"}, {"W", "an accessed path"}},
      .compatibility = grid({"+-", "--"}),
      .role_modes = roles(1, 1, 0, 0),
      .join = precedence_join(2),
  });
  return scheme;
}

const Scheme& path_rwa_scheme() {
  static const Scheme scheme(SchemeSpec{
      .name = "path-rwa",
      .title = "per-path read/write/ancestor locks (design notes, as written)",
      .description = "W on written paths, WA on their ancestors, R on read paths, RA on their "
                     "ancestors, by precedence W > WA > R > RA where a path has several roles.",
      .granularity = Granularity::kPerPath,
      .modes = {{"RA", "read-ancestor: a path below is read"},
                {"R", "read: this subtree is read"},
                {"WA", "write-ancestor: a path below is written"},
                {"W", "write: this subtree is written"}},
      .compatibility = grid({"+++-", "++--", "+-+-", "----"}),
      .role_modes = roles(3, 1, 2, 0),
      .join = precedence_join(4),
  });
  return scheme;
}

const Scheme& path_rwa_joined_scheme() {
  // Mode indices: RA=0, R=1, WA=2, RWA=3, W=4.
  std::vector<std::vector<ModeId>> join(5, std::vector<ModeId>(5));
  const std::array<std::array<std::uint8_t, 5>, 5> table{{
      //  RA R  WA RWA W
      {{0, 1, 2, 3, 4}},  // RA
      {{1, 1, 3, 3, 4}},  // R
      {{2, 3, 2, 3, 4}},  // WA
      {{3, 3, 3, 3, 4}},  // RWA
      {{4, 4, 4, 4, 4}},  // W
  }};
  for (std::size_t a = 0; a < 5; ++a) {
    for (std::size_t b = 0; b < 5; ++b) join[a][b] = ModeId{table[a][b]};
  }
  static const Scheme scheme(SchemeSpec{
      .name = "path-rwa-joined",
      .title = "per-path read/write/ancestor locks, modes joined (corrected)",
      .description = "The design notes' scheme 4 with Gray's SIX mode (RWA) as the join of R "
                     "and WA, so a path that is read and lies above a written path keeps both "
                     "roles' conflicts.",
      .granularity = Granularity::kPerPath,
      .modes = {{"RA", "read-ancestor: a path below is read"},
                {"R", "read: this subtree is read"},
                {"WA", "write-ancestor: a path below is written"},
                {"RWA", "read this subtree and write a path below (Gray's SIX)"},
                {"W", "write: this subtree is written"}},
      .compatibility = grid({"++++-", "++---", "+-+--", "+----", "-----"}),
      .role_modes = roles(4, 1, 2, 0),
      .join = std::move(join),
  });
  return scheme;
}

std::span<const Scheme* const> builtin_schemes() {
  static const std::array<const Scheme*, 5> all{&global_mutex_scheme(), &global_rw_scheme(),
                                                &path_rw_scheme(), &path_rwa_scheme(),
                                                &path_rwa_joined_scheme()};
  return all;
}

const Scheme* find_builtin_scheme(std::string_view name) {
  for (const auto* scheme : builtin_schemes()) {
    if (scheme->name() == name) return scheme;
  }
  return nullptr;
}

}  // namespace pathlock::impl
