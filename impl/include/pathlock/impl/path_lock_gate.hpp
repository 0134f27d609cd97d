#pragma once
// BasicPathLock's gates: every entry's fast path for a set of mutually
// compatible modes, with per-thread visible holders, and closing, draining
// and reopening a gate through pseudo holders on its entry (path_lock.hpp:
// GATES). Part of the template's definitions: include
// path_lock_definitions.hpp, not this.
//
// The state, for one entry E with gate record G (G outlives E's path: it is
// recycled, never freed, while the lock lives):
//
//   G.word = generation << 25 | tail << 17 | slow << 16 | taken << 8 | admitted
//                                             admitted: a mask of modes; 0 = closed
//                                             taken: the mode a holder took the
//                                             word in, as a mask; 0 = none
//                                             slow: E's queue has holders while
//                                             its shared gate is open
//                                             tail: the last thread (slot + 1)
//                                             of the gate's own queue; 0 = none
//   a slot = &G.word | mode                   a fast hold of E in mode, visible
//                                             to every closer (seq_cst)
//   G.counts, a byte per mode                 the counted fast holds (COUNTED
//                                             READERS), as visible
//   gate open   =>  E's queue holds only admitted modes and queues nobody
//   exclusive gate open (admits one mode m, incompatible with itself)
//               =>  E's queue is idle; m is taken by at most one holder
//   shared gate open and a mode x taken (x conflicts with itself)
//               =>  slow is clear and E's queue is idle; x's holder saw no
//                   slot (or count) of G in a mode conflicting with x after
//                   it took x
//   shared gate open and E's queue holds  =>  slow is set
//   gate closed and a slot (G, m) is set, or m taken
//               =>  pseudo task m holds E in m (or that slot is being
//                   cleared, or m untaken, and its owner drains next)
//   G's generation changes  =>  no slot names G, nothing is taken and
//                               nobody queues at G (E is retired, G recycled)
//   tail set  =>  the gate is exclusive and open, or closed with a pseudo
//                 hold in its mode (which stands for the queue as for a
//                 taken word); E's own queue queues nobody but behind it
//
// Dekker: a fast acquirer sets its slots (one per step it takes fast,
// release stores into its own block), fences (seq_cst), reads each G.word;
// a closer stores G.word closed (seq_cst), then reads every slot (seq_cst).
// By C++20's fence rules the store-buffering outcome is excluded: either
// the closer sees the slot (and makes it a pseudo hold), or the acquirer
// sees the gate closed (and withdraws). A releaser clears its slots
// (release), fences, then reads each G.word: if closed, it drains. One
// fence per acquire and one per release, not a locked instruction per
// step; on x86 a memo write's take of its word (a locked compare-exchange)
// is its acquire's fence, and giving it back (a locked xadd, after the
// clears) its release's (kLockedRmwIsFence; a word handed on fences), but
// for a word lately contended, taken after the fence and given back before
// the clears (CONTENDED WORDS, path_lock_memo.hpp).
//
// An exclusive gate (a mode that conflicts with itself, such as W on a
// path that is only written) admits one holder at a time, so a slot, which
// any number of threads may set, cannot stand for it: its holder takes the
// word itself, by one compare-exchange from (generation, open, untaken) to
// taken, and gives it back by one fetch_sub of its taken bit (or hands
// it, still taken, to the thread queued behind it: the gate's queue,
// below). A closer clears the admitted bits by fetch_and (a taken mode
// stays taken, and becomes a pseudo hold); a holder whose fetch_sub finds
// the gate closed drains it. It opens only on an idle entry (a slow
// holder is no bit of the word), and every slow step closes it first.
//
// A shared gate lets such a mode be taken too (a write of a path that is
// mostly read): the step takes the word by the same compare-exchange, from
// (generation, open, untaken, no slow holder), then reads every slot
// (seq_cst); if one names G in a mode that conflicts with x, it gives the word
// back and goes the slow way. A reader that set its slot first is seen (Dekker
// again, the compare-exchange in the closer's place); one that sets it later
// reads x taken and withdraws. A slow step that joins the open gate sets slow
// first (a seq_cst read-modify-write), so no step takes the word beside it, or
// closes the gate if a mode was taken already. A closer may catch a take and a
// conflicting slot at once: one of the two is withdrawing, without any lock,
// so it waits for that (stand_for_fast_holders) before it makes pseudo holds,
// which are then all compatible.
//
// COUNTED READERS. A take of a shared gate reads every thread's block: on
// many cores, a line from each, which its owner then fetches back to set
// its next slot. A path both read and written by many threads (a file
// under a busy folder) pays that at every write. So a shared gate's
// readers hold it one of two ways, named by G.readers (written only by a
// thread holding the word taken): slots, or counts, a byte per mode in
// G.counts on the word's line. A counted reader adds one to its mode's
// byte (seq_cst), then re-reads the word as a slot's reader does, and a
// take reads the counts in place of the blocks (Dekker again: one line,
// the word's own). A reader also re-reads G.readers after the word: a take
// may have switched them between its first look and its fetch of the
// word, and a reader of the old way would go unseen by the next take. The
// take's release publishes the switch, and the word re-read reads that
// release (or a later write), so the reader sees the switch and withdraws.
// Closers and drains count both ways, so a reader withdrawing the old way
// is counted as any withdrawing slot is. Counts contend where many
// threads read one path at once, as slots do not; so a take switches its
// gate to counts after impl::calm_takes_to_count<P>() takes in a row that
// found no slot at all, and back to slots once a counted reader found
// another in (G.counts_contended) and no counted reader is in. Hot reads
// that no write takes keep their slots.
//
// An exclusive gate's queue (queue_at_gate): a blocking step that finds the
// word taken (or others queued) waits at the gate instead of closing it, so a
// path that writers take in turn hands over with one line's round trip (MCS,
// the tail in the word as in Linux's qspinlock). It joins by one
// compare-exchange of the tail, from an open word of its generation, and links
// itself behind the old tail. A thread that takes the word from the queue
// (clearing the tail if it is the last) reads the link of the thread behind it,
// and its release hands that thread the word: one store into its queuer, the
// one line it waits on, with the word left taken in the one mode the gate
// queues (no read-modify-write of the gate's line, which newcomers write; nor a
// read, if a thread is linked behind already). The first thread of a queue
// (nobody ahead of it: the holder took the word fast, or found nobody behind
// it) stores itself as the gate's head, waits for the holder to give the word
// back, and takes it by one compare-exchange. A queued thread holds the word
// even if the gate closed meanwhile: the closer counted the queue (a tail) as a
// fast holder of the mode, so the pseudo hold stands for every thread queued
// before the close, and requests that arrive later queue behind it (FIFO). A
// waiter spins while the queue turns (queue_turns), then sleeps on its queuer's
// condition variable; the thread that makes it ready (the word handed, or given
// back) wakes it if it sleeps (seq_cst: Dekker again). The head marks its sleep
// on the gate's line too (head_sleeps): a give-back with a tail set reads the
// mark on the line its fetch_sub fetched, and fetches the head's own line only
// to wake it. A word granted here is contended (the queue is reached only
// once a take was refused, or by a slow step): its release gives it back (or
// hands it on) before it clears the request's slots (WordsBack::kFirst;
// CONTENDED WORDS, path_lock_memo.hpp).

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <new>
#include <span>
#include <string_view>
#include <vector>

#include "pathlock/impl/cached_key.hpp"
#include "pathlock/impl/lock_queue.hpp"
#include "pathlock/impl/path_hash.hpp"
#include "pathlock/impl/path_lock_table.hpp"
#include "pathlock/impl/scheme.hpp"
#include "pathlock/impl/thread_array.hpp"
#include "pathlock/path_lock.hpp"

namespace pathlock::impl {

// The sets of modes a gate may admit: every maximal set of modes that is
// pairwise compatible (each mode with itself included) and closed under
// join, each as a mask. The set grown from the ancestor modes comes first,
// so an entry that is both a folder and a target prefers admitting its
// descendants' intention modes. Empty: the scheme has no such set (no mode
// is compatible with itself); its modes have exclusive gates only.
std::vector<std::uint32_t> gate_mode_sets(const Scheme& scheme);

// The modes that conflict with themselves, as a mask: each has an
// exclusive gate (one holder at a time, through the word itself).
std::uint32_t exclusive_gate_modes(const Scheme& scheme);

}  // namespace pathlock::impl

namespace pathlock {

// A gate record's copy of its entry's path, read by lookups through the
// lock-wide index (Gates::index) without the shard lock. It is rewritten
// only between two generations of the record (after retire_gate starts a
// new one, before the gate first opens for the new path), so the generation
// is a seqlock's sequence: a reader that read an open word, then the key,
// then (after an acquire fence) the same generation again, read the path of
// that generation.
template <typename P>
struct BasicPathLock<P>::IndexedKey {
  // Longer paths are never found through the index. With the length, the
  // copy fills a record's first two lines after the word, its reference
  // bit, its readers' representation, its queue's head and its readers'
  // counts (GateRecord): 24 + 8 + 96 = 128 bytes.
  static constexpr std::size_t kBytes = 96;
  static constexpr std::size_t kWords = kBytes / 8;
  static constexpr std::uint32_t kNone = 0;  // no path (a fresh record, or one too long)
  Atomic<std::uint32_t> length{};            // the path's length + 1, or kNone
  std::array<Atomic<std::uint64_t>, kWords> words{};

