#pragma once
// BasicPathLock's plan memo (path_lock.hpp: PLAN MEMO): each thread's memory
// of the last one-path requests it took wholly fast, per lock: for each step
// of the plan, the gate record it went through and the word it needs there
// (FastAsk::expect under its mask, which names the record's generation), its
// mode and its lock's length; and the thread's slot block. A hit skips
// planning, hashing every prefix and looking each one up in the gate cache:
// the request's path is compared once. It is a cache of what ask_fast would
// find, trusted no further: a (record, generation) names one path's gate
// for as long as that generation lasts (a record starts a new one before it
// serves another path), and every step re-reads its gate's word before and
// after its slot is set, as ask_fast's do. A gate that refuses ends the fast
// prefix there; the acquire plans the request and takes the rest slowly, in
// plan order (and drops the entry if that gate is of a new generation, or
// open with another set than a take expects).
// Part of the template's definitions: include path_lock_definitions.hpp,
// not this.

#include <bit>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <string_view>

#include "pathlock/impl/cached_key.hpp"
#include "pathlock/impl/path_hash.hpp"
#include "pathlock/impl/path_lock_gate.hpp"
#include "pathlock/impl/plan.hpp"
#include "pathlock/impl/thread_array.hpp"
#include "pathlock/path_lock.hpp"

