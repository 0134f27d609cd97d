#pragma once
// The choices a deterministic run is made of, and the schedule text that
// replays them.
//
// Every decision the runtime does not take by itself is one Choice in one
// sequence: which logical thread takes the next step, whether a waiting
// thread's deadline passes (the virtual clock jumps to it), whether an
// allocation inside an injection scope fails. A schedule is the list of the
// choices taken at the points that offered more than one; the same program
// under the same schedule takes the same steps.
//
// Schedule text: the choices separated by spaces; "3" runs thread 3, "T1"
// times out thread 1's wait, "A" lets an allocation succeed, "F" fails it.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pathlock::sim::runtime {

// At most this many logical threads in one run (the condition variables
// keep their waiters in fixed arrays so that waiting never allocates).
inline constexpr std::size_t kMaxThreads = 16;
inline constexpr std::uint32_t kNoThread = UINT32_MAX;

enum class ChoiceKind : std::uint8_t {
  kRun,              // `thread` takes the next step
  kTimeout,          // the clock jumps to `thread`'s deadline; it wakes and steps
  kAllocate,         // the allocation `thread` makes succeeds
  kFailAllocation,   // the allocation `thread` makes throws std::bad_alloc
};

struct Choice {
  ChoiceKind kind = ChoiceKind::kRun;
  std::uint32_t thread = 0;
  friend bool operator==(const Choice&, const Choice&) = default;
};

enum class ContinuationMode : std::uint8_t {
  kCurrentCanContinue,  // switching away from `current` is a preemption
  kSwitchIsFree,        // current finished, blocked, spins on unchanged state, or none yet
};

// One point where the strategy decides. `options` is non-empty, has at least
// two entries, and options[0] is the default: the current thread going on
// when it can, the allocation succeeding.
struct ChoicePoint {
  std::span<const Choice> options;
  std::uint32_t current = kNoThread;
  ContinuationMode continuation = ContinuationMode::kSwitchIsFree;
  std::size_t step = 0;  // steps taken so far in this run
};

// Whether taking `choice` at `point` is a preemption (a switch away from a
// thread that could have gone on), the unit of context bounding.
bool is_preemption(const ChoicePoint& point, const Choice& choice) noexcept;

std::string format_choice(const Choice& choice);
std::string format_schedule(std::span<const Choice> schedule);

struct ParsedSchedule {
  std::vector<Choice> choices;
  std::string error;  // empty when the text parsed
};
ParsedSchedule parse_schedule(std::string_view text);

}  // namespace pathlock::sim::runtime
