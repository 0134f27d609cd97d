#include "pathlock/sim/lockcheck/program.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "pathlock/impl/path_hash.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/sim/rng.hpp"

namespace pathlock::sim::lockcheck {
namespace {

using model::Operation;
using model::Path;

Path p(std::string_view text) { return Path::parse(text); }

// The first of /c0, /c1, ... whose lock lands on the same entry of a
// thread's gate cache as `path`'s.
Path gate_cache_collider(std::string_view path) {
  const std::size_t target = impl::gate_cache_index(impl::path_hash(path));
  for (std::size_t k = 0;; ++k) {
    const std::string candidate = fmt::format("/c{}", k);
    if (impl::gate_cache_index(impl::path_hash(candidate)) == target) return Path::parse(candidate);
  }
}

// The first of /d0, /d1, ... whose lock lands in the same bucket of the
// lock's gate index as `path`'s, under the same tag, for every index
// check-lock's options make (2 or 4 slots: one bucket), and on another entry
// of a thread's gate cache: a lookup of one reads the other's record.
Path gate_index_collider(std::string_view path) {
  constexpr std::size_t kBuckets = 1;
  const std::uint64_t hash = impl::path_hash(path);
  for (std::size_t k = 0;; ++k) {
    const std::string candidate = fmt::format("/d{}", k);
    const std::uint64_t h = impl::path_hash(candidate);
    if (impl::gate_index_bucket(h, kBuckets) == impl::gate_index_bucket(hash, kBuckets) &&
        impl::gate_index_tag(h) == impl::gate_index_tag(hash) &&
        impl::gate_cache_index(h) != impl::gate_cache_index(hash)) {
      return Path::parse(candidate);
    }
  }
}

// A three-deep path /x<k>/y/z (the first k that fits) whose entry, in a
// lock of two shards, lands on the shard of `leaf`'s and its folders' on
// the other: where each shard keeps one idle entry, the new path's entry
// is the one that takes `leaf`'s evicted one (node and gate record), its
// folders being made on the other shard first.
Path deeper_path_on_the_shard_of(std::string_view leaf) {
  constexpr std::size_t kShards = 2;
  const auto shard = [](std::string_view path) { return impl::shard_index(impl::path_hash(path), kShards); };
  const std::size_t target = shard(leaf);
  for (std::size_t k = 0;; ++k) {
    const std::string folder = fmt::format("/x{}", k);
    if (shard(folder) != target && shard(folder + "/y") != target && shard(folder + "/y/z") == target) {
      return p(folder + "/y/z");
    }
  }
}

// Two paths of one memo_hash, differing in their second byte (memo_hash
// reads a long path's middle and last eight bytes only), so one entry of a
// thread's plan memo: it must tell them apart by their text. One component
// each: with one idle entry kept, the gates of a two-step plan stay open.
std::pair<Path, Path> memo_hash_twins() {
  const std::string tail(22, 'm');
  const std::string first = "/a" + tail;
  const std::string second = "/b" + tail;
  if (impl::memo_hash(first) != impl::memo_hash(second)) {
    throw std::logic_error(
        "check-lock's plan-memo-collision: memo_hash reads more of a path than it did; pick twins anew");
  }
  return {p(first), p(second)};
}

LockCall call(Operation op, WaitStyle style = WaitStyle::kBlocking,
              AfterGrant after = AfterGrant::kReleaseBeforeNext) {
  return {std::move(op), style, after};
}

LockProgram program(std::string name, std::string purpose, std::vector<ThreadPlan> threads) {
  return {std::move(name), std::move(purpose), std::move(threads)};
}

// The tree of the random programs: depth 2, siblings /a and /ab sharing a
// string prefix, and the root itself.
const std::vector<Path>& random_tree() {
  static const std::vector<Path> tree = {p("/"), p("/a"), p("/a/b"), p("/ab"), p("/b")};
  return tree;
}

// /a/a/.../a, 40 levels: a plan of 41 steps, beyond a guard's inline room.
Path deep_path() {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "/a";
  return p(text);
}

[[noreturn]] void bad(const std::string& message) { throw model::InputError(model::InputProblem::kBadParameter, message); }

}  // namespace

std::string_view to_string(WaitStyle style) noexcept {
  switch (style) {
    case WaitStyle::kBlocking: return "blocking";
    case WaitStyle::kTry: return "try";
    case WaitStyle::kTimed: return "timed";
    case WaitStyle::kStoppable: return "stoppable";
    case WaitStyle::kAsync: return "async";
    case WaitStyle::kAsyncCancelled: return "async cancelled";
    case WaitStyle::kAsyncAgain: return "async again";
    case WaitStyle::kAwait: return "await";
    case WaitStyle::kAwaitStoppable: return "await stoppable";
  }
  return "?";
}

std::size_t async_slots(WaitStyle style) noexcept {
  switch (style) {
    case WaitStyle::kAsync:
    case WaitStyle::kAsyncCancelled:
    case WaitStyle::kAwait:
    case WaitStyle::kAwaitStoppable: return 1;
    case WaitStyle::kAsyncAgain: return 2;
    default: return 0;
  }
}

bool takes_a_stop_token(WaitStyle style) noexcept {
  return style == WaitStyle::kStoppable || style == WaitStyle::kAwaitStoppable;
}

std::size_t LockProgram::stoppable_calls() const noexcept {
  std::size_t n = 0;
  for (const auto& t : threads) {
    for (const auto& c : t.calls) n += takes_a_stop_token(c.style) ? 1U : 0U;
  }
  return n;
}

std::size_t LockProgram::async_calls() const noexcept {
  std::size_t n = 0;
  for (const auto& t : threads) {
    for (const auto& c : t.calls) n += async_slots(c.style);
  }
  return n;
}

std::size_t LockProgram::cancelled_calls() const noexcept {
  std::size_t n = 0;
  for (const auto& t : threads) {
    for (const auto& c : t.calls) n += c.style == WaitStyle::kAsyncCancelled ? 1 : 0;
  }
  return n;
}

bool LockProgram::has_nesting() const noexcept {
  for (const auto& t : threads) {
    for (std::size_t i = 0; i + 1 < t.calls.size(); ++i) {
      if (t.calls[i].after == AfterGrant::kHoldToEnd) return true;
    }
  }
  return false;
}

std::string describe(const LockProgram& program) {
  std::string out;
  for (std::size_t t = 0; t < program.threads.size(); ++t) {
    if (t != 0) out += " | ";
    out += fmt::format("T{}:", t);
    const auto& calls = program.threads[t].calls;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      out += fmt::format("{} {}", i == 0 ? "" : ";", calls[i].operation.to_string());
      if (calls[i].style != WaitStyle::kBlocking) out += fmt::format(" {}", to_string(calls[i].style));
      if (calls[i].after == AfterGrant::kHoldToEnd && i + 1 < calls.size()) out += " held";
    }
  }
  return out;
}