  // Bytes [8i, 8i + 8) of `key`, zero-padded. REQUIRES: 8i < key.size().
  static std::uint64_t word_of(std::string_view key, std::size_t i) noexcept {
    const std::size_t n = std::min<std::size_t>(8, key.size() - i * 8);
    // Not a memcpy of n bytes: with n unknown, that is a call.
    return impl::load_le(key.data() + i * 8, n);
  }
  static std::size_t words_for(std::size_t bytes) noexcept { return (bytes + 7) / 8; }
  // REQUIRES: the record's shard lock held, and its generation new since any
  // other path was written here (or the record fresh).
  void assign(std::string_view key) noexcept {
    // The new generation (stored before) is ordered before these stores: a
    // reader that reads any of them reads that generation after its fence.
    std::atomic_thread_fence(std::memory_order_release);
    if (key.size() > kBytes) {
      length.store(kNone, std::memory_order_relaxed);
      return;
    }
    length.store(static_cast<std::uint32_t>(key.size() + 1), std::memory_order_relaxed);
    for (std::size_t i = 0; i < words_for(key.size()); ++i) words[i].store(word_of(key, i), std::memory_order_relaxed);
  }
  // Whether the words read now spell `key` (the caller re-reads the
  // generation after an acquire fence before it trusts a yes).
  bool spells(std::string_view key) const noexcept {
    if (key.size() > kBytes || length.load(std::memory_order_relaxed) != key.size() + 1) return false;
    for (std::size_t i = 0; i < words_for(key.size()); ++i) {
      if (words[i].load(std::memory_order_relaxed) != word_of(key, i)) return false;
    }
    return true;
  }
  // What assign(key) left (for check_invariants).
  bool holds(std::string_view key) const noexcept {
    return key.size() > kBytes ? length.load(std::memory_order_relaxed) == kNone : spells(key);
  }
};

// One entry's gate (the word fast acquirers read) and who owns it.
// The word's line is its own: a folder's word is read by every core, and
// must not share its line with a busy neighbour's word that opens and
// closes, nor with the fields a slow step writes. The path's copy, read by
// index lookups and written only between generations, starts on the word's
// line: a lookup of a path of up to 32 bytes reads one line of the record
// (the copy's words start at byte 32, after its length).
template <typename P>
struct alignas(64) BasicPathLock<P>::GateRecord {
  Atomic<std::uint64_t> word{};  // generation << 25 | queue tail << 17 | slow << 16 | taken << 8 | admitted modes
  // Set by a fast grant when clear (so written once per eviction pass, not
  // per grant), cleared by eviction's first pass: CLOCK's reference bit.
  Atomic<bool> used_fast{};
  // The first thread of the gate's queue (nobody ahead of it), stored as it
  // queues: a releaser that gives the word back with a tail set wakes it
  // if it sleeps. May name a thread that has left (harmless: it then wakes
  // nobody who waits here).
  Atomic<std::uint8_t> queue_head{};
  // 1 while the queue's first thread may sleep (set before it sleeps, seq_cst):
  // a releaser that gave the word back with a tail set reads it here, on the
  // line its give-back fetched, and touches the head's own line only if set.
  Atomic<std::uint8_t> head_sleeps{};
  // How fast readers (steps in a mode the gate admits) hold it (COUNTED
  // READERS above): kReadersCounted set, they count themselves in `counts`;
  // clear, each sets a slot of its thread's block. The low bits count the
  // takes in a row that found no slot. Written only by a thread that holds
  // the word taken (so published by its release of it); read by anyone.
  Atomic<std::uint8_t> readers{};
  // Set (when clear) by a counted reader that found another counted reader
  // in: the next take switches the gate back to slots.
  Atomic<std::uint8_t> counts_contended{};
  // A byte per mode (Gates::count_unit): the counted readers holding, or
  // asking for, the gate in that mode.
  Atomic<std::uint64_t> counts{};
  IndexedKey key;  // written under shard->mu, read by anyone (IndexedKey)
  // protected by shard->mu:
  alignas(64) Node* owner = nullptr;  // the entry using this record, if any
  GateRecord* next_free = nullptr;
  Shard* shard = nullptr;  // fixed
  // Bumped by each thread as it takes the word from the queue (one writer
  // at a time): the threads queued behind spin while it moves
  // (spin_while_queue_moves). Off the word's line, which newcomers write
  // and the next holder reads: the queued threads' looks at the turns do
  // not take it from them.
  Atomic<std::uint32_t> queue_turns{};
  // The gates of the path's folders, shallowest first, as the last acquire
  // that took every step fast through this gate found them (FOLDER HINTS,
  // above take_fast_prefix); nullptr: none known. Written by any thread
  // without the shard lock: a hint, trusted no further than an index slot.
  static constexpr std::size_t kFolderHints = 4;  // a depth-4 path's folders, "/" among them: the line's room
  std::array<Atomic<GateRecord*>, kFolderHints> folder_hints{};
};

// Where a request's fast prefix sets its slots: this thread's block, found
// once per prefix, and the first slot not yet looked at (the slots before
// it were taken, by this prefix or by other guards of the thread).
template <typename P>
struct BasicPathLock<P>::SlotCursor {
  // The block's first slot; nullptr: not yet found (Gates::find_block). A
  // thread with no block gets block 0's, never read: next is then
  // kSlotsPerBlock.
  Atomic<std::uintptr_t>* slots = nullptr;
  std::size_t next = 0;  // kSlotsPerBlock once none is left
};

// A thread's place in a gate's queue (queue_at_gate), by its block
// number: a thread waits at one gate at a time.
template <typename P>
struct alignas(64) BasicPathLock<P>::GateQueuer {
  // Whether the word's holder has handed it the word (release_exclusive).
  static constexpr std::uint32_t kNotYet = 0;
  static constexpr std::uint32_t kHanded = 1;
  Atomic<std::uint32_t> next{};      // the slot + 1 of the thread queued behind, once linked; 0 = none yet
  Atomic<std::uint32_t> turn{};      // kNotYet, or kHanded: it holds the word
  Atomic<std::uint32_t> sleeping{};  // 1: it may sleep on cv (set under mu)
  Atomic<std::uint32_t> waiting{};   // 1: it is in a queue (waiting_acquisitions)
  typename P::Mutex mu;
  typename P::CondVar cv;
};

template <typename P>
struct BasicPathLock<P>::Gates {
  // A block per thread number (P::thread_slot(), distinct among live
  // threads): its slots are set only by that thread, so with plain stores.
  // A thread numbered beyond the blocks takes the slow path.
  static constexpr std::size_t kBlocks = 128;
  static constexpr std::size_t kSlotsPerBlock = 16;  // fast holds a thread has at once
  static constexpr std::size_t kCacheEntries = impl::kGateCacheEntries;  // per thread, direct-mapped by hash
  static constexpr std::uint64_t kModeMask = 0xff;
  struct alignas(64) Block {
    std::array<Atomic<std::uintptr_t>, kSlotsPerBlock> slots{};  // 0 = free
  };
  std::array<Block, kBlocks> blocks;
  // Each thread's place in a gate's queue (GateQueuer), by block number.
  static_assert(kBlocks < 256, "a queue's tail (a block number + 1) is 8 bits of the word");
  std::array<GateQueuer, kBlocks> queuers;
  // Blocks any thread has used: closers scan only these. Raised (seq_cst)
  // before a thread first publishes a slot in a block.
  alignas(64) Atomic<std::size_t> blocks_in_use{};
  // The lock-wide index (impl::gate_index_bucket): a bucket's slots name
  // records whose gates opened for paths of that bucket, each entry the
  // record's address | its path's tag (0 = empty). A lookup checks the
  // record's path and generation, so a stale slot or a tag shared by two
  // paths only misses. Lets a thread take a gate its own cache does not know.
  struct alignas(64) IndexBucket {
    std::array<Atomic<std::uintptr_t>, impl::kGateIndexWays> slots{};
  };
  std::unique_ptr<IndexBucket[]> index;
  std::size_t index_mask = 0;  // buckets - 1
  std::size_t index_ways = 0;  // slots used per bucket: kGateIndexWays, or every slot of a smaller index
  // Two slots per entry the table may keep idle (a power of two, at least
  // 2, at most 2^20: 8 MiB).
  static constexpr std::size_t kMaxIndexSlots = std::size_t{1} << 20;
  static std::size_t index_slots(std::size_t shards, std::size_t max_idle_per_shard) noexcept {
    const std::size_t idle = std::min(std::max<std::size_t>(1, shards), kMaxIndexSlots) *
                             std::min(std::max<std::size_t>(1, max_idle_per_shard), kMaxIndexSlots);
    return std::bit_ceil(std::min(2 * idle, kMaxIndexSlots));
  }
  void make_index(std::size_t slots) {
    index_ways = std::min(slots, impl::kGateIndexWays);
    index = std::make_unique<IndexBucket[]>(slots / index_ways);
    index_mask = slots / index_ways - 1;
  }
  IndexBucket& index_bucket(std::uint64_t hash) const noexcept {
    return index[impl::gate_index_bucket(hash, index_mask + 1)];
  }
  static std::uintptr_t index_entry(const GateRecord* g, std::uint64_t hash) noexcept {
    static_assert(alignof(GateRecord) > impl::kGateIndexTagMask, "the tag lives in a record address's low bits");
    return reinterpret_cast<std::uintptr_t>(g) | impl::gate_index_tag(hash);
  }
  static GateRecord* indexed_record(std::uintptr_t entry) noexcept {
    return reinterpret_cast<GateRecord*>(entry & ~impl::kGateIndexTagMask);
  }
  // The slot of `hash`'s bucket that holds `entry`, if one does.
  Atomic<std::uintptr_t>* find_index_slot(std::uint64_t hash, std::uintptr_t entry) const noexcept {
    auto& slots = index_bucket(hash).slots;
    for (std::size_t i = 0; i < index_ways; ++i) {
      if (slots[i].load(std::memory_order_relaxed) == entry) return &slots[i];
    }
    return nullptr;
  }
  std::vector<std::uint32_t> sets;  // impl::gate_mode_sets; empty = no fast path
  std::uint32_t any_mode = 0;       // union of sets: the modes worth trying fast
  std::size_t widest = 0;           // most modes in one set: pseudo holds a close may add
  std::uint32_t ancestor_modes = 0;  // a folder's modes: worth remembering at once

