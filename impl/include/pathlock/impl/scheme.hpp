#pragma once
// Locking schemes as data: modes, a compatibility matrix, the mode each path
// role gets, how modes join on a path with several roles, the granularity
// (one global lock or one lock per path) and the acquisition order.
//
// Roles. For a request with read paths P_R and write paths P_W, a per-path
// scheme gives each path its roles:
//   write target     p in P_W
//   read target      p in P_R
//   write ancestor   p a proper ancestor of some path in P_W
//   read ancestor    p a proper ancestor of some path in P_R
// The path's mode is the join of its roles' modes; each lock appears in a
// plan once. A global scheme joins every role of every path onto its one lock.
//
// Invariants checked when a Scheme is built (else InputError(kBadParameter)):
//   1 <= modes <= kMaxModes
//   compatible(a, b) == compatible(b, a)                    (symmetric)
//   join(a, b) == join(b, a), join(a, a) == a,
//   join(join(a, b), c) == join(a, join(b, c))              (a semilattice, so
//                                                            the fold over roles
//                                                            is well defined)
// Not enforced, but reported by join_defects(): the join should be an upper
// bound in strength, i.e. for all m: !compatible(a, m) => !compatible(join(a, b), m).
// A join that drops an operand's conflicts can let conflicting requests hold
// their locks together; the design notes' scheme 4 has such a join (see
// below, and proofs/design.md, "The design notes' four schemes").
//
// The built-in schemes (builtin_schemes()):
//
// 1. global-mutex: one lock, one mode.           X
//                                             X  ✗
//    Every request takes X on the global lock. Score 0/4, 0/8.
//
// 2. global-rw: one read/write lock.              S  X
//                                             S  ✓  ✗
//                                             X  ✗  ✗
//    S for a request with no writes, X otherwise. Score 2/4, 3/8.
//
// 3. path-rw: one read/write lock per path.       R  W
//                                             R  ✓  ✗
//                                             W  ✗  ✗
//    W on every path read or written, R on every proper ancestor of those
//    paths not itself among them (join: W wins). Score 3/4, 7/8: reads in one
//    lineage block each other.
//
// 4. path-rwa: the design notes' read/write/ancestor scheme, as written.
//                                                 RA R  WA W
//                                             RA  ✓  ✓  ✓  ✗
//                                             R   ✓  ✓  ✗  ✗
//                                             WA  ✓  ✗  ✓  ✗
//                                             W   ✗  ✗  ✗  ✗
//    W on P_W; WA on ancestors of P_W not in P_W; R on P_R except those in
//    P_W or ancestors of P_W; RA on the remaining ancestors of P_R. As a join
//    this is precedence, RA < R < WA < W, so join(R, WA) = WA: a path that is
//    both read and an ancestor of a written path gets WA only, and WA admits
//    other WA holders. copy(/a, /a/b) then runs alongside write(/a/c) although
//    it reads /a. Score 4/4, 8/8 on single-path requests; unsafe for a request
//    that reads an ancestor of a path it writes. Kept as written, a known
//    result (proofs/flaws.md).
//
// 5. path-rwa-joined: the corrected variant: Gray et al.'s IS, S, IX, SIX, X
//    (1976). RWA (SIX: read this subtree, write some path below) is the join
//    of R and WA.
//                                                 RA R  WA RWA W
//                                             RA  ✓  ✓  ✓  ✓   ✗
//                                             R   ✓  ✓  ✗  ✗   ✗
//                                             WA  ✓  ✗  ✓  ✗   ✗
//                                             RWA ✓  ✗  ✗  ✗   ✗
//                                             W   ✗  ✗  ✗  ✗   ✗
//    Joins: RA v R = R, RA v WA = WA, R v WA = RWA, RWA v {RA,R,WA} = RWA,
//    W v anything = W. Score 4/4, 8/8, safe and exact (plans conflict iff the
//    requests conflict) on single- and multi-path requests.
//
// Acquisition order: every built-in scheme uses LockOrder::ancestor_first().
//
// Fairness: what a scheme promises about overtaking on each lock. A grant of
// mode m on lock L to request r overtakes a waiter w when w still waits on L,
// w queued on L before r did (for a grant at enqueue: every current waiter),
// and m is incompatible with w's mode. Compatible grants passing a waiter
// (bypasses) are always allowed: they do not delay it.
//   kFifo           no overtake, ever (bound 0): what LockQueue does, and what
//                   every built-in scheme promises;
//   kBoundedBypass  at most bypass_bound() overtakes of one wait (1 to
//                   kMaxBypassBound);
//   kNone           no promise: overtakes are measured, never judged.
// The checkers judge every grant against the promise on their own record of
// arrival order (proofs/fairness.md), never LockQueue's bookkeeping.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pathlock/impl/order.hpp"
#include "pathlock/model/path.hpp"