std::string describe(const LockSetting& setting) {
  return fmt::format("gates {}, {} shard{}, {} idle kept",
                     setting.gates == GateSetting::kOn ? "on" : "off", setting.shards,
                     setting.shards == 1 ? "" : "s", setting.max_idle);
}

std::vector<LockSetting> all_settings() {
  std::vector<LockSetting> out;
  for (const GateSetting gate : {GateSetting::kOn, GateSetting::kOff}) {
    for (const std::size_t shards : {std::size_t{1}, std::size_t{2}}) {
      for (const std::size_t idle : {std::size_t{0}, std::size_t{1}}) out.push_back({gate, shards, idle});
    }
  }
  return out;
}

std::vector<LockProgram> builtin_programs() {
  using model::copy;
  using model::read;
  using model::rename;
  using model::write;
  const auto hold = AfterGrant::kHoldToEnd;
  const Path stale_hinted = deeper_path_on_the_shard_of("/a/b");
  return {
      // A thread's first request on a path takes it slowly (opening its
      // gate) and learns where the gate is; its second may take it fast.
      program("gate-closes-on-fast-readers", "a root writer closes the gate while readers hold the root fast",
              {{{call(read(p("/a"))), call(read(p("/a")))}}, {{call(write(p("/")))}}, {{call(read(p("/b"))), call(read(p("/b")))}}}),
      program("gate-reopens", "readers arrive while a root writer closes, holds and reopens the gate",
              {{{call(write(p("/")))}}, {{call(read(p("/a"))), call(read(p("/b")))}}}),
      program("lineage-writers", "writers and a reader on one lineage",
              {{{call(write(p("/a")))}}, {{call(write(p("/a/b")))}}, {{call(read(p("/a/b")))}}}),
      program("sibling-prefixes", "/a and /ab share a string prefix but not a lineage",
              {{{call(write(p("/a")))}}, {{call(write(p("/ab")))}}, {{call(read(p("/a/b")))}}}),
      program("eviction-and-reuse", "entries go idle, are evicted and reused while another thread looks them up",
              {{{call(write(p("/a"))), call(write(p("/b")))}}, {{call(write(p("/b"))), call(write(p("/a")))}}}),
      program("timeout-races-grant", "a timed waiter's deadline races its grant; the reader behind it must pass",
              {{{call(write(p("/a")))}}, {{call(write(p("/a")), WaitStyle::kTimed)}}, {{call(read(p("/a")))}}}),
      program("stop-races-grant", "a stop request races the grant of a waiter",
              {{{call(write(p("/a/b")))}}, {{call(write(p("/a")), WaitStyle::kStoppable)}}, {{call(read(p("/a/b")))}}}),
      program("timeout-breaks-a-deadlock", "two threads take two paths in opposite orders; a timeout must free them",
              {{{call(write(p("/a")), WaitStyle::kBlocking, hold), call(write(p("/b")), WaitStyle::kTimed)}},
               {{call(write(p("/b")), WaitStyle::kBlocking, hold), call(write(p("/a")))}}}),
      program("stop-breaks-a-deadlock", "two threads take two paths in opposite orders; a stop request must free them",
              {{{call(write(p("/a")), WaitStyle::kBlocking, hold), call(write(p("/b")), WaitStyle::kStoppable)}},
               {{call(write(p("/b")), WaitStyle::kBlocking, hold), call(write(p("/a")))}}}),
      program("try-rolls-back", "a try of a copy takes its first locks, finds one busy and rolls back",
              {{{call(write(p("/b")))}}, {{call(copy(p("/a"), p("/b")), WaitStyle::kTry)}}, {{call(write(p("/a")))}}}),
      program("copy-into-own-subtree", "a copy of the root into /a beside a write of /ab (unsafe under path-rwa)",
              {{{call(copy(p("/"), p("/a")))}}, {{call(write(p("/ab")))}}}),
      program("rename-against-copy", "two multi-path requests over the same two paths",
              {{{call(rename(p("/a"), p("/b")))}}, {{call(copy(p("/b"), p("/a")))}}}),
      program("long-plan", "a request with more locks than a guard holds inline, beside a reader",
              {{{call(write(deep_path()))}}, {{call(read(p("/a/a")))}}}),
      program("nested-without-conflict", "a thread holds a read while it takes a write elsewhere",
              {{{call(read(p("/a")), WaitStyle::kBlocking, hold), call(write(p("/b")))}}, {{call(write(p("/a/b")))}}}),
      program("nested-behind-writer", "a nested read queues behind a writer that waits for the first read",
              {{{call(read(p("/a/b")), WaitStyle::kBlocking, hold), call(read(p("/a")))}}, {{call(write(p("/a")))}}}),
      program("readers-behind-queued-writer", "a writer queues on /a behind a reader; a later reader must queue behind it",
              {{{call(read(p("/a")))}}, {{call(write(p("/a")))}}, {{call(read(p("/a")))}}}),
      program("gate-stays-closed-for-a-queued-writer",
              "a root writer times out while another still waits for a fast holder; a fast reader must not pass it",
              {{{call(read(p("/a"))), call(read(p("/a")))}},
               {{call(write(p("/")), WaitStyle::kTimed)}},
               {{call(write(p("/")))}},
               {{call(read(p("/b"))), call(read(p("/b")))}}}),
      program("async-behind-writer", "an async write queues behind a writer; its grant resumes it on the releasing thread",
              {{{call(write(p("/a")))}}, {{call(write(p("/a/b")), WaitStyle::kAsync)}}, {{call(read(p("/a/b")))}}}),
      program("async-cancel-races-grant", "a cancel races the grant of an async waiter; the reader behind it must pass",
              {{{call(write(p("/a")))}}, {{call(write(p("/a")), WaitStyle::kAsyncCancelled)}}, {{call(read(p("/a")))}}}),
      program("async-multi-step", "an async rename waits at one lock, is resumed, and waits again at the next",
              {{{call(write(p("/b")))}}, {{call(rename(p("/a"), p("/b")), WaitStyle::kAsync)}}, {{call(write(p("/a")))}}}),
      program("async-cancel-mid-plan", "an async copy is cancelled while it holds some locks and waits for another",
              {{{call(write(p("/b")))}}, {{call(copy(p("/a"), p("/b")), WaitStyle::kAsyncCancelled)}},
               {{call(write(p("/a")))}}}),
      program("async-gate", "an async root writer closes the gate on fast readers, one of them async",
              {{{call(read(p("/a"))), call(read(p("/a")))}},
               {{call(write(p("/")), WaitStyle::kAsync)}},
               {{call(read(p("/b")), WaitStyle::kAsync), call(read(p("/b")), WaitStyle::kAsync)}}}),
      program("folder-gate-closes-on-fast-writers", "a reader of a folder closes its gate while writers below hold it fast",
              {{{call(write(p("/a/b"))), call(write(p("/a/b")))}}, {{call(read(p("/a")))}},
               {{call(write(p("/a/c"))), call(write(p("/a/c")))}}}),
      // Thread 0's third write of /a/b comes from its memo. Where a locked
      // read-modify-write is a fence (x86), it takes /a/b's word before it
      // re-reads the folders' gates: thread 1's read of /a may close /a's
      // gate between its slot and that re-read, and then the write must
      // give the word back as it withdraws, or its slow retry waits behind
      // its own hold.
      program("plan-memo-write-meets-a-folder-closer",
              "a write from the memo takes its path's word first, then finds its folder's gate closed: it must give "
              "the word back as it withdraws",
              {{{call(write(p("/a/b"))), call(write(p("/a/b"))), call(write(p("/a/b")))}},
               {{call(read(p("/a")))}}}),
      // Each thread's third write of /a comes from its memo: if the other
      // thread holds /a's word (or queues at its gate), the memo's last step
      // is refused and queues at the gate the memo knows, with no plan made;
      // if thread 1's read closed the gate first, the write plans after all
      // and waits the slow way.
      program("plan-memo-write-queues-at-its-gate",
              "a write from the memo that finds its path's word taken queues at the path's gate without a plan, or "
              "plans once a reader closed the gate",
              {{{call(write(p("/a"))), call(write(p("/a"))), call(write(p("/a")))}},
               {{call(write(p("/a"))), call(write(p("/a"))), call(write(p("/a"))), call(read(p("/a")))}}}),
      // Thread 0's third write of /a comes from its memo; if thread 1 holds
      // /a's word then, it queues, and its fourth holds the word briefly
      // (CONTENDED WORDS, path_lock_memo.hpp): a fence of its own, the
      // root's gate re-read, then the word taken, last; its release gives
      // the word back before it clears its root slot. Thread 1's read of /
      // closes the root's gate on that slot: the release must still drain
      // it. (Written with /a/b and a reader of /a, no schedule with two
      // shards keeping one idle entry each reached the brief order.)
      program("plan-memo-short-hold",
              "a write from the memo that waited for its word takes it last and gives it back first from then on; a "
              "reader of the root closes the root's gate meanwhile",
              {{{call(write(p("/a"))), call(write(p("/a"))), call(write(p("/a"))), call(write(p("/a")))}},
               {{call(write(p("/a"))), call(write(p("/a"))), call(read(p("/")))}}}),
      program("fast-readers-and-a-writer", "readers of one path hold it fast (R admitted) until a writer closes its gate",
              {{{call(read(p("/a/b"))), call(read(p("/a/b")))}}, {{call(read(p("/a/b"))), call(read(p("/a/b")))}},
               {{call(write(p("/a/b")))}}}),
      program("eviction-meets-a-fast-holder",
              "entries go idle and are evicted while a thread takes and holds them fast (with no idle entry kept, "
              "its hold must become a pseudo hold)",
              {{{call(read(p("/a"))), call(read(p("/a")), WaitStyle::kBlocking, hold)}},
               {{call(write(p("/b"))), call(write(p("/ab")))}},
               {{call(write(p("/a")))}}}),
      program("stale-gate-cache", "a thread's cached gate of an evicted entry now serves another path",
              {{{call(read(p("/a/b"))), call(write(p("/ab"))), call(read(p("/a/b")))}},
               {{call(read(p("/b"))), call(read(p("/b")), WaitStyle::kBlocking, hold)}},
               {{call(write(p("/a")))}}}),
      // Thread 0 learns /a's gate, /a is evicted, and its gate record serves
      // thread 1's /b (open); thread 0's next read of /a must not pass through
      // it while thread 1 writes /a. Thread 1's timed write of /w ends the
      // wait between them when the lock is right (one preemption).
      program("reused-gate-record", "an evicted entry's gate record, reused by another folder, must not admit a thread "
              "that cached the old path's gate",
              {{{call(write(p("/w")), WaitStyle::kBlocking, hold), call(read(p("/a/b"))),
                 call(read(p("/a/b")), WaitStyle::kBlocking, hold)}},
               {{call(read(p("/b/c")), WaitStyle::kBlocking, hold), call(write(p("/a")), WaitStyle::kBlocking, hold),
                 call(write(p("/w")), WaitStyle::kTimed)}}}),
      // Thread 1 holds /a open while thread 0 reads /a/b twice: the second
      // read, wholly fast, leaves /a/b's gate record naming the gates of /
      // and /a (FOLDER HINTS). Thread 0 then reads a deeper path, made so
      // that (two shards keeping one idle entry each) its entry evicts
      // /a/b's and takes its record, hints and all; its second read of it
      // (unmemoized: the first was slow) finds the target's gate first and
      // reads those hints, the one of its first folder naming /a's record,
      // open, which must not let the step through. Thread 0 then waits
      // (timed) for /a/c, holding the deeper path, and thread 1's write of
      // that path's first folder must wait until it lets go.
      program("stale-folder-hint", "a gate record reused by a deeper path keeps the old path's folder hints: they "
              "must not let the new path's folders through other folders' gates",
              {{{call(read(p("/a/b"))), call(read(p("/a/b"))), call(read(stale_hinted)),
                 call(read(stale_hinted), WaitStyle::kBlocking, hold), call(write(p("/a/c")), WaitStyle::kTimed)}},
               {{call(read(p("/a/c")), WaitStyle::kBlocking, hold),
                 call(write(stale_hinted.parent().parent()))}}}),
      // /a and a sibling that shares its entry of a thread's gate cache:
      // thread 0 learns /a's gate while thread 1 holds /a open, then reads
      // below the sibling, which thread 1 writes.
      program("gate-cache-collision", "two folders share an entry of a thread's gate cache: the cache must tell them apart",
              {{{call(write(p("/w")), WaitStyle::kBlocking, hold), call(read(p("/a/z"))),
                 call(read(gate_cache_collider("/a").child("z")), WaitStyle::kBlocking, hold)}},
               {{call(read(p("/a/x")), WaitStyle::kBlocking, hold),
                 call(write(gate_cache_collider("/a")), WaitStyle::kBlocking, hold),
                 call(write(p("/w")), WaitStyle::kTimed)}}}),
      // /a and a sibling of its bucket and tag in the lock's gate index:
      // thread 1 opens /a's gate and holds it, thread 0 (which never took
      // /a) reads below the sibling, which thread 1 writes.
      program("gate-index-collision", "two folders share a bucket and a tag of the lock's gate index: the index must tell "
              "them apart",
              {{{call(write(p("/w")), WaitStyle::kBlocking, hold),
                 call(read(gate_index_collider("/a").child("z")), WaitStyle::kBlocking, hold)}},
               {{call(read(p("/a/x")), WaitStyle::kBlocking, hold),
                 call(write(gate_index_collider("/a")), WaitStyle::kBlocking, hold),
                 call(write(p("/w")), WaitStyle::kTimed)}}}),
      // The write of /a/b leaves its exclusive gate open (W, one holder at a
      // time, through the word): the writers' second writes race for it,
      // and the reader closes it while one of them may hold it.
      program("exclusive-gate-writers", "writers of one path take its exclusive gate's word in turn; a reader closes "
              "it under a holder",
              {{{call(write(p("/a/b"))), call(write(p("/a/b")))}}, {{call(write(p("/a/b"))), call(write(p("/a/b")))}},
               {{call(read(p("/a/b")))}}}),
      // Three blocking writers of /a: once its exclusive gate is open, one
      // takes the word and the others queue at the gate (path_lock_gate.hpp),
      // taking it in turn (the turn handed from one to the next); the third
      // thread's read then closes the gate under the queue, and must wait for
      // every writer queued before it (the pseudo hold stands for them).
      program("gate-queue-of-writers", "blocking writers of one path queue at its exclusive gate and take it in "
              "turn; a reader closes the gate under the queue",
              {{{call(write(p("/a"))), call(write(p("/a")))}}, {{call(write(p("/a"))), call(write(p("/a")))}},
               {{call(write(p("/a"))), call(read(p("/a")))}}}),
      // The holder of /a's word then waits (timed) for /b, which the reader
      // holds; a writer queues at /a's gate; the reader's read of /a closes
      // the gate under the queue. When the holder gives up on /b and lets
      // /a go, the drain must keep the pseudo hold for the queued writer,
      // which takes the word before the reader is granted.
      program("gate-closes-under-a-queue", "a reader closes a path's exclusive gate while its holder waits elsewhere "
              "and a writer queues at the gate; the writer must go before the reader",
              {{{call(write(p("/a"))), call(write(p("/a")), WaitStyle::kBlocking, hold),
                 call(write(p("/b")), WaitStyle::kTimed)}},
               {{call(write(p("/a")))}},
               {{call(write(p("/b")), WaitStyle::kBlocking, hold), call(read(p("/a")))}}}),
      // Thread 0 is preempted while its second write (fast) holds /a's word;
      // thread 1 queues first at the gate and thread 2 behind it: thread 1
      // takes the word from the queue, and its release hands it to thread 2
      // (one preemption). Meanwhile thread 1 waits (timed) for /b, which
      // thread 0 holds while its read of /a waits behind the queue: every
      // thread but thread 2 is blocked, so thread 2 spins out and sleeps.
      // When thread 1 gives up on /b and lets /a go, the hand-over must wake
      // thread 2.
      program("gate-queue-hands-to-a-sleeper", "the holder of a path's exclusive gate, taken from the gate's queue, "
              "waits elsewhere while the writer queued behind it sleeps; its release must hand the word on and wake it",
              {{{call(write(p("/b")), WaitStyle::kBlocking, hold), call(write(p("/a"))), call(write(p("/a"))),
                 call(read(p("/a")))}},
               {{call(write(p("/a")), WaitStyle::kBlocking, hold), call(write(p("/b")), WaitStyle::kTimed)}},
               {{call(write(p("/a")))}}}),
      // With no idle entry kept, eviction meets a thread that holds /a
      // through its exclusive gate: the hold must become a pseudo hold.
      program("eviction-meets-an-exclusive-holder",
              "an entry held through its exclusive gate is evicted (or not) while another path goes idle",
              {{{call(write(p("/a"))), call(write(p("/a")), WaitStyle::kBlocking, hold)}},
               {{call(write(p("/b"))), call(write(p("/ab")))}},
               {{call(read(p("/a")), WaitStyle::kTimed)}}}),
      // A thread's plan memo (path_lock.hpp: PLAN MEMO): its first read of
      // /a is slow and opens the gates, its second is fast and memoized, and
      // its write of /a must not be served the reads' plan while the other
      // thread reads /a.
      program("plan-memo-shapes", "a thread's memoized read of /a must not serve its write of /a",
              {{{call(read(p("/a"))), call(read(p("/a"))), call(write(p("/a")))}}, {{call(read(p("/a")))}}}),
      // The reader's reads open /a/b's gate for reads, so a write of /a/b
      // may take the folders fast and /a/b slowly: a plan only partly fast,
      // which must not be memoized. The writer's third write may come from
      // its memo while the reader closes a gate under it.
      program("plan-memo-partly-fast", "a write whose folders alone were fast must not be memoized as its whole plan",
              {{{call(write(p("/a/b"))), call(write(p("/a/b"))), call(write(p("/a/b")))}},
               {{call(read(p("/a/b"))), call(read(p("/a")))}}}),
      // Thread 0's second write of the first twin is memoized; its write of
      // the second twin, which thread 1 holds, must wait, not be served the
      // first twin's plan from their shared memo entry. Thread 1's timed
      // write of /w ends the wait between them when the lock is right.
      program("plan-memo-collision", "two paths of one memo entry: a thread's memo must not serve one the other's plan",
              {{{call(write(p("/w")), WaitStyle::kBlocking, hold), call(write(memo_hash_twins().first)),
                 call(write(memo_hash_twins().first)),
                 call(write(memo_hash_twins().second), WaitStyle::kBlocking, hold)}},
               {{call(write(memo_hash_twins().second), WaitStyle::kBlocking, hold),
                 call(write(p("/w")), WaitStyle::kTimed)}}}),
      // Thread 0's third read of /a comes from its memo (the first opens
      // /a's gate, the second is fast and memoized). Its look at the word
      // may come before thread 1's write takes it (finding no slot), and its
      // slot after: it must see the word taken when it re-reads it after
      // its fence, and withdraw. Thread 1's timed write of /b, which thread
      // 0 holds, lets thread 0 go on while the write of /a is held.
      program("plan-memo-meets-a-writer", "a read from the memo must see a write that took its gate after it looked",
              {{{call(read(p("/b")), WaitStyle::kBlocking, hold), call(read(p("/a"))), call(read(p("/a"))),
                 call(read(p("/a")))}},
               {{call(write(p("/a")), WaitStyle::kBlocking, hold), call(write(p("/b")), WaitStyle::kTimed)}}}),
      // As counted-readers-switch, for a read from the memo: it looks at
      // how /a's readers hold it (slots), a write takes the word, finds no
      // slot and moves them to counts; the read must see the switch when it
      // re-reads the word, or it holds by a slot that the third thread's
      // take no longer reads (two preemptions).
      program("plan-memo-counted-switch", "a read from the memo that looked at a read gate's readers just before a "
              "write moved them to counts must withdraw",
              {{{call(read(p("/a"))), call(read(p("/a"))), call(read(p("/a")), WaitStyle::kBlocking, hold),
                 call(read(p("/b")))}},
               {{call(write(p("/a")))}},
               {{call(write(p("/a")))}}}),
      // Reads open /a's gate for reads (a shared set); a write of /a takes
      // its word, then looks for a reader's slot: a reader that set its
      // slot first must be seen (the write gives the word back), one that
      // comes later must see the word taken. A write below /a closes the
      // gate, maybe while a take and a reader's slot are both half-way.
      // (One folder level: with one idle entry kept per shard, the gate
      // outlives its readers.)
      program("write-takes-a-read-gate", "a write takes the word of a gate open for reads while fast readers come "
              "and a writer below closes it",
              {{{call(read(p("/a"))), call(read(p("/a")))}},
               {{call(write(p("/a"))), call(write(p("/a")))}},
               {{call(write(p("/a/x")))}}}),
      // The first reader's first read is slow: it opens /a's gate while it
      // holds the entry in its queue. The writer finds the gate through the
      // index and must not take the word beside that slow hold. Later, the
      // writer may hold the word while the last reader's read, refused
      // fast, is taken slowly: it must not join the open gate beside it.
      program("write-take-beside-slow-holders", "a write must not take a read gate's word while a reader holds the "
              "entry slowly, nor a slow read join the gate beside a taken write",
              {{{call(read(p("/a")), WaitStyle::kBlocking, hold), call(read(p("/a")))}},
               {{call(write(p("/a"))), call(write(p("/a")))}},
               {{call(read(p("/a")))}}}),
      // Reads open /a's gate for reads; each write takes its word, and a
      // take that finds no reader's slot moves the gate's readers to
      // counts (at once on this platform), one that finds counted readers
      // who met moves them back (path_lock_gate.hpp: COUNTED READERS). A
      // reader may look at the way just before a switch and must withdraw;
      // a take must see a reader counted first; the write below /a closes
      // the gate on counted readers, who drain it.
      program("counted-readers", "writes switch a read gate's readers between slots and counts while readers "
              "come and a write below closes it",
              {{{call(read(p("/a"))), call(write(p("/a"))), call(read(p("/a")), WaitStyle::kBlocking, hold),
                 call(read(p("/b")))}},
               {{call(write(p("/a"))), call(write(p("/a")))}},
               {{call(read(p("/a"))), call(write(p("/a/x")))}}}),
      // A reader looks at how /a's readers hold it (slots), then a write
      // takes the word, finds no slot and moves the readers to counts; the
      // reader must see the switch when it re-reads the word, or it holds
      // by a slot that the next take (the third thread's) no longer reads
      // (two preemptions).
      program("counted-readers-switch", "a reader that looked at a read gate's readers just before a write moved "
              "them to counts must withdraw",
              {{{call(read(p("/a"))), call(read(p("/a")), WaitStyle::kBlocking, hold), call(read(p("/b")))}},
               {{call(write(p("/a")))}},
               {{call(write(p("/a")))}}}),
      program("async-handler-acquires-again", "a handler releases and starts the next acquisition beside a writer",
              {{{call(write(p("/a")))}}, {{call(write(p("/a/b")), WaitStyle::kAsyncAgain)}}, {{call(read(p("/a/b")))}}}),
      // The coroutine's acquisition queues behind thread 0's write; the
      // release grants it, and the grant's hand-off races the coroutine's
      // suspension: whichever comes second resumes it, exactly once. Its
      // second co_await (of a free path) is granted at once.
      program("await-races-grant", "a coroutine's co_await queues behind a writer; the grant races its suspension",
              {{{call(write(p("/a")))}},
               {{call(write(p("/a/b")), WaitStyle::kAwait), call(read(p("/b")), WaitStyle::kAwait)}},
               {{call(read(p("/a/b")))}}}),
      // Granted at once, the code after a co_await runs on its own thread,
      // as no handler: the async write its release grants runs its handler
      // there, and that is no nesting.
      program("await-release-runs-a-handler", "a co_await granted at once releases, granting an async waiter",
              {{{call(write(p("/a")), WaitStyle::kAwait)}}, {{call(write(p("/a")), WaitStyle::kAsync)}}}),
      // A stop races the grant of a co_await queued behind thread 0's
      // write: before the co_await (cancelled at once, nothing taken),
      // while it waits (the stopper's callback withdraws it and resumes the
      // coroutine there), or as the release grants it (granted, or rolled
      // back by the resume): it resumes once, and nothing stays held.
      program("await-stop-races-grant", "a stop races the grant of a co_await queued behind a writer",
              {{{call(write(p("/a")))}}, {{call(write(p("/a/b")), WaitStyle::kAwaitStoppable)}}}),
  };
}