  static constexpr unsigned kTakenShift = 8;
  static constexpr std::uint64_t kSlowHolders = std::uint64_t{1} << 16;
  static constexpr unsigned kQueueShift = 17;
  static constexpr std::uint64_t kQueueMask = std::uint64_t{0xff} << kQueueShift;
  static constexpr unsigned kGenerationShift = 25;  // 39 bits: a record retired 2^39 times wraps
  static constexpr std::uint64_t kTakenMask = kModeMask << kTakenShift;
  static std::uint32_t queue_tail(std::uint64_t word) noexcept {
    return static_cast<std::uint32_t>((word & kQueueMask) >> kQueueShift);
  }
  static std::uint64_t with_tail(std::uint64_t word, std::uint64_t tail) noexcept {
    return (word & ~kQueueMask) | tail << kQueueShift;
  }
  static std::uint32_t admitted(std::uint64_t word) noexcept { return static_cast<std::uint32_t>(word & kModeMask); }
  static std::uint32_t taken(std::uint64_t word) noexcept {
    return static_cast<std::uint32_t>((word & kTakenMask) >> kTakenShift);
  }
  static std::uint64_t generation(std::uint64_t word) noexcept { return word >> kGenerationShift; }
  static std::uint64_t closed_word(std::uint64_t generation) noexcept { return generation << kGenerationShift; }
  static std::uint64_t open_word(std::uint64_t generation, std::uint32_t set) noexcept {
    return generation << kGenerationShift | set;
  }
  // A reader (a step in a mode its gate admits) is admitted by a word whose
  // bits under reader_mask(m) are reader_bits(generation, m): open in its
  // generation with m admitted, nothing taken. One masked compare, made
  // before its slot is set and again after the fence.
  static constexpr std::uint64_t kGenerationMask = ~std::uint64_t{0} << kGenerationShift;
  static std::uint64_t reader_mask(impl::ModeId m) noexcept {
    return kGenerationMask | kTakenMask | std::uint64_t{1} << m.index;
  }
  static std::uint64_t reader_bits(std::uint64_t generation, impl::ModeId m) noexcept {
    return generation << kGenerationShift | std::uint64_t{1} << m.index;
  }
  // Modes that conflict with themselves: each has an exclusive gate, the
  // set of that one mode (impl::exclusive_gate_modes), and is taken through
  // the word of an open shared gate too.
  std::uint32_t exclusive_modes = 0;
  bool exclusive(std::uint32_t set) const noexcept { return (set & exclusive_modes) != 0; }
  // Whether an open gate that admits `admitted` can serve a step in
  // `mode`: it admits the mode, or the mode conflicts with itself and the
  // gate is a shared set, whose word the step takes.
  bool serves(std::uint32_t admitted, impl::ModeId mode) const noexcept {
    const std::uint32_t m = 1U << mode.index;
    return (admitted & m) != 0 || (exclusive(m) && admitted != 0 && !exclusive(admitted));
  }
  // Counted readers (GateRecord::readers, counts): a byte of `counts` per
  // mode. A reader that finds kCountLimit in its mode's byte already goes
  // the slow way, so the byte never carries into the next: at most
  // kCountLimit holders plus one asker per thread (kBlocks) are counted.
  static constexpr std::uint8_t kReadersCounted = 0x80;
  static constexpr std::uint8_t kCalmTakesMask = 0x7f;
  static constexpr std::uint64_t kCountLimit = 127;
  static_assert(kCountLimit + kBlocks <= 0xff, "a mode's count fits its byte");
  static_assert(impl::kMaxModes * 8 <= 64, "a byte per mode in one word");
  static std::uint64_t count_unit(impl::ModeId m) noexcept { return std::uint64_t{1} << (8 * m.index); }
  static std::uint64_t count_of(std::uint64_t counts, std::size_t m) noexcept { return (counts >> (8 * m)) & 0xff; }
  // The bytes of `counts` of the modes in `modes` (a mask), nonzero if a
  // reader in one of them is counted.
  static std::uint64_t counted_in(std::uint64_t counts, std::uint32_t modes) noexcept {
    std::uint64_t bytes = 0;
    for (std::size_t m = 0; m < impl::kMaxModes; ++m) {
      if (((modes >> m) & 1U) != 0) bytes |= std::uint64_t{0xff} << (8 * m);
    }
    return counts & bytes;
  }
  static bool readers_counted(const GateRecord* g) noexcept {
    return (g->readers.load(std::memory_order_relaxed) & kReadersCounted) != 0;
  }
  static std::uintptr_t slot_value(const GateRecord* g, impl::ModeId m) noexcept {
    return reinterpret_cast<std::uintptr_t>(&g->word) | m.index;  // &word is 8-aligned; modes < 8
  }
  // Fast holders of `g`, by mode: its slots and counted readers (both: a
  // reader of the other kind may be withdrawing), the mode its word has taken
  // (also stored in `*taken_out`, if given), and, if threads queue at it,
  // one more in each of `queue_modes` (the exclusive mode whose gate it is
  // or was: the queue's waiters take the word in it).
  std::array<std::uint32_t, impl::kMaxModes> count(const GateRecord* g, std::uint32_t* taken_out = nullptr,
                                                   std::uint32_t queue_modes = 0) const noexcept {
    std::array<std::uint32_t, impl::kMaxModes> n{};
    const std::uint64_t word = g->word.load(std::memory_order_seq_cst);
    const std::uint32_t taken_mode = taken(word);
    if (taken_out != nullptr) *taken_out = taken_mode;
    const std::uint32_t queued = queue_tail(word) != 0 ? queue_modes : 0;
    const std::uint64_t counts = g->counts.load(std::memory_order_seq_cst);
    for (std::size_t m = 0; m < n.size(); ++m) {
      n[m] = ((taken_mode >> m) & 1U) + ((queued >> m) & 1U) + static_cast<std::uint32_t>(count_of(counts, m));
    }
    for_each_slot_of(g, [&](impl::ModeId m) {
      ++n[m.index];
      return SlotScan::kGoOn;
    });
    return n;
  }
  // The modes in which slots name `g`, as a mask, stopping at the first in
  // one of `stop_at` (seq_cst loads: the caller wrote g's word by a seq_cst
  // read-modify-write just before).
  std::uint32_t slot_modes(const GateRecord* g, std::uint32_t stop_at) const noexcept {
    std::uint32_t found = 0;
    for_each_slot_of(g, [&](impl::ModeId m) {
      found |= 1U << m.index;
      return ((stop_at >> m.index) & 1U) != 0 ? SlotScan::kStop : SlotScan::kGoOn;
    });
    return found;
  }
  // Calls fn(mode) for each slot of the blocks in use that names `g` (seq_cst
  // loads, the closers' side of the Dekker pairing), until fn says kStop.
  enum class SlotScan : std::uint8_t { kGoOn, kStop };
  template <typename Fn>
  void for_each_slot_of(const GateRecord* g, Fn fn) const noexcept {
    const std::uintptr_t id = slot_value(g, impl::ModeId{0});
    const std::size_t used = std::min(blocks_in_use.load(std::memory_order_seq_cst), kBlocks);
    for (std::size_t b = 0; b < used; ++b) {
      for (const auto& slot : blocks[b].slots) {
        const std::uintptr_t v = slot.load(std::memory_order_seq_cst);
        if (v == 0 || (v & ~std::uintptr_t{7}) != id) continue;
        if (fn(impl::ModeId{static_cast<std::uint8_t>(v & 7)}) == SlotScan::kStop) return;
      }
    }
  }
  // A free slot of this thread's block, set to (g, m) by a plain store: the
  // caller issues a seq_cst fence before it re-reads the gate's word.
  // nullptr if all are taken, or this thread has no block. Acquire and
  // release (plain moves on x86): a slot freed by another thread (a guard
  // moved there and released) ends that holder's critical section, and a
  // closer that reads our new value must happen after it (a plain store is
  // not in the freeing store's release sequence, as a CAS was).
  [[gnu::always_inline]] Atomic<std::uintptr_t>* publish(const GateRecord* g, impl::ModeId m,
                                                          SlotCursor& at) noexcept {
    if (at.slots == nullptr) [[unlikely]] {
      at.slots = find_block();
      if (at.slots == nullptr) {
        at.slots = blocks[0].slots.data();  // never read: nothing is left
        at.next = kSlotsPerBlock;
      }
    }
    for (; at.next < kSlotsPerBlock; ++at.next) {
      // Another thread may clear a slot of this block (a guard moved there
      // and released), never set one: a free slot stays free until we set it.
      Atomic<std::uintptr_t>& slot = at.slots[at.next];
      if (slot.load(std::memory_order_acquire) == 0) {
        slot.store(slot_value(g, m), std::memory_order_release);
        ++at.next;
        return &slot;
      }
    }
    return nullptr;
  }
  // The calling thread's block (its first slot), found once per fast
  // prefix; nullptr if the thread has none.
  [[gnu::noinline]] Atomic<std::uintptr_t>* find_block() noexcept {
    const std::size_t block = P::thread_slot();
    if (block >= kBlocks) return nullptr;
    if (blocks_in_use.load(std::memory_order_relaxed) <= block) {
      std::size_t seen = blocks_in_use.load(std::memory_order_seq_cst);
      while (seen <= block && !blocks_in_use.compare_exchange_weak(seen, block + 1, std::memory_order_seq_cst)) {
      }
    }
    return blocks[block].slots.data();
  }
};

// A thread's memory of where each path's gate is, for locks it used lately.
// Keyed by (lock, path text): a hit names the gate record and the generation
// it had; the fast path trusts neither until it has re-read the word.
template <typename P>
struct BasicPathLock<P>::GateCacheEntry {
  std::uint64_t lock_uid = 0;  // 0: empty (lock uids start at 1)
  std::uint64_t hash = 0;
  GateRecord* record = nullptr;
  std::uint64_t generation = 0;
  // impl::refusal_key of the last target refused this entry
  // (admit_target_to_gate_cache).
  std::uint64_t refused = 0;
  impl::CachedKey key;
};

// A fast step asked for: its slot is set, its gate not yet re-read (or, for
// an exclusive gate, no slot: settle_fast takes the word).
template <typename P>
struct BasicPathLock<P>::FastAsk {
  Atomic<std::uintptr_t>* slot = nullptr;  // nullptr: a step that takes the word
  GateRecord* record = nullptr;
  // The word it needs: its bits under `mask` equal `expect`. A reader's
  // (Gates::reader_bits, reader_mask), in the generation this thread
  // cached; a take's, the whole word its compare-exchange replaces (open
  // with the set it saw, untaken, no slow holder, nobody queued).
  std::uint64_t expect = 0;
  std::uint64_t mask = 0;
  impl::ModeId mode{};
  std::string_view key;          // for observe() only
  FastVia via = FastVia::kSlot;  // how it asked (publish_ask)