namespace pathlock::impl {

inline constexpr std::size_t kMaxModes = 8;

// A mode, as its index in the scheme's mode list.
struct ModeId {
  std::uint8_t index = 0;
  friend auto operator<=>(const ModeId&, const ModeId&) = default;
};

enum class Compatibility : std::uint8_t { kCompatible, kIncompatible };
enum class Granularity : std::uint8_t { kGlobal, kPerPath };
enum class Role : std::uint8_t { kWriteTarget, kReadTarget, kWriteAncestor, kReadAncestor };
inline constexpr std::size_t kRoleCount = 4;
inline constexpr std::array<Role, kRoleCount> kAllRoles{
    Role::kWriteTarget, Role::kReadTarget, Role::kWriteAncestor, Role::kReadAncestor};

std::string_view to_string(Granularity granularity) noexcept;  // "global" / "per-path"
std::string_view to_string(Role role) noexcept;                // "write target", ...

// How a plan is put together from a request's path roles. The defaults are
// the design notes' rule; the others describe deliberately broken variants
// that `pathlock check` must reject, and are what a scheme file may ask for.
enum class Acquisition : std::uint8_t {
  kInOrder,       // locks sorted by the scheme's LockOrder (ties keep request order)
  kRequestOrder,  // locks in request order: read paths, then write paths, each
                  // preceded by its ancestors shallowest first; no sorting
};
enum class ModeJoining : std::uint8_t {
  kJoin,     // one step per lock, in the join of its roles' modes
  kPerRole,  // one step per (lock, role mode): a task may lock a lock it holds
};
std::string_view to_string(Acquisition acquisition) noexcept;  // "in order" / "request order"
std::string_view to_string(ModeJoining joining) noexcept;      // "join" / "per role"

enum class Fairness : std::uint8_t { kFifo, kBoundedBypass, kNone };
std::string_view to_string(Fairness fairness) noexcept;  // "FIFO" / "bounded bypass" / "none"
// The largest bound a kBoundedBypass scheme may promise (a step machine
// counts one wait's overtakes in a byte).
inline constexpr std::uint32_t kMaxBypassBound = 100;

struct ModeSpec {
  std::string name;     // "RA"
  std::string meaning;  // "read-ancestor: a path below is read"
};

// Everything that defines a scheme; validated by Scheme's constructor.
struct SchemeSpec {
  std::string name;         // "path-rwa": what users type
  std::string title;        // "per-path read/write/ancestor locks (design notes, as written)"
  std::string description;  // one paragraph
  Granularity granularity = Granularity::kPerPath;
  std::vector<ModeSpec> modes;
  std::vector<std::vector<Compatibility>> compatibility;  // modes x modes
  std::array<ModeId, kRoleCount> role_modes{};            // indexed by Role
  std::vector<std::vector<ModeId>> join;                  // modes x modes
  LockOrder order = LockOrder::ancestor_first();
  Acquisition acquisition = Acquisition::kInOrder;
  ModeJoining joining = ModeJoining::kJoin;
  Fairness fairness = Fairness::kFifo;
  std::uint32_t bypass_bound = 0;  // kBoundedBypass: 1..kMaxBypassBound; else 0
};

class Scheme {
 public:
  // Throws InputError(kBadParameter) naming the first violated invariant.
  explicit Scheme(SchemeSpec spec);