namespace {

void check_limits(const RandomFamily& family) {
  if (family.max_threads < 2 || family.max_threads > kMaxLockThreads) {
    bad(fmt::format("threads per program must be 2 to {}, not {}", kMaxLockThreads, family.max_threads));
  }
  if (family.max_calls < 1 || family.max_calls > kMaxCallsPerThread) {
    bad(fmt::format("calls per thread must be 1 to {}, not {}", kMaxCallsPerThread, family.max_calls));
  }
}

// The `i`-th program of the family: drawn from its own derived seed, so any
// one is made without the others.
LockProgram random_program(const RandomFamily& family, std::size_t i) {
  const auto& tree = random_tree();
  {
    Rng rng(derive_seed(family.seed, i));
    const auto pick_path = [&] { return tree[rng.below(tree.size())]; };
    LockProgram prog{fmt::format("random-{}-{}", family.seed, i), "drawn from the seed", {}};
    const std::size_t threads = 2 + rng.below(family.max_threads - 1);
    for (std::size_t t = 0; t < threads; ++t) {
      ThreadPlan plan;
      const std::size_t calls = 1 + rng.below(family.max_calls);
      for (std::size_t c = 0; c < calls; ++c) {
        const auto kind = static_cast<model::OpKind>(rng.below(5));
        std::vector<Path> paths{pick_path()};
        if (model::arity(kind) == 2) {
          Path to = pick_path();
          while (to == paths.front()) to = pick_path();
          paths.push_back(std::move(to));
        }
        const auto style = static_cast<WaitStyle>(rng.below(4));
        const auto after = rng.below(3) == 0 ? AfterGrant::kHoldToEnd : AfterGrant::kReleaseBeforeNext;
        plan.calls.push_back(call(Operation::make(kind, std::move(paths)), style, after));
      }
      prog.threads.push_back(std::move(plan));
    }
    return prog;
  }
}

}  // namespace

