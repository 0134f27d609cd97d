// check-lock's runner on the lock that ships.
//
// Allocation failures: every built-in program, with one allocation failure
// injected at each allocation point inside a lock call (acquire and release)
// along every schedule without preemptions, passes. Each of these failed on
// the lock before its exception-safety fixes (a gate closed with fast holders
// and no pseudo hold; a waiter queued without its sleeper record; a hold
// recorded past a guard's inline room after the grant; an entry created and
// then left neither idle nor active; a noexcept release that allocated).

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/sim/lockcheck/check_lock.hpp"
#include "pathlock/sim/lockcheck/fifo_ledger.hpp"
#include "pathlock/sim/runtime/allocation.hpp"

namespace pathlock::sim::lockcheck {
namespace {

CheckLockOptions quick_options(AllocationFailures failures, std::size_t preemptions = 0) {
  CheckLockOptions options;
  options.preemptions = preemptions;
  options.pct_runs = 10;
  options.allocation_failures = failures;
  return options;
}

void expect_case_passes(const CaseResult& r) {
  EXPECT_TRUE(r.verdict == CaseVerdict::kPass || r.verdict == CaseVerdict::kExpectedDeadlock)
      << r.program << " under " << describe(r.setting) << ": " << to_string(r.verdict) << "\n"
      << r.failure << "\n"
      << r.trace << "replay schedule: " << r.schedule;
}

class BuiltinProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(BuiltinProgram, PassesWithAnAllocationFailureAtEveryPoint) {
  if (!runtime::allocation_injection_linked()) GTEST_SKIP() << "no allocation-failure injection in sanitizer builds";
  const LockProgram program = find_program(GetParam(), {});
  for (const LockSetting setting : {LockSetting{GateSetting::kOn, 1, 1}, LockSetting{GateSetting::kOff, 2, 0}}) {
    expect_case_passes(check_case(impl::path_rwa_joined_scheme(), program, setting,
                                  quick_options(AllocationFailures::kOnePerRun)));
  }
}

std::vector<std::string> builtin_names() {
  std::vector<std::string> names;
  for (const auto& p : builtin_programs()) names.push_back(p.name);
  return names;
}
INSTANTIATE_TEST_SUITE_P(LockCheck, BuiltinProgram, ::testing::ValuesIn(builtin_names()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

// The nested program that the model says can deadlock is reported as that.
TEST(LockCheck, ADeadlockTheModelPredictsIsNotAFailure) {
  const CaseResult r = check_case(impl::path_rwa_joined_scheme(), find_program("nested-behind-writer", {}),
                                  LockSetting{}, quick_options(AllocationFailures::kOff, 1));
  EXPECT_TRUE(r.model_predicts_deadlock);
  EXPECT_EQ(r.verdict, CaseVerdict::kExpectedDeadlock) << r.failure;
  EXPECT_NE(r.failure.find("deadlock"), std::string::npos) << r.failure;
}

// A failing run's schedule replays to the same failure.
TEST(LockCheck, TheScheduleOfAFailureReplaysIt) {
  const LockProgram program = find_program("nested-behind-writer", {});
  const CaseResult found =
      check_case(impl::path_rwa_joined_scheme(), program, LockSetting{}, quick_options(AllocationFailures::kOff, 1));
  ASSERT_FALSE(found.schedule.empty());
  const CaseResult replayed = replay_case(impl::path_rwa_joined_scheme(), program, LockSetting{}, found.schedule,
                                          quick_options(AllocationFailures::kOff));
  EXPECT_EQ(replayed.verdict, CaseVerdict::kExpectedDeadlock);
  EXPECT_EQ(replayed.failure, found.failure);
}

TEST(LockCheck, RandomProgramsAreDeterministicAndNamed) {
  const RandomFamily family{7, 5, 4, 3};
  const auto a = random_programs(family);
  const auto b = random_programs(family);
  ASSERT_EQ(a.size(), 5U);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(describe(a[i]), describe(b[i]));
    EXPECT_EQ(describe(find_program(a[i].name, family)), describe(a[i]));
    EXPECT_GE(a[i].threads.size(), 2U);
    EXPECT_LE(a[i].threads.size(), 4U);
  }
  EXPECT_THROW(find_program("no-such-program", family), model::InputError);
  EXPECT_THROW(random_programs({1, 1, 5, 1}), model::InputError);
}

// --- FIFO: the ledger judges grants against each lock's own arrival order ---

// The facts a lock tells its platform, for a scripted history. Task ids as
// DeterministicPlatform makes them: thread t's first id is (t + 1) << 32.
class History {
 public:
  explicit History(FairnessPromise promise = fairness_promise(impl::path_rwa_joined_scheme()))
      : scheme_(impl::path_rwa_joined_scheme()), ledger_(scheme_, promise) {}
  std::optional<std::string> tell(impl::LockEvent event, std::string_view lock, std::uint32_t thread,
                                  std::string_view mode) {
    const impl::TaskId task = (impl::TaskId{thread} + 1) << 32;
    return ledger_.observe({.event = event, .lock = lock, .task = task, .mode = mode_named(mode)});
  }
  // A fact about the gate's pseudo holder for `mode` (task id = the mode's index).
  std::optional<std::string> tell_pseudo(impl::LockEvent event, std::string_view lock, std::string_view mode) {
    const impl::ModeId m = mode_named(mode);
    return ledger_.observe({.event = event, .lock = lock, .task = m.index, .mode = m});
  }
  const FifoLedger& ledger() const { return ledger_; }

 private:
  impl::ModeId mode_named(std::string_view name) const {
    for (std::uint8_t m = 0; m < scheme_.mode_count(); ++m) {
      if (scheme_.mode_name(impl::ModeId{m}) == name) return impl::ModeId{m};
    }
    throw std::invalid_argument("no mode " + std::string(name));
  }
  const impl::Scheme& scheme_;
  FifoLedger ledger_;
};

using impl::LockEvent;

// A reader granted at once while a writer queued earlier still waits: what a
// LockQueue that ignored its waiters would do.
TEST(FifoLedger, AReaderBargingPastAQueuedWriterIsReported) {
  History h;
  EXPECT_FALSE(h.tell(LockEvent::kGranted, "/a", 0, "R"));
  EXPECT_FALSE(h.tell(LockEvent::kQueued, "/a", 1, "W"));
  EXPECT_EQ(h.tell(LockEvent::kGranted, "/a", 2, "R"),
            "FIFO broken: thread 2 was granted R on /a while thread 1, queued there earlier in W, still waits");
}

// The later reader queued behind the writer and granted after it: FIFO
// kept. The order is per lock, and a request compatible with a waiter may
// pass it (RA with a queued WA).
TEST(FifoLedger, GrantsInOrderAndCompatibleBypassAreFine) {
  History h;
  EXPECT_FALSE(h.tell(LockEvent::kGranted, "/a", 0, "R"));
  EXPECT_FALSE(h.tell(LockEvent::kQueued, "/a", 1, "W"));
  EXPECT_FALSE(h.tell(LockEvent::kGranted, "/b", 2, "R"));  // another lock
  EXPECT_FALSE(h.tell(LockEvent::kQueued, "/a", 2, "R"));
  EXPECT_EQ(h.ledger().waiting(), 2U);
  EXPECT_FALSE(h.tell(LockEvent::kReleased, "/a", 0, "R"));
  EXPECT_FALSE(h.tell(LockEvent::kGranted, "/a", 1, "W"));
  EXPECT_FALSE(h.tell(LockEvent::kReleased, "/a", 1, "W"));
  EXPECT_FALSE(h.tell(LockEvent::kGranted, "/a", 2, "R"));
  EXPECT_EQ(h.ledger().waiting(), 0U);

  History compatible;
  EXPECT_FALSE(compatible.tell(LockEvent::kGranted, "/c", 0, "R"));
  EXPECT_FALSE(compatible.tell(LockEvent::kQueued, "/c", 1, "WA"));
  EXPECT_FALSE(compatible.tell(LockEvent::kGranted, "/c", 2, "RA"));
}

// A waiter that withdrew (timeout, stop) is no longer overtaken.
TEST(FifoLedger, AWithdrawnWaiterIsNotOvertaken) {
  History h;
  EXPECT_FALSE(h.tell(LockEvent::kQueued, "/a", 1, "W"));
  EXPECT_FALSE(h.tell(LockEvent::kWithdrawn, "/a", 1, "W"));
  EXPECT_FALSE(h.tell(LockEvent::kGranted, "/a", 2, "R"));
}

// A gate: a fast holder's grant is the moment it published its slot. A
// writer that queued after the slot was set is not overtaken by the grant
// the re-read confirms; a writer queued before it is.
TEST(FifoLedger, AFastRootGrantIsJudgedAtItsCount) {
  History counted_first;
  EXPECT_FALSE(counted_first.tell(LockEvent::kAsked, "/", 0, "RA"));
  EXPECT_FALSE(counted_first.tell(LockEvent::kQueued, "/", 1, "W"));
  EXPECT_FALSE(counted_first.tell(LockEvent::kGranted, "/", 0, "RA"));

  History queued_first;
  EXPECT_FALSE(queued_first.tell(LockEvent::kQueued, "/", 1, "W"));
  EXPECT_FALSE(queued_first.tell(LockEvent::kAsked, "/", 2, "RA"));
  EXPECT_EQ(queued_first.tell(LockEvent::kGranted, "/", 2, "RA"),
            "FIFO broken: thread 2 was granted RA on / while thread 1, queued there earlier in W, still waits");

  History turned_back;  // the gate was closed: the count is withdrawn, nothing granted
  EXPECT_FALSE(turned_back.tell(LockEvent::kQueued, "/", 1, "W"));
  EXPECT_FALSE(turned_back.tell(LockEvent::kAsked, "/", 2, "RA"));
  EXPECT_FALSE(turned_back.tell(LockEvent::kWithdrawn, "/", 2, "RA"));
  EXPECT_FALSE(turned_back.tell(LockEvent::kQueued, "/", 2, "RA"));
  EXPECT_EQ(turned_back.ledger().waiting(), 2U);
}

// A writer queued at an exclusive gate: the pseudo hold that a closing
// step grants stands for it (no overtake), but any other grant in a
// conflicting mode overtakes it.
TEST(FifoLedger, AGatesPseudoHoldStandsForTheWritersQueuedAtIt) {
  History h;
  EXPECT_FALSE(h.tell(LockEvent::kQueuedAtGate, "/a", 1, "W"));
  EXPECT_FALSE(h.tell_pseudo(LockEvent::kGranted, "/a", "W"));
  EXPECT_EQ(h.tell(LockEvent::kGranted, "/a", 2, "W"),
            "FIFO broken: thread 2 was granted W on /a while thread 1, queued there earlier in W, still waits");

  History slow;  // a writer queued on the entry itself is overtaken by a pseudo hold
  EXPECT_FALSE(slow.tell(LockEvent::kQueued, "/a", 1, "W"));
  EXPECT_EQ(slow.tell_pseudo(LockEvent::kGranted, "/a", "W"),
            "FIFO broken: the gate's pseudo holder for W was granted W on /a while thread 1, queued there earlier "
            "in W, still waits");
}

// A bounded-bypass promise allows that many overtakes of one waiter.
TEST(FifoLedger, ABoundedBypassPromiseAllowsItsBound) {
  History h(FairnessPromise{FairnessKind::kBoundedBypass, 1});
  EXPECT_FALSE(h.tell(LockEvent::kQueued, "/a", 1, "W"));
  EXPECT_FALSE(h.tell(LockEvent::kGranted, "/a", 2, "R"));
  EXPECT_EQ(h.tell(LockEvent::kGranted, "/a", 3, "R"),
            "FIFO broken: thread 3 was granted R on /a while thread 1, queued there earlier in W, still waits "
            "(overtaken 2 times, beyond the scheme's bound of 1)");
}

// Every built-in scheme runs on LockQueue and promises FIFO.
TEST(FifoLedger, EveryBuiltinSchemePromisesFifo) {
  for (const impl::Scheme* scheme : impl::builtin_schemes()) {
    const FairnessPromise promise = fairness_promise(*scheme);
    EXPECT_EQ(promise.kind, FairnessKind::kFifo) << scheme->name();
    EXPECT_EQ(promise.max_bypass, 0U) << scheme->name();
  }
}

// A scheme's stated promise is what the ledger judges: a bound is the
// scheme's, and a scheme that promises none is measured, never reported.
TEST(FifoLedger, JudgesTheSchemesOwnPromise) {
  impl::SchemeSpec bounded = impl::path_rwa_joined_scheme().spec();
  bounded.name = "bounded";
  bounded.fairness = impl::Fairness::kBoundedBypass;
  bounded.bypass_bound = 2;
  const FairnessPromise b = fairness_promise(impl::Scheme(bounded));
  EXPECT_EQ(b.kind, FairnessKind::kBoundedBypass);
  EXPECT_EQ(b.max_bypass, 2U);
  impl::SchemeSpec none = impl::path_rwa_joined_scheme().spec();
  none.name = "none";
  none.fairness = impl::Fairness::kNone;
  const FairnessPromise n = fairness_promise(impl::Scheme(none));
  EXPECT_EQ(n.kind, FairnessKind::kNone);
  History h(n);
  EXPECT_FALSE(h.tell(LockEvent::kGranted, "/a", 0, "R"));
  EXPECT_FALSE(h.tell(LockEvent::kQueued, "/a", 1, "W"));
  EXPECT_FALSE(h.tell(LockEvent::kGranted, "/a", 2, "R"));
}

// The lock that ships keeps FIFO on the programs aimed at it under every
// built-in scheme (check_lock_bounded_* run them under every option for the
// recommended one), the gate on and off, every schedule with one preemption
// (cut at 2,000 runs): no false overtake from the gate's count-then-look, and
// every queued waiter is granted or withdrawn by the end. Under a sanitizer,
// cut at 300 runs: there the full search took 213 s, against 21 s in the
// release build, which runs it.
TEST(LockCheck, TheLockKeepsFifoOnTheProgramsAimedAtIt) {
  CheckLockOptions options = quick_options(AllocationFailures::kOff, 1);
#ifdef PATHLOCK_SANITIZED
  options.max_runs = 300;
#else
  options.max_runs = 2000;
#endif
  for (const impl::Scheme* scheme : impl::builtin_schemes()) {
    for (const char* name :
         {"readers-behind-queued-writer", "gate-closes-on-fast-readers", "gate-stays-closed-for-a-queued-writer"}) {
      for (const LockSetting setting : {LockSetting{GateSetting::kOn, 1, 0}, LockSetting{GateSetting::kOff, 2, 1}}) {
        expect_case_passes(check_case(*scheme, find_program(name, {}), setting, options));
      }
    }
  }
}

}  // namespace
}  // namespace pathlock::sim::lockcheck