  static FastAsk reading(GateRecord* record, std::uint64_t generation, impl::ModeId mode,
                         std::string_view key) noexcept {
    return {nullptr, record, Gates::reader_bits(generation, mode), Gates::reader_mask(mode), mode, key};
  }
  std::uint64_t generation() const noexcept { return Gates::generation(expect); }
};

// Room for the asks of one fast prefix, not built: value-initialising all
// of them (1 KiB) cost about a tenth of an uncontended acquire, and
// each is constructed before anything reads it.
template <typename P>
union BasicPathLock<P>::FastAskRoom {
  static_assert(std::is_trivially_destructible_v<FastAsk>);
  FastAskRoom() noexcept {}
  FastAsk asks[Gates::kSlotsPerBlock];
};

// The calling thread's cache (60 KiB and its long paths' buffers, shared by
// every lock of this platform), made by its first slow step in a gate mode,
// so that threads that never lock pay nothing; nullptr if it is not made,
// could not be, or was freed by the thread's destructors (impl::ThreadArray).
template <typename P>
typename BasicPathLock<P>::GateCacheEntry* BasicPathLock<P>::gate_cache(GateCacheUse use) noexcept {
  static_assert(sizeof(GateCacheEntry) * Gates::kCacheEntries <= 60 * 1024, "GATES says 60 KiB");
  return impl::ThreadArray<GateCacheEntry, Gates::kCacheEntries>::get(use);
}

template <typename P>
bool BasicPathLock<P>::admit_target_to_gate_cache(std::uint64_t hash) noexcept {
  GateCacheEntry* cache = gate_cache(GateCacheUse::kMakeIfMissing);
  if (cache == nullptr) return false;
  GateCacheEntry& e = cache[impl::gate_cache_index(hash)];
  const bool taken_by_other = e.lock_uid != 0 && (e.lock_uid != uid_ || e.hash != hash);
  const std::uint64_t asker = impl::refusal_key(uid_, hash);
  if (!taken_by_other || e.refused == asker) return true;
  e.refused = asker;
  return false;
}

template <typename P>
void BasicPathLock<P>::remember_gate(std::string_view key, std::uint64_t hash, GateRecord* record,
                                     std::uint64_t generation) noexcept {
  if (key.size() > impl::CachedKey::kMaxBytes) return;  // the entry keeps what it holds
  GateCacheEntry* cache = gate_cache(GateCacheUse::kMakeIfMissing);
  if (cache == nullptr) return;  // out of memory: this thread takes the slow path
  GateCacheEntry& e = cache[impl::gate_cache_index(hash)];
  if (e.key.assign(key) == impl::CachedKey::Assigned::kRefused) {
    e.lock_uid = 0;  // too long, or out of memory for its text: not cached
    return;
  }
  e.lock_uid = uid_;
  e.hash = hash;
  e.record = record;
  e.generation = generation;
}

template <typename P>
bool BasicPathLock<P>::ask_fast(std::string_view key, std::uint64_t hash, impl::ModeId mode, impl::TaskId task,
                                FastAsk& ask, SlotCursor& cursor) noexcept {
  return look_up_gate(key, hash, mode, ask) && ask_found(ask, task, cursor);
}

template <typename P>
bool BasicPathLock<P>::ask_found(FastAsk& ask, impl::TaskId task, SlotCursor& cursor) noexcept {
  if (!gates_->exclusive(1U << ask.mode.index)) return publish_ask(ask, task, cursor);
  // A take: of the word as it is now, if a take may replace it (this look
  // is publish_ask's for a take; settle_fast takes the word).
  const std::uint64_t word = ask.record->word.load(std::memory_order_relaxed);
  if (!takeable(ask, word)) return false;
  ask.expect = word;
  ask.mask = ~std::uint64_t{0};
  ask.via = FastVia::kWord;
  return true;
}

template <typename P>
bool BasicPathLock<P>::look_up_gate(std::string_view key, std::uint64_t hash, impl::ModeId mode,
                                    FastAsk& ask) noexcept {
  const GateCacheEntry* cache = gate_cache(GateCacheUse::kLookOnly);
  const GateCacheEntry* e = cache != nullptr ? &cache[impl::gate_cache_index(hash)] : nullptr;
  if (e != nullptr && e->lock_uid == uid_ && e->hash == hash && e->key.holds(key)) {
    std::construct_at(&ask, FastAsk::reading(e->record, e->generation, mode, key));
  } else if (find_indexed_gate(key, hash, mode, ask)) {
    // It joins this thread's cache as a slow step's would (a folder at
    // once, a target by the cache's admission): the cache is the nearer
    // look, and no other path's gate can take its entry from it as an index
    // slot can be taken.
    if (((gates_->ancestor_modes >> mode.index) & 1U) != 0 || admit_target_to_gate_cache(hash)) {
      remember_gate(key, hash, ask.record, ask.generation());
    }
  } else {
    return false;
  }
  return true;
}

template <typename P>
inline bool BasicPathLock<P>::publish_ask(FastAsk& ask, impl::TaskId task, SlotCursor& cursor) noexcept {
  // A look first, so a closed (or taken) gate costs no store.
  if (!admits(ask, ask.record->word.load(std::memory_order_relaxed))) return false;
  if (Gates::readers_counted(ask.record)) {
    if (!count_reader(ask.record, ask.mode)) return false;
    ask.via = FastVia::kCount;
  } else {
    ask.slot = gates_->publish(ask.record, ask.mode, cursor);
    if (ask.slot == nullptr) return false;
    ask.via = FastVia::kSlot;
  }
  impl::observe<P>(impl::LockEvent::kAsked, ask.key, task, ask.mode);  // the grant's moment, if the gate is still open
  return true;
}

template <typename P>
bool BasicPathLock<P>::count_reader(GateRecord* g, impl::ModeId mode) noexcept {
  // seq_cst: the closers' and takers' side reads the counts after writing
  // the word (Dekker, as a slot's store and the fence after it).
  const std::uint64_t before = g->counts.fetch_add(Gates::count_unit(mode), std::memory_order_seq_cst);
  if (Gates::count_of(before, mode.index) >= Gates::kCountLimit) {
    leave_reader(FastVia::kCount, nullptr, g, mode);
    drain_closed_gates([g](auto&& drain) { drain(g); });  // a closer may have counted us
    return false;
  }
  // Another reader in: the count's line moves between them, which slots
  // would not make it do. A look first, so the hint is written once.
  if (before != 0 && g->counts_contended.load(std::memory_order_relaxed) == 0) {
    g->counts_contended.store(1, std::memory_order_relaxed);
  }
  return true;
}

template <typename P>
void BasicPathLock<P>::leave_reader(FastVia via, Atomic<std::uintptr_t>* slot, GateRecord* g,
                                    impl::ModeId mode) noexcept {
  if (via == FastVia::kSlot) {
    slot->store(0, std::memory_order_release);
  } else {
    g->counts.fetch_sub(Gates::count_unit(mode), std::memory_order_seq_cst);
  }
}

template <typename P>
void BasicPathLock<P>::switch_readers(GateRecord* g, std::uint32_t slots) noexcept {
  const std::uint8_t readers = g->readers.load(std::memory_order_relaxed);
  if ((readers & Gates::kReadersCounted) != 0) {
    // Back to slots once counted readers met, and none is in now (in any
    // mode: a compatible one may hold by its count).
    if (g->counts_contended.load(std::memory_order_relaxed) == 0 || g->counts.load(std::memory_order_seq_cst) != 0) {
      return;
    }
    g->counts_contended.store(0, std::memory_order_relaxed);
    g->readers.store(0, std::memory_order_relaxed);
    return;
  }
  if (slots != 0) {
    if ((readers & Gates::kCalmTakesMask) != 0) g->readers.store(0, std::memory_order_relaxed);
    return;
  }
  const int calm = (readers & Gates::kCalmTakesMask) + 1;
  if (calm < impl::calm_takes_to_count<P>()) {
    g->readers.store(static_cast<std::uint8_t>(calm), std::memory_order_relaxed);
    return;
  }
  g->counts_contended.store(0, std::memory_order_relaxed);
  g->readers.store(Gates::kReadersCounted, std::memory_order_relaxed);
}

template <typename P>
bool BasicPathLock<P>::find_indexed_gate(std::string_view key, std::uint64_t hash, impl::ModeId mode,
                                         FastAsk& ask) noexcept {
  if (gates_->index == nullptr || key.size() > IndexedKey::kBytes) return false;
  const std::uintptr_t tag = impl::gate_index_tag(hash);
  const auto& slots = gates_->index_bucket(hash).slots;
  for (std::size_t i = 0; i < gates_->index_ways; ++i) {
    const std::uintptr_t entry = slots[i].load(std::memory_order_acquire);
    if (entry == 0 || (entry & impl::kGateIndexTagMask) != tag) continue;
    switch (read_gate(Gates::indexed_record(entry), key, mode, ask)) {
      case GateRead::kFound: return true;
      case GateRead::kMoved: return false;
      case GateRead::kOther: continue;
    }
  }
  return false;
}

template <typename P>
typename BasicPathLock<P>::GateRead BasicPathLock<P>::read_gate(GateRecord* g, std::string_view key, impl::ModeId mode,
                                                                FastAsk& ask) noexcept {
  // The word first (acquire: an open word was stored after its path), the
  // path, then the generation again (IndexedKey's seqlock).
  const std::uint64_t w = g->word.load(std::memory_order_acquire);
  // (publish_ask says whether the gate serves the step now.)
  if (!gates_->serves(Gates::admitted(w), mode) || !g->key.spells(key)) return GateRead::kOther;
  std::atomic_thread_fence(std::memory_order_acquire);
  if (Gates::generation(g->word.load(std::memory_order_relaxed)) != Gates::generation(w)) return GateRead::kMoved;
  std::construct_at(&ask, FastAsk::reading(g, Gates::generation(w), mode, key));
  return GateRead::kFound;
}

template <typename P>
void BasicPathLock<P>::index_gate(const Node* node) noexcept {
  if (gates_->index == nullptr || node->key.size() > IndexedKey::kBytes) return;  // never looked up
  const std::uintptr_t entry = Gates::index_entry(node->gate, node->hash);
  if (gates_->find_index_slot(node->hash, entry) != nullptr) return;
  // Where the record may go: the first free slot, else the last one naming
  // a closed gate. Other paths' open gates keep their places: hot paths of
  // one bucket would otherwise take them from each other at every slow step.
  auto& slots = gates_->index_bucket(node->hash).slots;
  Atomic<std::uintptr_t>* free = nullptr;
  Atomic<std::uintptr_t>* closed = nullptr;
  std::uintptr_t closed_was = 0;
  for (std::size_t i = 0; i < gates_->index_ways && free == nullptr; ++i) {
    // Acquire: the record a slot names may be another shard's, made and
    // published (release) by another thread; its word is read below.
    const std::uintptr_t current = slots[i].load(std::memory_order_acquire);
    if (current == 0) {
      free = &slots[i];
    } else if (Gates::admitted(Gates::indexed_record(current)->word.load(std::memory_order_relaxed)) == 0) {
      closed = &slots[i];
      closed_was = current;
    }
  }
  // A lookup may read the slot before the gate's path is written: it
  // checks the path and generation anyway. A slot another shard's step
  // filled meanwhile is left to it (the index is a hint).
  std::uintptr_t expected = 0;
  if (free != nullptr) {
    free->compare_exchange_strong(expected, entry, std::memory_order_release);
  } else if (closed != nullptr) {
    closed->compare_exchange_strong(closed_was, entry, std::memory_order_release);
  }
}

template <typename P>
void BasicPathLock<P>::unindex_gate(const Node* node) noexcept {
  if (gates_->index == nullptr) return;
  std::uintptr_t entry = Gates::index_entry(node->gate, node->hash);
  if (Atomic<std::uintptr_t>* slot = gates_->find_index_slot(node->hash, entry)) {
    slot->compare_exchange_strong(entry, 0, std::memory_order_relaxed);
  }
}

template <typename P>
inline bool BasicPathLock<P>::admits(const FastAsk& ask, std::uint64_t word) noexcept {
  return (word & ask.mask) == ask.expect;
}

template <typename P>
inline bool BasicPathLock<P>::takeable(const FastAsk& ask, std::uint64_t word) noexcept {
  return Gates::generation(word) == ask.generation() && Gates::taken(word) == 0 &&
         (word & Gates::kSlowHolders) == 0 && Gates::queue_tail(word) == 0 &&
         gates_->serves(Gates::admitted(word), ask.mode);
}

template <typename P>
inline bool BasicPathLock<P>::take_exclusive(const FastAsk& ask, impl::TaskId task) noexcept {
  impl::observe<P>(impl::LockEvent::kAsked, ask.key, task, ask.mode);  // the compare-exchange is the grant's moment
  const std::uint32_t mode = 1U << ask.mode.index;
  std::uint64_t expected = ask.expect;
  if (ask.record->word.compare_exchange_strong(expected, expected | std::uint64_t{mode} << Gates::kTakenShift,
                                               std::memory_order_seq_cst)) {
    const std::uint32_t set = Gates::admitted(ask.expect);
    if (set == mode) return true;
    return keep_shared_word(ask.record, set, ask.mode, ask.key, task);
  }
  impl::observe<P>(impl::LockEvent::kWithdrawn, ask.key, task, ask.mode);
  return false;
}

template <typename P>
[[gnu::noinline]] bool BasicPathLock<P>::keep_shared_word(GateRecord* g, std::uint32_t set, impl::ModeId mode,
                                                          std::string_view key, impl::TaskId task) noexcept {
  // A shared gate: a fast holder in a conflicting mode may have set its
  // slot (or count) before the take (it sees nothing taken); one that
  // sets it after sees the take and withdraws. Readers hold one way at a
  // time: one that asked the other way withdraws (settle_fast).
  const std::uint32_t conflicting = set & scheme_.conflict_mask(mode);
  if (Gates::readers_counted(g)) {
    if (Gates::counted_in(g->counts.load(std::memory_order_seq_cst), conflicting) == 0) {
      switch_readers(g, 0);
      return true;
    }
  } else if (const std::uint32_t slots = gates_->slot_modes(g, conflicting); (slots & conflicting) == 0) {
    switch_readers(g, slots);
    return true;
  }
  impl::observe<P>(impl::LockEvent::kWithdrawn, key, task, mode);
  release_exclusive(g, mode);
  return false;
}

template <typename P>
inline typename BasicPathLock<P>::WordRelease BasicPathLock<P>::release_exclusive(GateRecord* g, impl::ModeId mode,
                                                                                 std::uint8_t successor) noexcept {
  // A thread queued behind us when we took the word from the gate's queue: the word is handed to it, still
  // taken (in the one mode the gate queues), by one store into its queuer, the line it waits on; the gate's
  // line is not touched, and a closer's pseudo hold stands for it as for us (the last one out drains).
  if (successor != 0) [[unlikely]] {
    hand_word_to(gates_->queuers[successor - 1]);
    return WordRelease::kHanded;
  }
  // A closer that closed the gate meanwhile saw the mode taken and stands
  // for this hold with a pseudo hold: the last one out (us) drains it.
  // Only the holder changes the taken bits while they are set, so taking
  // the one set bit away (one xadd) clears them (a fetch_and is a
  // compare-exchange loop on x86).
  const std::uint64_t before =
      g->word.fetch_sub(std::uint64_t{1} << (Gates::kTakenShift + mode.index), std::memory_order_seq_cst);
  if (Gates::queue_tail(before) != 0) wake_gate_queue_head(g);
  if (Gates::admitted(before) == 0) drain_gate(g);
  return WordRelease::kGivenBack;
}

// Out of line, as is queue_at_gate: the uncontended release and acquire
// around their calls stay as small as they were.
template <typename P>
[[gnu::noinline]] void BasicPathLock<P>::hand_word_to(GateQueuer& q) noexcept {
  // It holds the word from this store on. seq_cst: Dekker with its sleep
  // (wake_queuer), and our hold's writes before its own.
  q.turn.store(GateQueuer::kHanded, std::memory_order_seq_cst);
  wake_queuer(q);
}

template <typename P>
[[gnu::noinline]] void BasicPathLock<P>::wake_gate_queue_head(GateRecord* g) noexcept {
  // seq_cst, after the release's fetch_sub: a queue's first thread that
  // announced its sleep later reads the word untaken and does not sleep
  // (wait_in_gate_queue). Clear: it spins, or has yet to mark it: not asleep.
  if (g->head_sleeps.load(std::memory_order_seq_cst) == 0) return;
  const std::uint32_t head = g->queue_head.load(std::memory_order_seq_cst);
  if (head != 0) wake_queuer(gates_->queuers[head - 1]);
}

template <typename P>
void BasicPathLock<P>::wake_queuer(GateQueuer& q) noexcept {
  // The caller made q ready (seq_cst) first: a queuer that set sleeping
  // later sees it ready; one that set it before is woken under its mutex.
  if (q.sleeping.load(std::memory_order_seq_cst) == 0) return;
  std::lock_guard<typename P::Mutex> hold(q.mu);
  q.cv.notify_one();
}

template <typename P>
template <typename Ready>
void BasicPathLock<P>::wait_in_gate_queue(GateRecord* g, GateQueuer& q, QueuePlace place, Ready&& ready) noexcept {
  // As a slow waiter: spin while the queue moves (a handover within
  // microseconds costs no sleep and no wake-up, and a thread far back in
  // a queue of short holds stays awake), yield a few times, then sleep.
  if (spin_while_queue_moves(ready, [g] { return g->queue_turns.load(std::memory_order_relaxed); })) return;
  std::unique_lock<typename P::Mutex> hold(q.mu);
  // The head announces itself on the gate's line first: a releaser that
  // reads it clear read the word before our look below (seq_cst), so we
  // see the word given back and do not sleep.
  if (place == QueuePlace::kHead) g->head_sleeps.store(1, std::memory_order_seq_cst);
  q.sleeping.store(1, std::memory_order_seq_cst);
  while (!ready()) q.cv.wait(hold);
  q.sleeping.store(0, std::memory_order_relaxed);
  // Only the head of a queue writes it, and a new head comes only after we
  // take the word (and clear the tail, if we are the last).
  if (place == QueuePlace::kHead) g->head_sleeps.store(0, std::memory_order_relaxed);
}

template <typename P>
[[gnu::noinline]] typename BasicPathLock<P>::GateQueue BasicPathLock<P>::queue_at_gate(const impl::StepView& step,
                                                                     Guard& guard,
                                                                     const MemoWordStep* known) noexcept {
  const std::size_t slot = P::thread_slot();
  const std::uint32_t mode = 1U << step.mode.index;
  FastAsk ask;
  if (slot >= Gates::kBlocks) return GateQueue::kNotQueued;
  if (known != nullptr) {
    // (Its generation is checked against the word below, as a look-up's.)
    std::construct_at(&ask, FastAsk::reading(known->record, known->generation, step.mode, step.lock));
  } else if (!look_up_gate(step.lock, impl::path_hash(step.lock), step.mode, ask)) {
    return GateQueue::kNotQueued;
  }
  GateRecord* const g = ask.record;
  const std::uint64_t me = slot + 1;
  auto& queuers = gates_->queuers;
  GateQueuer& q = queuers[slot];
  q.next.store(0, std::memory_order_relaxed);
  q.turn.store(GateQueuer::kNotYet, std::memory_order_relaxed);
  // A memo hit's refusal read the word moments ago: a compare-exchange from
  // that value fetches the line once (and, if it fails, reads it anew), where
  // a load first would fetch it, then fetch it again to write it.
  std::uint64_t w = known != nullptr ? known->word : g->word.load(std::memory_order_relaxed);
  std::uint32_t ahead = 0;      // the thread queued last before us (slot + 1)
  std::uint32_t successor = 0;  // the thread queued next behind us, once we hold (slot + 1)
  for (;;) {
    // Only the exclusive gate of this mode, open in the generation looked up.
    if (Gates::generation(w) != ask.generation() || Gates::admitted(w) != mode) return GateQueue::kNotQueued;
    if (Gates::taken(w) == 0 && Gates::queue_tail(w) == 0) {
      // Free, nobody queued: take it as a fast step does.
      impl::observe<P>(impl::LockEvent::kAsked, step.lock, guard.id_, step.mode);
      if (g->word.compare_exchange_weak(w, w | std::uint64_t{mode} << Gates::kTakenShift, std::memory_order_seq_cst)) {
        break;
      }
      impl::observe<P>(impl::LockEvent::kWithdrawn, step.lock, guard.id_, step.mode);
      continue;
    }
    if (g->word.compare_exchange_weak(w, Gates::with_tail(w, me), std::memory_order_seq_cst)) {
      // (Told in the compare-exchange's step: no atomic operation between.)
      impl::observe<P>(impl::LockEvent::kQueuedAtGate, step.lock, guard.id_, step.mode);
      // The link first: the thread ahead may be holding the word already,
      // and waits for it to know whom to hand the word to.
      ahead = Gates::queue_tail(w);
      if (ahead != 0) queuers[ahead - 1].next.store(static_cast<std::uint32_t>(me), std::memory_order_release);
      q.waiting.store(1, std::memory_order_relaxed);
      if (ahead != 0) {
        // The thread ahead hands us the word when it lets it go (it read
        // our link once it held it): meanwhile we read our own line (and,
        // once a spin round, the queue's turns).
        // Ours from then on, still taken in this mode: only the tail, if it
        // is us, is cleared (newcomers and closers write the word meanwhile).
        wait_in_gate_queue(g, q, QueuePlace::kLinked,
                           [&q] { return q.turn.load(std::memory_order_seq_cst) == GateQueuer::kHanded; });
        // Linked behind already: the tail is that thread or a later one,
        // never us again, and the gate's line is left alone (MCS).
        successor = q.next.load(std::memory_order_acquire);
        if (successor == 0) {
          w = g->word.load(std::memory_order_relaxed);
          while (Gates::queue_tail(w) == me &&
                 !g->word.compare_exchange_weak(w, Gates::with_tail(w, 0), std::memory_order_seq_cst)) {
          }
        }
      } else {
        // First in the queue: the word's holder (a fast one, or one that
        // found nobody behind it) does not know us, and gives the word back.
        // We wait for that and take it by one compare-exchange, open or
        // closed (a closer's pseudo hold stands for this queue).
        g->queue_head.store(static_cast<std::uint8_t>(me), std::memory_order_seq_cst);
        for (;;) {
          w = g->word.load(std::memory_order_seq_cst);
          if (Gates::taken(w) == 0) {
            const std::uint64_t tail = Gates::queue_tail(w) == me ? 0 : Gates::queue_tail(w);
            const std::uint64_t taken = Gates::with_tail(w, tail) | std::uint64_t{mode} << Gates::kTakenShift;
            if (g->word.compare_exchange_weak(w, taken, std::memory_order_seq_cst)) break;
            continue;
          }
          wait_in_gate_queue(g, q, QueuePlace::kHead,
                             [g] { return Gates::taken(g->word.load(std::memory_order_seq_cst)) == 0; });
        }
      }
      // (w, if we know no successor yet: as our take or our clearing of the
      // tail found it.)
      q.waiting.store(0, std::memory_order_relaxed);
      if constexpr (impl::max_spin_rounds<P>() > 1) {
        g->queue_turns.store(g->queue_turns.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      }
      if (successor == 0 && Gates::queue_tail(w) != me) {
        // Somebody queued behind: its link follows its compare-exchange at
        // once, unless its thread was preempted between the two (then give
        // it the CPU: it may share ours). Our release hands it the word.
        for (int spins = 0; (successor = q.next.load(std::memory_order_acquire)) == 0; ++spins) {
          if (spins < kLinkSpins) {
            P::pause();
          } else {
            P::yield();
          }
        }
      }
      break;
    }
  }
  hold_fast(guard, nullptr, FastVia::kWord, nullptr, g, step.mode, step.lock, static_cast<std::uint8_t>(successor));
  // Reached once a take was refused: a word others want (CONTENDED WORDS,
  // path_lock_memo.hpp). Free by the time we came, it costs a fence at most.
  guard.words_back_ = WordsBack::kFirst;
  return GateQueue::kGranted;
}

template <typename P>
inline void BasicPathLock<P>::hold_fast(Guard& guard, typename Guard::Held* at, FastVia via,
                                        Atomic<std::uintptr_t>* slot, GateRecord* gate, impl::ModeId mode,
                                        std::string_view key, std::uint8_t successor) noexcept {
  impl::observe<P>(impl::LockEvent::kGranted, key, guard.id_, mode);
  typename Guard::Held& h = at != nullptr ? *at : guard.next_held();
  h.slot = slot;
  h.gate = gate;
  h.mode = mode;
  h.via = via;
  h.successor = successor;
  // Written once per eviction pass, not per grant: a look first.
  if (!gate->used_fast.load(std::memory_order_relaxed)) gate->used_fast.store(true, std::memory_order_relaxed);
}

template <typename P>
std::size_t BasicPathLock<P>::settle_fast(std::span<const FastAsk> asked, Guard& guard) noexcept {
  const std::size_t n = asked.size();
  if (n == 0) return 0;
  // Where the holds go if they fit the guard's inline room (written there,
  // its count raised once: a hold's mode is a byte, which may alias the
  // count, re-read at each push); nullptr: pushed.
  typename Guard::Held* const room = guard.inline_room(n);
  std::atomic_thread_fence(std::memory_order_seq_cst);  // every slot set above, before any word is read
  std::size_t granted = 0;
  while (granted < n) {
    const FastAsk& a = asked[granted];
    // A reader holds if the word still admits it, and its gate's readers
    // still hold its way: the gate may have switched between the look at
    // the way and the word (under a take, whose release is read here).
    const bool held = a.via == FastVia::kWord
                          ? take_exclusive(a, guard.id_)
                          : admits(a, a.record->word.load(std::memory_order_seq_cst)) &&
                                Gates::readers_counted(a.record) == (a.via == FastVia::kCount);
    if (!held) break;
    hold_fast(guard, room != nullptr ? room + granted : nullptr, a.via, a.slot, a.record, a.mode, a.key);
    ++granted;
  }
  if (room != nullptr) guard.count_ += granted;
  // The first gate that closed meanwhile, and every step after it (taken
  // out of order otherwise), are withdrawn: the caller takes them slowly.
  // (An exclusive step holds nothing until its compare-exchange succeeds.)
  for (std::size_t i = granted; i < n; ++i) {
    const FastAsk& a = asked[i];
    if (a.via == FastVia::kWord) continue;
    impl::observe<P>(impl::LockEvent::kWithdrawn, a.key, guard.id_, a.mode);
    leave_reader(a.via, a.slot, a.record, a.mode);
  }
  if (granted < n) {
    drain_closed_gates([&](auto&& drain) {
      for (std::size_t i = granted; i < n; ++i) {
        const FastAsk& a = asked[i];
        if (a.via != FastVia::kWord) drain(a.record);
      }
    });
  }
  return granted;
}

template <typename P>
template <typename ForEachGate>
void BasicPathLock<P>::drain_closed_gates(ForEachGate&& for_each_gate, ClearsOrdered ordered) noexcept {
  // The slots cleared, before any word is read.
  if (ordered == ClearsOrdered::kByLockedRmw) {
    impl::fence_beside_locked_rmw();
  } else {
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  // A closer may have counted a cleared slot: the last one out drains.
  for_each_gate([this](GateRecord* g) __attribute__((always_inline)) {
    if (Gates::admitted(g->word.load(std::memory_order_seq_cst)) == 0) drain_gate(g);
  });
}

// FOLDER HINTS. A one-path request the thread's plan memo misses (paths
// spread over more than its entries: a folder tree read and written at
// random) still names folders whose gates some thread took fast a moment
// ago. The target's gate is looked up first, and its record names its
// folders' gates as the last acquire that took every step fast through it
// found them (GateRecord::folder_hints): each folder's step reads that
// record as the index's lookups read theirs (read_gate: the word, the
// path's copy, the generation again), and is looked up as before only if
// the record no longer holds its path in an open generation, or no hint
// names one. A hint is a guess, never trusted: records are never freed,
// and a record of another path or generation only fails read_gate (a
// target's record reused by a deeper path keeps the old path's hints:
// check-lock's stale-folder-hint). It spares each folder a hash and a look
// in the thread's gate cache (whose 512 entries a tree of 585 folders and
// 4,096 objects overflows): mixed, one thread, 129.5 -> 119.5 ns an
// acquire+release when written (no other request's steps, hence no other
// acquire's order, change).
template <typename P>
std::size_t BasicPathLock<P>::take_fast_prefix(std::span<const impl::StepView> steps, Guard& guard,
                                               const MemoLookup* memo) noexcept {
  if (gates_->any_mode == 0 || steps.empty()) return 0;
  FastAskRoom room;
  FastAsk* const asked = room.asks;
  SlotCursor cursor;
  const std::size_t last = std::min(steps.size(), Gates::kSlotsPerBlock) - 1;
  // A memoizable request (one path) whose plan is its folders, then it.
  const bool hinted = memo != nullptr && last >= 1 && last <= GateRecord::kFolderHints && last + 1 == steps.size();
  // (start_fast hashed the request's path: the last step's, where it is
  // the request's own text.)
  const bool hashed = hinted && steps[last].lock.data() == memo->path.data() &&
                      steps[last].lock.size() == memo->path.size();
  const std::uint64_t last_hash = hashed ? memo->path_hash : impl::path_hash(steps[last].lock);
  std::array<GateRecord*, GateRecord::kFolderHints> hints{};
  FastAsk target;  // hinted: the target's gate, looked up first (record nullptr: not found)
  if (hinted) {
    if (((gates_->any_mode >> steps[last].mode.index) & 1U) != 0 &&
        look_up_gate(steps[last].lock, last_hash, steps[last].mode, target)) {
      for (std::size_t i = 0; i < last; ++i) hints[i] = target.record->folder_hints[i].load(std::memory_order_relaxed);
    } else {
      target.record = nullptr;
    }
  } else if (gates_->index != nullptr) {
    // The target's gate is the one a thread's cache least often knows (a
    // folder's is cached at once): its index bucket is fetched while the
    // folders' steps are asked.
    __builtin_prefetch(&gates_->index_bucket(last_hash));
  }
  const auto ask = [&](std::size_t i) __attribute__((always_inline)) {
    const impl::StepView& step = steps[i];
    if (((gates_->any_mode >> step.mode.index) & 1U) == 0) return false;
    if (hinted && i == last) {
      if (target.record == nullptr) return false;
      std::construct_at(&asked[i], target);
      return ask_found(asked[i], guard.id_, cursor);
    }
    if (hinted && hints[i] != nullptr && read_gate(hints[i], step.lock, step.mode, asked[i]) == GateRead::kFound) {
      return ask_found(asked[i], guard.id_, cursor);
    }
    return ask_fast(step.lock, i == last ? last_hash : impl::path_hash(step.lock), step.mode, guard.id_, asked[i],
                    cursor);
  };
  std::size_t n = 0;
  while (n < steps.size() && n < Gates::kSlotsPerBlock && ask(n)) ++n;
  const std::size_t granted = settle_fast(std::span<const FastAsk>(asked, n), guard);
  if (memo != nullptr && granted == steps.size()) {
    memoize_plan(*memo, std::span<const FastAsk>(asked, granted), cursor);
    if (hinted) {
      // A look first: a hint already right is not written again.
      GateRecord* const mine = asked[last].record;
      for (std::size_t i = 0; i < last; ++i) {
        if (mine->folder_hints[i].load(std::memory_order_relaxed) != asked[i].record) {
          mine->folder_hints[i].store(asked[i].record, std::memory_order_relaxed);
        }
      }
    }
  }
  return granted;
}

template <typename P>
bool BasicPathLock<P>::try_fast(std::string_view key, std::uint64_t hash, impl::ModeId mode, Guard& guard) noexcept {
  FastAsk ask;
  SlotCursor cursor;
  if (!ask_fast(key, hash, mode, guard.id_, ask, cursor)) return false;
  return settle_fast(std::span<const FastAsk>(&ask, 1), guard) == 1;
}

template <typename P>
void BasicPathLock<P>::close_gate(Node* node) {
  GateRecord* g = node->gate;
  // Its admitted bits are written only under this shard lock.
  const std::uint32_t admitted = Gates::admitted(g->word.load(std::memory_order_relaxed));
  if (admitted == 0) return;
  // Room for every pseudo hold first: once the gate is closed, the fast
  // holders must become pseudo holds, or a conflicting request would be
  // granted beside them.
  // One per admitted mode, and one for a mode that conflicts with itself
  // taken on a shared set (an exclusive gate's taken mode is its admitted one).
  const bool may_be_taken_beside = gates_->exclusive_modes != 0 && !gates_->exclusive(admitted);
  node->queue.reserve_holders(static_cast<std::size_t>(std::popcount(admitted)) + (may_be_taken_beside ? 1U : 0U));
  // A taken mode stays taken; slow holders are not marked on a closed gate.
  g->word.fetch_and(~(Gates::kModeMask | Gates::kSlowHolders), std::memory_order_seq_cst);
  // The fast holders hold the entry in admitted (or taken) modes,
  // compatible with every holder of its queue (which queues nobody while
  // the gate is open, and holds nothing beside a taken mode) and with each
  // other: each mode's pseudo hold is granted at once, and whoever
  // conflicts with one queues behind it.
  stand_for_fast_holders(node, admitted);
}

template <typename P>
bool BasicPathLock<P>::mark_slow_holders(Node* node) noexcept {
  Atomic<std::uint64_t>& word = node->gate->word;
  if ((word.load(std::memory_order_relaxed) & Gates::kSlowHolders) != 0) return true;
  // seq_cst read-modify-write: a take's compare-exchange comes before
  // (it is seen here) or after (it fails). The bit is clear and written
  // only under the shard lock, so adding it sets it.
  return Gates::taken(word.fetch_add(Gates::kSlowHolders, std::memory_order_seq_cst)) == 0;
}

template <typename P>
void BasicPathLock<P>::clear_slow_holders(Node* node) noexcept {
  Atomic<std::uint64_t>& word = node->gate->word;
  if ((word.load(std::memory_order_relaxed) & Gates::kSlowHolders) != 0) {
    word.fetch_sub(Gates::kSlowHolders, std::memory_order_seq_cst);  // set, and written only under the shard lock
  }
}

template <typename P>
void BasicPathLock<P>::stand_for_fast_holders(Node* node, std::uint32_t admitted) noexcept {
  // A mode taken beside a slot that conflicts with it: a take and a fast
  // step caught half-way, and one of them is withdrawing (take_exclusive),
  // with no lock to take first. Nothing new comes: the gate is closed.
  std::uint32_t taken = 0;
  auto fast = gates_->count(node->gate, &taken);
  while (taken != 0 && conflicting_slots(fast, taken)) {
    P::pause();
    fast = gates_->count(node->gate, &taken);
  }
  // Threads queued at an exclusive gate (which has no slots) are its fast
  // holders too: its pseudo hold stands for them.
  if (gates_->exclusive(admitted)) fast = gates_->count(node->gate, &taken, admitted);
  for (std::uint8_t m = 0; m < scheme_.mode_count(); ++m) {
    const impl::ModeId mode{m};
    if ((((admitted | taken) >> m) & 1U) == 0 || fast[m] == 0) continue;
    node->queue.acquire(scheme_, pseudo_task(mode), mode);
    impl::observe<P>(impl::LockEvent::kGranted, node->key, pseudo_task(mode), mode);
    node->pseudo_held |= 1U << m;
  }
}

template <typename P>
bool BasicPathLock<P>::conflicting_slots(const std::array<std::uint32_t, impl::kMaxModes>& fast,
                                         std::uint32_t taken) const noexcept {
  const impl::ModeId x{static_cast<std::uint8_t>(std::countr_zero(taken))};
  for (std::uint8_t m = 0; m < scheme_.mode_count(); ++m) {
    const std::uint32_t slots = fast[m] - ((taken >> m) & 1U);
    if (slots != 0 && ((scheme_.conflict_mask(x) >> m) & 1U) != 0) return true;
  }
  return false;
}

template <typename P>
void BasicPathLock<P>::maybe_open_gate(Node* node, impl::ModeId mode) noexcept {
  const std::uint64_t w = node->gate->word.load(std::memory_order_relaxed);
  if (Gates::admitted(w) != 0 || node->pseudo_held != 0 || node->queue.queued_mask() != 0) return;
  const std::uint32_t need = node->queue.held_mask() | (1U << mode.index);
  for (const std::uint32_t set : gates_->sets) {
    if ((need & ~set) == 0) {
      open_gate(node, w, set);
      return;
    }
  }
  // An exclusive gate opens once the entry is idle (reopen_idle_gate). A
  // shared set, once opened, keeps its place: the read after a write is
  // fast, and the write takes the shared gate's word (take_exclusive).
  if (gates_->exclusive(1U << mode.index) && (node->reopen_set == 0 || gates_->exclusive(node->reopen_set))) {
    node->reopen_set = 1U << mode.index;
  }
}

template <typename P>
void BasicPathLock<P>::reopen_idle_gate(Node* node) noexcept {
  const std::uint64_t w = node->gate->word.load(std::memory_order_relaxed);
  if (node->reopen_set == 0 || Gates::admitted(w) != 0 || node->pseudo_held != 0) return;
  open_gate(node, w, node->reopen_set);
}

template <typename P>
void BasicPathLock<P>::open_gate(Node* node, std::uint64_t word, std::uint32_t set) noexcept {
  // Nothing is taken (a closed gate's taken mode has a pseudo hold until
  // its holder clears it), so a store loses nothing. Slow holders of a
  // shared set shut out takes.
  const std::uint64_t slow = node->queue.held_mask() != 0 ? Gates::kSlowHolders : 0;
  node->gate->word.store(Gates::open_word(Gates::generation(word), set) | slow, std::memory_order_seq_cst);
  node->reopen_set = set;
  index_gate(node);
}

template <typename P>
typename BasicPathLock<P>::GateRetire BasicPathLock<P>::retire_gate(Node* node, GateSweep sweep) noexcept {
  GateRecord* g = node->gate;
  const std::uint64_t w = g->word.load(std::memory_order_relaxed);
  if (const std::uint32_t admitted = Gates::admitted(w); admitted != 0) {
    if (g->used_fast.exchange(false, std::memory_order_relaxed) && sweep == GateSweep::kSecondChance) {
      return GateRetire::kKept;
    }
    // As close_gate, without the reservation: the queue is empty and kept
    // room for a pseudo hold per admitted mode when the gate opened.
    g->word.fetch_and(~(Gates::kModeMask | Gates::kSlowHolders), std::memory_order_seq_cst);
    stand_for_fast_holders(node, admitted);
    if (node->pseudo_held != 0) return GateRetire::kMadeActive;
  }
  // A new generation: every thread's cached (record, generation) for the old
  // path misses from now on.
  g->word.store(Gates::closed_word(Gates::generation(w) + 1), std::memory_order_seq_cst);
  unindex_gate(node);
  return GateRetire::kRetired;
}

template <typename P>
void BasicPathLock<P>::drain_gate(GateRecord* g) noexcept {
  Shard& s = *g->shard;
  Waiter* to_wake = nullptr;
  {
    SpinLockHolder hold(s.mu);
    Node* node = g->owner;
    // The last fast holder of a mode to leave (by the seq_cst order of the
    // slots and the word) sees no slot here and releases its pseudo hold.
    if (node == nullptr || node->pseudo_held == 0) return;
    // A pseudo hold in an exclusive gate's mode stands for its queue too.
    const auto fast = gates_->count(g, nullptr, node->pseudo_held & gates_->exclusive_modes);
    for (std::uint8_t m = 0; m < scheme_.mode_count(); ++m) {
      const impl::ModeId mode{m};
      if (((node->pseudo_held >> m) & 1U) == 0 || fast[m] != 0) continue;
      node->pseudo_held &= ~(1U << m);
      const auto released = node->queue.release_granting(scheme_, pseudo_task(mode));
      impl::observe<P>(impl::LockEvent::kReleased, node->key, pseudo_task(mode), mode);
      take_granted(node, node->queue.last_granted(released.count), to_wake);
    }
    settle(node, {}, to_wake);
  }
  wake_all(to_wake);
}

}  // namespace pathlock