std::vector<LockProgram> random_programs(const RandomFamily& family) {
  check_limits(family);
  std::vector<LockProgram> out;
  for (std::size_t i = 0; i < family.programs; ++i) out.push_back(random_program(family, i));
  return out;
}

LockProgram find_program(std::string_view name, const RandomFamily& defaults) {
  for (auto& prog : builtin_programs()) {
    if (prog.name == name) return prog;
  }
  // random-<seed>-<index>
  if (name.starts_with("random-")) {
    const std::string_view rest = name.substr(7);
    const auto dash = rest.find('-');
    std::uint64_t seed = 0;
    std::size_t index = 0;
    if (dash != std::string_view::npos &&
        std::from_chars(rest.data(), rest.data() + dash, seed).ec == std::errc{} &&
        std::from_chars(rest.data() + dash + 1, rest.data() + rest.size(), index).ec == std::errc{}) {
      RandomFamily family = defaults;
      family.seed = seed;
      check_limits(family);
      return random_program(family, index);
    }
  }
  std::string known;
  for (const auto& prog : builtin_programs()) known += (known.empty() ? "" : ", ") + prog.name;
  bad(fmt::format("no lock program '{}': the built-in ones are {}, and random-<seed>-<index> names a drawn one",
                  name, known));
}

}  // namespace pathlock::sim::lockcheck