namespace pathlock {

template <typename P>
struct BasicPathLock<P>::PlanMemoEntry {
  // Plans of more steps than a fast prefix takes are never memoized.
  static constexpr std::size_t kSteps = Gates::kSlotsPerBlock;
  static_assert(kSteps <= 16, "word_steps marks a step by one bit of 16");
  struct Step {
    GateRecord* record;
    std::uint64_t expect;  // FastAsk::expect and mask: the word the step needs
    std::uint64_t mask;
    impl::ModeId mode;
    std::uint16_t length;  // the step's lock is path[0, length): "/" or a prefix of the path
  };
  std::uint64_t lock_uid = 0;  // 0: empty (lock uids start at 1)
  std::uint64_t hash = 0;
  // impl::refusal_key of the last request refused this entry (memoize_plan).
  std::uint64_t refused = 0;
  MemoShape shape = MemoShape::kReadOne;
  std::uint8_t steps = 0;
  std::uint16_t word_steps = 0;  // bit i: step i took its gate's word (FastVia::kWord)
  // This thread's slot block (SlotCursor::slots) in the lock's gates, if a
  // step set a slot, and the thread number it is the block of. A hit uses
  // it only while the thread still has that number: a thread's number
  // changes once its claim is given back (a thread_local destructor that
  // acquires after it gets one with no block, and a new thread may hold the
  // old one), and a platform's may change between runs.
  Atomic<std::uintptr_t>* block = nullptr;
  std::size_t block_thread = 0;
  impl::CachedKey path;
  Step step[kSteps];
};
static_assert(impl::kMaxModes <= 256 && impl::CachedKey::kMaxBytes < 65536,
              "a memo step stores its mode in a byte and its length in two");

// The calling thread's memo (40 KiB and its long paths' buffers, shared by
// every lock of this platform), made by the first acquire it would hold;
// nullptr until then, if it could not be made (that thread plans every
// request), and once the thread's destructors freed it (impl::ThreadArray).
template <typename P>
typename BasicPathLock<P>::PlanMemoEntry* BasicPathLock<P>::plan_memo(GateCacheUse use) noexcept {
  static_assert(sizeof(PlanMemoEntry) * impl::kPlanMemoEntries <= 40 * 1024, "PLAN MEMO says 40 KiB");
  return impl::ThreadArray<PlanMemoEntry, impl::kPlanMemoEntries>::get(use);
}

template <typename P>
typename BasicPathLock<P>::MemoLookup BasicPathLock<P>::look_up_plan_memo(
    const model::Request& request) const noexcept {
  MemoLookup out;
  if (gates_->any_mode == 0) return out;
  const auto& reads = request.reads();
  const auto& writes = request.writes();
  if (reads.size() == 1 && writes.empty()) {
    out.shape = MemoShape::kReadOne;
    out.path = reads.front().str();
  } else if (writes.size() == 1 && reads.empty()) {
    out.shape = MemoShape::kWriteOne;
    out.path = writes.front().str();
  } else {
    return out;
  }
  if (out.path.size() > impl::CachedKey::kMaxBytes) return out;
  out.hash = impl::memo_hash(out.path);
  out.match = MemoMatch::kMiss;
  PlanMemoEntry* memo = plan_memo(GateCacheUse::kLookOnly);
  if (memo == nullptr) return out;
  PlanMemoEntry& e = memo[impl::plan_memo_index(out.hash)];
  if (e.lock_uid == uid_ && e.hash == out.hash && e.shape == out.shape && e.path.holds(out.path)) {
    out.match = MemoMatch::kHit;
    out.entry = &e;
  }
  return out;
}

template <typename P>
void BasicPathLock<P>::memoize_plan(const MemoLookup& lookup, std::span<const FastAsk> granted,
                                    const SlotCursor& cursor) noexcept {
  if (lookup.match != MemoMatch::kMiss || granted.size() > PlanMemoEntry::kSteps) return;
  PlanMemoEntry* memo = plan_memo(GateCacheUse::kMakeIfMissing);
  if (memo == nullptr) return;  // out of memory: this thread keeps planning
  PlanMemoEntry& e = memo[impl::plan_memo_index(lookup.hash)];
  // Another request's entry is taken only by a request refused it last
  // time (asked for twice in a row): requests spread over more paths than
  // the memo has entries would otherwise rewrite it at every acquire, for
  // no hit.
  const std::uint64_t asker = impl::refusal_key(uid_, lookup.hash);
  if (e.lock_uid != 0 && e.refused != asker) {
    e.refused = asker;
    return;
  }
  if (e.path.assign(lookup.path) == impl::CachedKey::Assigned::kRefused) {
    e.lock_uid = 0;  // out of memory for its text: not memoized
    return;
  }
  e.lock_uid = uid_;
  e.hash = lookup.hash;
  e.shape = lookup.shape;
  e.steps = static_cast<std::uint8_t>(granted.size());
  e.word_steps = 0;
  e.block = nullptr;
  for (std::size_t i = 0; i < granted.size(); ++i) {
    const FastAsk& a = granted[i];
    e.step[i] = {a.record, a.expect, a.mask, a.mode, static_cast<std::uint16_t>(a.key.size())};
    if (a.via == FastVia::kWord) e.word_steps = static_cast<std::uint16_t>(e.word_steps | 1U << i);
    if (a.via == FastVia::kSlot) e.block = cursor.slots;  // found: this thread has a block
  }
  e.block_thread = e.block != nullptr ? P::thread_slot() : 0;
}

template <typename P>
std::size_t BasicPathLock<P>::take_memoized_plan(const PlanMemoEntry& entry, std::string_view path,
                                                 Guard& guard) noexcept {
  // No array of asks: each is built where it is used, from the entry and
  // how its step asked (kept below), and stays in registers. The fence
  // after the slots waits for every store before it to drain, and an
  // array of asks cost several stores a step, read back whole with a
  // store-forwarding stall. (The lambdas, and every call an ask is passed
  // to, are inlined: an ask returned or passed through memory is stored.)
  // Each step's way (the word, or a reader's) is the entry's, not looked
  // up again.
  const auto memoized_ask = [&](std::size_t i) __attribute__((always_inline)) {
    const typename PlanMemoEntry::Step& s = entry.step[i];
    const std::string_view key = impl::kObserved<P> ? std::string_view(path.data(), s.length) : std::string_view();
    return FastAsk{nullptr, s.record, s.expect, s.mask, s.mode, key};
  };
  // Bit i: step i takes its gate's word (its mode conflicts with itself).
  const std::uint16_t worded = entry.word_steps;  // (shifted as is: widened first, GCC 12's loop grows)
  Atomic<std::uintptr_t>* slots[PlanMemoEntry::kSteps];  // step i's slot, if it set one
  std::uint16_t counted = 0;                             // bit i: step i counted itself (FastVia::kCount)
  SlotCursor cursor;
  if (entry.block != nullptr && P::thread_slot() == entry.block_thread) cursor.slots = entry.block;
  // A step that takes its gate's word (an exclusive one) finds it, under
  // contention, last written by another core: the line is fetched while the
  // steps before it are asked, not after.
  for (std::uint32_t m = worded; m != 0; m &= m - 1) {
    __builtin_prefetch(&entry.step[std::countr_zero(m)].record->word, 1);
  }
  const std::size_t steps = entry.steps;
  std::size_t n = 0;
  for (; n < steps; ++n) {
    FastAsk ask = memoized_ask(n);
    const bool takes_word = ((worded >> n) & 1U) != 0;
    if (!publish_ask(ask, guard.id_, cursor, takes_word ? FastVia::kWord : FastVia::kSlot)) break;
    if (!takes_word) {
      slots[n] = ask.slot;  // nullptr if counted
      if (ask.via == FastVia::kCount) counted = static_cast<std::uint16_t>(counted | 1U << n);
    }
  }
  // (i < n: each step asked, and its slot is written above.)
  const auto asked = [&](std::size_t i) __attribute__((always_inline)) {
    FastAsk ask = memoized_ask(i);
    if (((worded >> i) & 1U) != 0) {
      ask.via = FastVia::kWord;
    } else if (((std::uint32_t{counted} >> i) & 1U) != 0) {
      ask.via = FastVia::kCount;
    } else {
      ask.slot = slots[i];
    }
    return ask;
  };
  static_assert(PlanMemoEntry::kSteps <= Guard::kInline, "a memoized plan's holds fit a guard's inline room");
  assert(guard.count_ == 0);  // a hit starts its acquire
  return settle_fast(n, asked, guard, guard.inline_.at);
}

template <typename P>
typename BasicPathLock<P>::FastStart BasicPathLock<P>::start_fast(const model::Request& request,
                                                                  impl::ScratchSteps& scratch, Guard& guard) {
  const MemoLookup memo = look_up_plan_memo(request);
  if (memo.match == MemoMatch::kHit) {
    FastStart start;
    start.planned = memo.entry->steps;  // within a guard's inline room
    guard.status_ = AcquireStatus::kGranted;  // so a rollback releases what is held
    start.held = take_memoized_plan(*memo.entry, memo.path, guard);
    if (start.held < start.planned) {
      // A gate refused. Closed or taken: contention, which passes; the entry
      // stays. Of a new generation (its entry was evicted), or open with
      // another set than the one a take expects: the entry is dropped, so
      // that the next acquire that takes every step fast memoizes the gates
      // as they are then. (Records outlive the entries they serve: reading
      // one is safe.)
      const typename PlanMemoEntry::Step& refused = memo.entry->step[start.held];
      const std::uint64_t word = refused.record->word.load(std::memory_order_relaxed);
      const bool other_set = ((std::uint32_t{memo.entry->word_steps} >> start.held) & 1U) != 0 &&
                             Gates::admitted(word) != 0 &&
                             Gates::admitted(word) != Gates::admitted(refused.expect);
      if (Gates::generation(word) != Gates::generation(refused.expect) || other_set) memo.entry->lock_uid = 0;
      impl::StepBuffer& steps = scratch.get();
      impl::plan_into(scheme_, request, steps);  // the plan memoized: the rest is taken slowly, in order
      assert(steps.size() == start.planned);
      start.plan = &steps;
    }
    return start;
  }
  impl::StepBuffer& steps = scratch.get();
  impl::plan_into(scheme_, request, steps);
  // Room for every hold before the first: recording a hold never throws.
  if (steps.size() > Guard::kInline) guard.heap_.reserve(steps.size() - Guard::kInline);
  guard.status_ = AcquireStatus::kGranted;
  const std::size_t held = take_fast_prefix(std::span<const impl::StepView>(steps.begin(), steps.size()), guard,
                                            memo.match == MemoMatch::kMiss ? &memo : nullptr);
  return {held, steps.size(), &steps};
}

}  // namespace pathlock
