#pragma once
// Lock plans: the (lock, mode) steps a request acquires, in order.
//
// Invariants of every plan built by plan_for for a scheme with
// canonical_plans() (every built-in; tested):
//   steps are strictly increasing in scheme.order()   (each lock once)
//   a global scheme's plan has exactly one step, on the root path's slot
//   mode(p) = join of the role modes of p's roles     (see scheme.hpp)
// The variants a scheme file may ask for break these on purpose:
//   Acquisition::kRequestOrder  steps in request order (reads, then writes,
//                               ancestors first), each lock once
//   ModeJoining::kPerRole       a lock once per distinct role mode
//   a non-total order           sorted stably: tied locks keep request order

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pathlock/impl/scheme.hpp"
#include "pathlock/model/request.hpp"

namespace pathlock::impl {

// A plan step as a view: `lock` is the canonical text of a path ("/a/b"),
// pointing into the request's own paths (or at a static "/" for the root).
struct StepView {
  std::string_view lock;
  ModeId mode;
  friend bool operator==(const StepView&, const StepView&) = default;
};

// The steps of one plan, stored inline up to kInline steps (a request on one
// path of depth up to 31, or a copy between two depth-15 paths) and on the
// heap beyond: planning a typical request allocates nothing.
class StepBuffer {
 public:
  static constexpr std::size_t kInline = 32;
  void clear() noexcept {
    size_ = 0;
    heap_.clear();
  }
  // Takes the fields, not a StepView: storing them one by one avoids building
  // the struct on the stack and copying it (a store-forwarding stall).
  void push_back(std::string_view lock, ModeId mode) {
    if (size_ < kInline) {
      inline_[size_].lock = lock;
      inline_[size_].mode = mode;
    } else {
      if (size_ == kInline) heap_.assign(inline_.begin(), inline_.end());
      heap_.push_back({lock, mode});
    }
    ++size_;
  }
  void push_back(StepView step) {
    if (size_ < kInline) {
      inline_[size_] = step;
    } else {
      if (size_ == kInline) heap_.assign(inline_.begin(), inline_.end());
      heap_.push_back(step);
    }
    ++size_;
  }
  std::size_t size() const noexcept { return size_; }
  StepView* begin() noexcept { return size_ <= kInline ? inline_.data() : heap_.data(); }
  StepView* end() noexcept { return begin() + size_; }
  const StepView* begin() const noexcept { return size_ <= kInline ? inline_.data() : heap_.data(); }
  const StepView* end() const noexcept { return begin() + size_; }
  const StepView& operator[](std::size_t i) const noexcept { return begin()[i]; }
  void truncate(std::size_t n) noexcept {
    if (size_ > kInline && n <= kInline) std::copy(heap_.begin(), heap_.begin() + static_cast<std::ptrdiff_t>(n), inline_.begin());
    size_ = n;
    if (n <= kInline) heap_.clear(); else heap_.resize(n);
  }

 private:
  std::array<StepView, kInline> inline_{};
  std::vector<StepView> heap_;
  std::size_t size_ = 0;
};

// The plan of `request` as views into it, in acquisition order, each lock
// once: the one planning routine that plan_for, the simulator and the
// production lock all use. `out` is cleared first. No allocation unless the
// plan has more than StepBuffer::kInline steps.
void plan_into(const Scheme& scheme, const model::Request& request, StepBuffer& out);

// A thread's scratch buffer for a plan, reentrant: a call made while the
// thread's buffer is in use (by a handler that an async grant runs in the
// middle of an acquire) gets a buffer of its own. Claimed by the first
// get(), so that an acquire that never plans (a plan memo's hit) never
// touches it.
class ScratchSteps {
 public:
  ScratchSteps() noexcept {}
  ~ScratchSteps() {
    if (buffer_ == &own_.buffer) {
      std::destroy_at(&own_.buffer);
    } else if (buffer_ != nullptr) {
      thread_slot().in_use = false;
    }
  }
  ScratchSteps(const ScratchSteps&) = delete;
  ScratchSteps& operator=(const ScratchSteps&) = delete;
  StepBuffer& get() {
    if (buffer_ == nullptr) {
      Slot& slot = thread_slot();
      if (!slot.in_use) {
        slot.in_use = true;
        buffer_ = &slot.buffer;
      } else {
        buffer_ = std::construct_at(&own_.buffer);
      }
    }
    return *buffer_;
  }

 private:
  struct Slot {
    StepBuffer buffer;
    bool in_use = false;
  };
  static Slot& thread_slot() noexcept {
    thread_local Slot slot;
    return slot;
  }
  // Built only when the thread's buffer is in use: a std::optional here
  // was zeroed (800 bytes) by every acquire.
  union OwnRoom {
    OwnRoom() noexcept {}
    ~OwnRoom() {}
    StepBuffer buffer;
  };
  OwnRoom own_;
  StepBuffer* buffer_ = nullptr;
};

struct LockStep {
  model::Path lock;  // for a global scheme, the root path stands for the one lock
  ModeId mode;
  friend bool operator==(const LockStep&, const LockStep&) = default;
};

class Plan {
 public:
  Plan() = default;
  explicit Plan(std::vector<LockStep> steps) : steps_(std::move(steps)) {}
  std::span<const LockStep> steps() const noexcept { return steps_; }
  std::size_t size() const noexcept { return steps_.size(); }
  auto begin() const noexcept { return steps_.begin(); }
  auto end() const noexcept { return steps_.end(); }
  friend bool operator==(const Plan&, const Plan&) = default;

 private:
  std::vector<LockStep> steps_;
};

Plan plan_for(const Scheme& scheme, const model::Request& request);

// "RA(/) WA(/a) W(/a/b)".
std::string to_string(const Scheme& scheme, const Plan& plan);

// A lock that two plans take in incompatible modes.
struct PlanConflict {
  model::Path lock;
  ModeId first;   // the first plan's mode
  ModeId second;  // the second plan's mode
};

// The first lock, in the scheme's order, that both plans take in incompatible
// modes: the plans cannot be held together. nullopt if they can.
// REQUIRES: both plans were built by plan_for for `scheme`. Merges sorted
// plans; compares every pair of steps for a scheme without canonical plans.
std::optional<PlanConflict> plans_conflict(const Scheme& scheme, const Plan& a, const Plan& b);

}  // namespace pathlock::impl