  const std::string& name() const noexcept { return spec_.name; }
  const std::string& title() const noexcept { return spec_.title; }
  const std::string& description() const noexcept { return spec_.description; }
  Granularity granularity() const noexcept { return spec_.granularity; }
  const LockOrder& order() const noexcept { return spec_.order; }
  Acquisition acquisition() const noexcept { return spec_.acquisition; }
  ModeJoining joining() const noexcept { return spec_.joining; }
  // True iff plans are strictly increasing in a strict total order with each
  // lock once: what deadlock freedom needs, and what the built-ins do.
  bool canonical_plans() const noexcept {
    return spec_.acquisition == Acquisition::kInOrder && spec_.joining == ModeJoining::kJoin &&
           spec_.order.totality() == Totality::kStrictTotal;
  }
  const SchemeSpec& spec() const noexcept { return spec_; }
  // The fairness promise (see Fairness above) and its bound: 0 for kFifo and
  // kNone, k for kBoundedBypass(k).
  Fairness fairness() const noexcept { return spec_.fairness; }
  std::uint32_t bypass_bound() const noexcept { return spec_.bypass_bound; }
  // Whether a wait that has suffered `overtakes` overtakes still keeps the
  // promise (kNone: always).
  bool keeps_fairness(std::uint32_t overtakes) const noexcept {
    return spec_.fairness == Fairness::kNone || overtakes <= spec_.bypass_bound;
  }
  // "FIFO", "bounded bypass (at most 3 overtakes per wait)", "none (measured only)".
  std::string fairness_text() const;

  std::size_t mode_count() const noexcept { return spec_.modes.size(); }
  const ModeSpec& mode(ModeId m) const { return spec_.modes.at(m.index); }
  const std::string& mode_name(ModeId m) const { return mode(m).name; }

  bool compatible(ModeId a, ModeId b) const noexcept {
    return (std::uint32_t{compatible_mask_[a.index]} >> b.index) & 1U;
  }
  // The modes that conflict with `a`, as a mask (bit b: !compatible(a, b)).
  std::uint32_t conflict_mask(ModeId a) const noexcept {
    return ~std::uint32_t{compatible_mask_[a.index]} & ((1U << mode_count()) - 1);
  }
  ModeId join(ModeId a, ModeId b) const noexcept { return join_[a.index][b.index]; }
  ModeId mode_for(Role role) const noexcept {
    return spec_.role_modes[static_cast<std::size_t>(role)];
  }

  // How a lock is shown: the path, or "global" for a global scheme.
  std::string lock_label(const model::Path& lock) const;

  // A copy of this scheme with another name and order: for trying an ordering
  // change without touching anything else.
  Scheme with_order(const LockOrder& order, std::string name) const;

 private:
  SchemeSpec spec_;
  std::array<std::uint8_t, kMaxModes> compatible_mask_{};
  std::array<std::array<ModeId, kMaxModes>, kMaxModes> join_{};
};

// A join entry that is weaker than one of its operands: `operand` conflicts
// with `witness`, but join(left, right) does not.
struct JoinDefect {
  ModeId left;
  ModeId right;
  ModeId joined;
  ModeId operand;
  ModeId witness;
};
std::vector<JoinDefect> join_defects(const Scheme& scheme);

// The built-in schemes, in the design notes' order, the corrected variant last.
std::span<const Scheme* const> builtin_schemes();
// nullptr if no built-in scheme has that name.
const Scheme* find_builtin_scheme(std::string_view name);

const Scheme& global_mutex_scheme();
const Scheme& global_rw_scheme();
const Scheme& path_rw_scheme();
const Scheme& path_rwa_scheme();
const Scheme& path_rwa_joined_scheme();

}  // namespace pathlock::impl
