#pragma once
// pathlock::PathLock: hierarchical path locks for S3-style object stores.
//
// A PathLock makes folder operations (write, delete, rename, copy, whole-folder
// read) atomic with respect to each other: two requests that conflict (some
// path written by one is related to a path read or written by the other;
// related = equal, ancestor or descendant) never hold their locks at once.
//
//   pathlock::PathLock lock(pathlock::impl::path_rwa_joined_scheme());
//   {
//     auto guard = lock.copy(Path::parse("/photos/2024"), Path::parse("/backup/2024"));
//     ...  // list and copy the keys under photos/2024/ to backup/2024/
//   }      // released here
//
//   auto g = lock.acquire_for(request, std::chrono::milliseconds(50));
//   if (g.status() == pathlock::AcquireStatus::kTimedOut) ...
//
// SCHEMES. Any impl::Scheme: the built-in ones (impl/scheme.hpp documents
// their modes and compatibility grids) or one built from a SchemeSpec. The
// recommended one is path-rwa-joined (Gray's IS/S/IX/SIX/X):
//
//               RA  R   WA  RWA W         RA  read-ancestor: a path below is read
//          RA   ✓   ✓   ✓   ✓   ✗         R   read: this subtree is read
//          R    ✓   ✓   ✗   ✗   ✗         WA  write-ancestor: a path below is written
//          WA   ✓   ✗   ✓   ✗   ✗         RWA read this subtree, write below
//          RWA  ✓   ✗   ✗   ✗   ✗         W   write: this subtree is written
//          W    ✗   ✗   ✗   ✗   ✗
//
// PLANS AND ORDER. A request's plan comes from impl::plan_into, the same code
// the simulator and the model checker validate: one step per lock, each lock
// once, in strictly increasing order of the scheme's LockOrder (by default
// ancestor first, then lexicographic by component). An acquire takes its steps
// one at a time and waits for at most one lock at a time, which is what the
// deadlock-freedom theorem requires (proofs/deadlock-freedom.md). A thread that already holds a
// guard and acquires another that conflicts with it deadlocks with itself:
// the lock is not re-entrant (a self-loop in the wait-for graph).
//
// NESTING. Do not acquire while holding a guard: name every path of an
// operation in one request (a Request takes several paths, as copy and rename
// do), so that its plan takes them in the global order. A thread that holds a
// guard and acquires a second request can deadlock even when its two
// requests do not conflict with each other. It holds read(/a/x), so it holds
// /a in a read-ancestor mode; a writer of /a arrives and queues on /a behind
// that hold; the thread now asks for read(/a/y), whose read-ancestor step on
// /a is compatible with the holder but not with the queued writer, so FIFO
// queues it behind the writer, which waits for the thread's first read: a
// cycle through the writer. Two plans taken one after the other are not one
// plan in increasing order, which is what the deadlock-freedom theorem needs.
// A nested acquire is safe when it cannot wait forever: try_acquire, a
// deadline, or a stop token. PathLockOptions::unsafe_nesting reports the
// other kind, a blocking acquire (no deadline, no stop token) by a thread
// that holds a guard of the same lock, naming both requests: by default it
// aborts in debug builds (as absl's deadlock detection does) and is off in
// release builds, where tracking holders would cost every acquire.
//
// FAIRNESS. Each lock is an impl::LockQueue: FIFO among conflicting requests.
// A request is granted at once iff its mode is compatible with every holder
// and every queued waiter; a waiter is granted once it is compatible with
// every holder and every waiter still ahead of it. So a waiter is never
// overtaken by a request incompatible with it: a writer is not starved by a
// stream of readers, and only compatible requests bypass anyone.
//
// ASYNC. async_acquire(request, handler) never blocks a thread. It takes
// the plan's steps at once, like try_acquire; if every lock is free the
// handler runs inline, before the call returns, and nothing is allocated.
// If a step must wait, the acquisition becomes a heap op (the request
// copied, the handler boxed: its only allocation) queued on that lock like
// any waiter, in the same FIFO order, and the call returns. The thread that
// grants it (a release, or a cancel that unblocks it) takes its remaining
// steps after leaving the shard lock, and runs the handler once every step
// is held and the releasing guard's state is final. Handlers never nest:
// those granted (or started and granted at once) while a handler runs wait
// in a per-thread queue and run after it, in turn, so a chain of handlers
// that release and acquire again uses constant stack.
// AsyncAcquisition::cancel() withdraws a waiting acquisition: its handler
// runs with kCancelled (or kTimedOut, for a caller's timer) and nothing
// held, and those queued behind it move up. The handler runs exactly once:
//
//   granted at once          inline, kGranted (inside a handler: after it)
//   granted later            on the granting thread, kGranted
//   cancel() while queued    on the cancelling thread, before cancel() returns
//   cancel() once granted,   on the thread taking its steps, which rolls
//     or between steps       back: it may still be pending when cancel() returns
//   out of memory once       kFailed, nothing held (maybe inline; a cancel
//     queued                 that came first gives its reason instead)
//
// A handler must not throw, nor block on this lock (it runs on a thread that
// is releasing, with other handlers queued behind it): post blocking work to
// an executor. acquire_async() wraps it as a C++20 awaitable; the code after
// its co_await runs as that handler, under the same rule.
//
// MEMORY. An entry exists while its lock is held or waited for (active) and,
// once idle, stays in its shard for reuse by the next request on that path:
// at most PathLockOptions::max_idle_locks_per_shard idle entries per shard;
// beyond that a CLOCK sweep of the shard's idle list evicts one (deleted,
// or reused for a new path), passing over those taken again since they were
// listed once (a second chance). An entry taken again stays in the list,
// flagged in use, so that reusing an idle entry writes no other entry's
// cache line; the sweep drops it from the list. This is the counterpart of
// the design notes' weak-reference cache, with a hard bound:
//
//   entries(shard) = active(shard) + idle(shard),  idle(shard) <= max_idle
//   total entries  <= active locks + shards * max_idle_locks_per_shard
//
// An entry held only fast (GATES) is active: eviction never takes it (its
// holders become pseudo holds first). Each entry has a gate record of 192
// bytes (its word, its readers' counts and a copy of its path for the index on two lines, then
// the fields its shard's lock guards), which outlives it: records are
// recycled within their shard, never freed while the lock lives (a thread's
// gate cache or the index may still name one), so they number the most
// entries the shard ever had at once. The gate index takes 16 bytes per
// idle entry the bound allows (at most 8 MiB).
//
// Eviction cannot race a waiter: finding an entry (which flags it in use)
// and queueing on it happen in one critical section of its shard, and only
// entries flagged idle are evicted.
//
// CONCURRENCY. The table is split into shards (a power of two, picked by the
// high bits of the path's hash), each an intrusive hash table behind a
// SpinLock (impl/mutex.hpp); there is no global mutex. A step holds one shard
// lock for a few hundred instructions and never blocks under it. A step that
// must wait queues itself, leaves the shard, spins on its own state in
// rounds of 20 us (a lock released within microseconds is handed over
// without a sleep and a wake-up), another round while its entry granted
// somebody in the last one (up to 64: a long queue of short holds stays
// awake, no convoy of wake-ups), then sleeps on its own condition variable.
// Within a round it yields every 2 us: with more threads than cores, the
// thread FIFO hands the lock to next may be off its core, and a spinner
// that kept its own would keep it off (Waiter::kYieldEvery). The
// releasing thread grants it under the shard lock: a waiter still spinning
// by one compare-exchange, after which the releaser never touches it (no
// mutex, no notify: the handoff's only shared write); a sleeper is marked
// there and woken under its own mutex once the shard lock is released, so
// no grant waits for a sleeping thread to wake.
//
// GATES. Every request takes each ancestor of its paths in an intention mode
// (RA, WA), so the entries near the root are shared by nearly every request,
// and a shard lock there would bounce its cache line between every core.
// Each entry therefore has a gate: a word that, while open, admits a set of
// modes that are pairwise compatible and closed under join (impl::
// gate_mode_sets; rwa-joined: {RA, WA} for a folder, {RA, R} for a path
// that is read; path-rw: {R}; global-rw: {S}), or one mode that conflicts
// with itself (an exclusive gate, impl::exclusive_gate_modes: W on a path
// only written, global-mutex's X, below). A step
// in an admitted mode takes the entry without its shard: it sets a slot of
// its thread's block to (gate, mode) and re-reads the word (Dekker), so a
// hot folder's line is only read, never written. A request's first steps
// are taken together: every slot set, one seq_cst fence, each word
// re-read in plan order; the first step whose gate no longer admits it is
// withdrawn with every step after it (taken slowly, in order). A release
// clears its slots, fences once, and drains each gate that closed
// meanwhile. (On x86 a write from the plan memo, below, lets a locked
// instruction it issues anyway be each fence, unless its word is
// contended.) Only the first
// P::thread_slot() numbers (Gates::kBlocks, 128) have a block; a thread
// numbered beyond takes the slow path. A thread finds the gate through its
// own cache of (lock, path text) -> (gate record, generation), filled when it takes the entry slowly (a folder at
// once; a target only when its gate was open already and the cache entry is
// free or it asks for it twice in a row on that lock, so that leaves read
// once among thousands never push the folders out), then through the
// lock-wide index:
// a thread takes fast a gate that another thread opened, though it never
// took the path itself (what it finds so joins its cache by the same rule).
// A one-path request that its thread's plan memo (below) misses looks its
// target's gate up first: the target's record names its folders' gates (up
// to 4, on the record's third line) as the last acquire that took every
// step fast through it found them, and each is read as the index's records
// are (the word, the path's copy, the generation again), so that a tree too
// big for the thread's cache costs no folder a hash or a look there
// (FOLDER HINTS, impl/path_lock_gate.hpp).
// The cache keeps paths of any length (impl::CachedKey): 512 entries of 120
// bytes, 60 KiB, and a buffer of an entry's own for a path longer than 64
// bytes, kept for its next long path (at most 544 KiB more, where every
// entry held a longest S3 key). The index finds paths of up to 96 bytes: a
// longer path's gate is found by a thread's first slow step there.
// The index is set-associative, two slots per entry the table may keep
// idle, in buckets of 8 (a cache line; impl::gate_index_bucket): a slot
// names a record whose gate opened for a path of that bucket, with 6 bits
// of the path's hash in the pointer's low bits, so a lookup reads only
// records of its own tag. A gate that opens takes a free slot of its
// bucket or one whose gate is closed; the open gates of a full bucket keep
// theirs. A record keeps a copy of its path, rewritten only between two of
// its generations, so a lookup that reads an open word, the path, then the
// same generation again has found the path's gate (a seqlock on the
// generation); a record of another path or generation only misses. A
// miss, a closed gate or a mode the gate does not admit takes the slow
// path.
//
// A slow step in an admitted-capable mode opens the entry's gate when its
// queue queues nobody and holds only modes of one gate set. A step in a
// mode the open gate does not admit closes it under the shard lock and, for
// each admitted mode with fast holders (found by scanning the slots),
// queues a pseudo holder (task id = mode index) on the entry, so the fast
// holders become ordinary holders that it waits for, in FIFO order. The
// last fast holder of a mode to leave releases its pseudo hold; the next
// slow step in a gate mode reopens the gate, and so does a release,
// withdrawal or drain that leaves the entry idle (with the set the gate
// last opened with, so that the read after a write is fast).
//
// An exclusive gate admits one holder at a time: its step takes the word
// itself (one compare-exchange from open and untaken to taken, after the
// prefix's fence), and its release gives it back (one fetch_sub; if the
// gate closed meanwhile, it drains). It opens only when the entry goes idle
// after a slow grant of that mode (a slow holder is no bit of the word), and
// only where no shared set has opened before (reads of a path keep their
// fast path). Every slow step closes an open exclusive gate first; the
// taken mode becomes a pseudo hold as a slot does.
//
// A blocking acquire (no deadline, no stop token) whose step finds an open
// exclusive gate's word taken queues at the gate instead of closing it:
// an MCS queue whose tail (the thread's block number) is in the word, as in
// Linux's qspinlock. It joins by one compare-exchange from an open word,
// links itself behind the last thread, and waits on its own line until
// the holder hands it the word: a holder that took the word from the
// queue knows the thread behind it, and its release stores "handed" there
// and leaves the word taken (no read-modify-write of the word's line); the
// first thread of a queue waits for the holder (which took the word fast,
// and does not know it) to give the word back, and takes it by one
// compare-exchange. So writers of one path take it in turn with one cache
// line's round trip and no shard lock, where the slow way took the shard
// lock and the entry's queue for every handoff. Nobody takes the word past
// a queue, so the gate's queue is FIFO. A conflicting step closes the gate as before; the closer counts
// the queue as a fast holder of the gate's mode, so its pseudo hold stands
// for the holder and every thread queued before the close, which still
// take the word in turn, and the request that closed it waits for them
// (FIFO across both queues); the last one out drains. A waiter spins
// while the queue turns (each new holder bumps a count beside the word), as a
// slow waiter spins while its entry grants, then sleeps on its own condition
// variable (one per block, in the gates: 16 KiB a lock); the thread that
// makes it ready wakes it if it sleeps (the first thread marks its sleep
// beside the word, so a give-back fetches no other line unless it must wake
// it). With one round of spinning, 8 and 16 threads writing one path fell
// into a convoy of wake-ups (0.14-0.18 M/s on 16 cores, a fifth to an eighth
// of the slow way's rate). A timed or stoppable wait goes the slow way (a
// queued thread cannot leave the gate's queue early). waiting_acquisitions()
// counts the threads queued at gates; describe_waits() names the gates they
// queue at.
//
// A mode that conflicts with itself takes an open shared gate's word too
// (the write of a path that is read): the same compare-exchange, from open,
// untaken and no slow holder, then a scan of the slots (seq_cst) for one
// that names the gate in a conflicting mode; if one does, it gives the word
// back and goes the slow way. A reader that set its slot first is seen; one
// that sets it later reads the mode taken and withdraws (Dekker, as for a
// closer). A slow step that joins an open shared gate first sets the word's
// slow bit (cleared when its queue goes idle), so nothing takes the word
// beside a slow holder; if a mode was taken already, it closes the gate and
// queues behind the pseudo hold. A closer that catches a take and a
// conflicting slot at once waits (spins, under the shard lock) until the
// side that is withdrawing, with no lock to take, has gone.
//
// The scan reads a line from every thread's block, which its owner then
// fetches back: on many cores the cost of every write of a path that is
// also read. So a shared gate's readers hold it one of two ways (as in
// BRAVO): by slots, or by counts, a byte per mode on the word's line. A
// take that finds no slot at all, impl::calm_takes_to_count<P>() times in a
// row (4), switches them to counts; a counted reader adds one to its mode's
// count (seq_cst), re-reads the word, and a take reads the counts instead
// of scanning. Once two counted readers meet, the next take switches them
// back to slots (a path many threads read at once keeps its slots). Only a
// thread holding the word switches them, and a reader re-checks the way
// after re-reading the word, so no reader holds the way the next take
// does not read; closers and drains read both.
//
// Evicting an entry closes its gate for good and starts a new generation of
// its record, so every thread's cached (record, generation) of the old path
// misses.
//
//   gate open    =>  the entry's queue holds only admitted modes, queues nobody
//   exclusive gate open  =>  the entry's queue is idle
//   shared gate open  =>  (its slow bit set  <=>  its queue holds)
//   gate open and a mode taken  =>  the entry's queue is idle
//   gate closed  and  a slot (gate, m) set, or m taken  =>  pseudo task m holds the entry in m
//   a record's generation changes  =>  no slot names it
//
// PLAN MEMO. Each thread remembers, per lock, the last one-path requests (a
// read, or a write or delete, of a path of any length) that it took wholly
// fast: for each step of the plan, the gate record it went through and the
// word it needs there (a reader's: open in the record's generation, admitting
// its mode, untaken; a take's: the whole word its compare-exchange replaces),
// its mode, and its lock (a prefix of the path); and the thread's slot block.
// The next acquire of the same request (found by the request's shape and path
// text, compared whole) sets each step's slot straight from the memo, with no
// planning, no hashing of the prefixes and no gate cache look-ups; then the
// one fence, and each word re-read, as for any fast prefix (where a locked
// read-modify-write is a fence, impl::kLockedRmwIsFence as on x86, a write's
// take of its word, done first, is that fence). A memo is a cache
// of what the gate cache and index would find, trusted no further: a (record,
// generation) names one path's gate until the record starts a new generation,
// and a gate that refuses (closed, taken, or of another generation) ends the
// fast prefix there: the acquire plans the request and takes the rest slowly,
// in plan order (but for a write refused only at its last step, its path's
// word, whose wait may queue at the gate: it queues at the gate the memo
// knows, and plans only if it cannot, the gate closed or of a new generation;
// so a blocking write of a path written in turn is not planned). If that gate
// is of a new generation (its entry was evicted), or open with another set
// than the one a take expects, the memo's entry is dropped, and the next
// wholly fast acquire memoizes the gates as they are then; a gate closed or
// taken (contention, which passes) leaves it. A write below a folder that
// found its word taken or queued for holds it briefly for its next hits
// (CONTENDED WORDS in impl/path_lock_memo.hpp): taken last, after a fence
// of its own and its folders' words re-read, and given back before its
// slots are cleared, as is a word granted at its gate's queue; so writers
// of one path in turn mostly find it given back already, and pass its
// line between them about once a write, not two and a half times. A plan
// with a step taken slowly is never memoized. 64 entries per thread (40 KiB,
// and a buffer of an entry's own for a path longer than 64 bytes, as in the
// gate cache: at most 68 KiB more), direct-mapped by a hash of the path,
// shared by every lock of the platform (keyed by the lock's uid); a request
// takes another's entry only the second time in a row it is refused it, so
// that requests spread over thousands of paths do not rewrite the memo at
// every acquire for no hit.
//
// INVARIANTS (per shard, under its lock):
//   entries == nodes linked from the buckets == active + idle_count
//   a node is flagged idle  <=>  its queue has no holder and no waiter
//   a node is flagged idle  =>  it is in the idle list (which may also hold
//                               nodes in use, until the sweep drops them)
//   each waiting acquisition has exactly one sleeper record, on the entry it waits for
// check_invariants() checks these, the gates' (every set slot names an
// entry's gate that admits it or stands for it with a pseudo hold) and
// every LockQueue's.
//
// PLATFORM. The lock is BasicPathLock<P>, written once against a Platform P
// (impl/platform.hpp): every atomic, lock, wait, clock read, stop token and
// task id goes through P. PathLock is BasicPathLock<impl::StdPlatform>, real
// threads and std::chrono::steady_clock, compiled once in the library; the
// harness's deterministic runtime instantiates the same code on a platform
// that makes each of those operations a scheduling point
// (impl/path_lock_definitions.hpp holds the template's definitions).
//
// COSTS. An uncontended acquire allocates nothing once its entries exist (and
// its plan has at most impl::StepBuffer::kInline steps). A request taken
// from the plan memo costs one fence to acquire and one to release, plus a
// compare-exchange and an exchange-add for a written leaf's exclusive gate;
// on x86 a write issues no fence (those two are its fences: two locked
// instructions in all, as a std::mutex lock+unlock), a read still two, and
// a write whose word was lately contended, or granted at its gate's queue,
// two as well (CONTENDED WORDS). See
// the README for measured times against std::mutex, std::shared_mutex and a
// map of shared_mutexes.
//
// ERRORS. Requests are model::Request, validated when built (a malformed key
// or path, or an empty request, throws model::InputError there). A deadline
// already past is not an error: the acquire gets whatever it can without
// waiting, and returns kTimedOut if it would have had to wait.

#include <atomic>
#include <cassert>
#include <chrono>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "pathlock/impl/lock_queue.hpp"
#include "pathlock/impl/plan.hpp"
#include "pathlock/impl/platform.hpp"
#include "pathlock/impl/scheme.hpp"
#include "pathlock/impl/thread_array.hpp"
#include "pathlock/model/request.hpp"

namespace pathlock {

enum class AcquireStatus {
  kGranted,     // every lock of the plan is held
  kWouldBlock,  // try_acquire: some lock is not free now; nothing is held
  kTimedOut,    // the deadline passed first; nothing is held
  kCancelled,   // the stop token was triggered first; nothing is held
  kReleased,    // the guard was released, moved from, or default-constructed
  kFailed,      // async_acquire: an allocation failed once the acquisition
                // was queued; nothing is held (a blocking call throws instead)
  kLeaseLost,   // etcd::EtcdPathLock only: the process's lease expired, before
                // the grant (nothing held) or after it (the records may now
                // be another's: stop writing, the fencing token is stale)
};
std::string_view to_string(AcquireStatus status) noexcept;

// What AsyncAcquisition::cancel() found (ASYNC above).
enum class CancelOutcome : std::uint8_t {
  kCancelled,         // withdrawn: its handler runs (or ran, or will run) once, with the reason, holding nothing
  kAlreadyCompleted,  // its handler has run, is running, or is about to, with its final guard
};
std::string_view to_string(CancelOutcome outcome) noexcept;

// What a blocking acquire by a thread that already holds a guard of the same
// lock does (NESTING): it can deadlock even without a conflict.
enum class UnsafeNesting : std::uint8_t {
  kIgnore,  // not tracked (no cost)
  kThrow,   // throws std::logic_error naming both requests, before taking anything
  kAbort,   // prints both requests to stderr and aborts
};

// Whether the lock takes a scheme that is not sound (impl::scheme_defects:
// plans that can deadlock, or a join that lets a conflicting request in).
enum class SchemeAdmission : std::uint8_t { kRequireSound, kAllowDefective };

struct PathLockOptions {
  std::size_t shards = 64;                    // rounded up to a power of two
  std::size_t max_idle_locks_per_shard = 128;  // idle entries kept, for reuse
  bool fast_gates = true;                     // every entry's fast path (GATES)
#ifdef NDEBUG
  UnsafeNesting unsafe_nesting = UnsafeNesting::kIgnore;
#else
  UnsafeNesting unsafe_nesting = UnsafeNesting::kAbort;
#endif
  // kRequireSound: the constructor throws std::invalid_argument naming the
  // scheme and its defects. kAllowDefective: for the harness, which runs
  // defective schemes to show that its checkers catch them.
  SchemeAdmission scheme_admission = SchemeAdmission::kRequireSound;
};

namespace impl {
// Test-only access to a lock's internals (defined by tests, never by the library).
struct PathLockTestPeer;
}  // namespace impl

// The lock, on a Platform P (impl/platform.hpp; PLATFORM above). Production
// code uses PathLock, below.
template <typename P>
class BasicPathLock {
 public:
  using Platform = P;
  using Clock = typename P::Clock;
  using StopToken = typename P::StopToken;
  class Guard;
  class AsyncAcquisition;
  class AcquireAwaitable;

  // REQUIRES: `scheme` outlives the lock.
  explicit BasicPathLock(const impl::Scheme& scheme, PathLockOptions options = {});
  // A temporary scheme would die before the lock: keep it in a variable.
  explicit BasicPathLock(impl::Scheme&& scheme, PathLockOptions options = {}) = delete;
  // REQUIRES: no guard is held and no acquire is in progress.
  ~BasicPathLock();
  BasicPathLock(const BasicPathLock&) = delete;
  BasicPathLock& operator=(const BasicPathLock&) = delete;

  // Blocks until granted.
  [[nodiscard]] Guard acquire(const model::Request& request);
  // Blocks until granted (kGranted) or `stop` is requested (kCancelled).
  [[nodiscard]] Guard acquire(const model::Request& request, StopToken stop);
  // Never blocks: kGranted or kWouldBlock.
  [[nodiscard]] Guard try_acquire(const model::Request& request);
  // kGranted, kTimedOut, or kCancelled if `stop` is requested first.
  [[nodiscard]] Guard acquire_until(const model::Request& request, typename Clock::time_point deadline,
                                    StopToken stop = {});
  template <typename Rep, typename Period>
  [[nodiscard]] Guard acquire_for(const model::Request& request, std::chrono::duration<Rep, Period> timeout,
                                  StopToken stop = {});

  // Never blocks a thread (ASYNC above): runs `handler` (void(Guard)) exactly
  // once, with a guard that is kGranted, kCancelled or kTimedOut (by cancel),
  // or kFailed. Inline, before returning, when every lock is free; otherwise
  // on the thread whose release (or cancel) completes the grant, outside
  // every lock of PathLock. The request is copied if the acquisition waits.
  // Throws (holding nothing, the handler not run) only if an allocation
  // fails before it returns. REQUIRES: the lock outlives the acquisition;
  // the handler neither throws nor blocks on this lock.
  template <typename Handler>
  AsyncAcquisition async_acquire(const model::Request& request, Handler handler);
  // C++20: `Guard g = co_await lock.acquire_async(request, stop_token);`
  // resumed on the granting thread; a stop request cancels the wait
  // (kCancelled), and one made before the co_await cancels it before it
  // takes anything, free or not, as for a blocking acquire. REQUIRES: the request outlives the co_await expression; a
  // coroutine suspended there is not destroyed (request stop, and let it
  // resume with kCancelled).
  // GCC 12.2 (Debian 12's compiler; clang 14 does not) destroys the member
  // of an aggregate-initialized co_await operand twice: `co_await
  // Wrapper{lock.acquire_async(r, token)}` destroys the awaitable twice
  // (undefined behaviour; with a stop token, a heap-use-after-free). Await
  // such a wrapper as a named variable (`Wrapper w{...}; co_await w;`), or
  // give it a constructor that calls acquire_async in its member
  // initializer. The test CoroutineOperand
  // (tests/impl/coroutine_operand_test.cpp) tells whether a compiler does
  // this.
  [[nodiscard]] AcquireAwaitable acquire_async(const model::Request& request, StopToken stop = {});

  // The design notes' operations, blocking. They build the request (which
  // allocates); for a hot path, build the request once and call acquire().
  [[nodiscard]] Guard read(const model::Path& path);
  [[nodiscard]] Guard write(const model::Path& path);
  [[nodiscard]] Guard remove(const model::Path& path);
  [[nodiscard]] Guard rename(const model::Path& from, const model::Path& to);
  [[nodiscard]] Guard copy(const model::Path& from, const model::Path& to);

  const impl::Scheme& scheme() const noexcept { return scheme_; }
  // Lock entries in use (held or waited for), over all shards.
  std::size_t active_locks() const;
  // Idle entries kept for reuse, over all shards: at most
  // shards * max_idle_locks_per_shard.
  std::size_t idle_locks() const;
  // Acquisitions queued on some lock and not yet granted, timed out or
  // cancelled, over all shards (a snapshot, for monitoring and for tests
  // that must know a waiter is queued before they act).
  std::size_t waiting_acquisitions() const;
  // Empty if the lock's invariants hold (INVARIANTS and GATES above, and
  // every lock's queue's); otherwise the first broken one, named. Takes each
  // shard's lock in turn. REQUIRES: every thread is outside this lock's
  // calls, or inside one only waiting for a grant (so the gates' slots are
  // not changing under the check).
  std::string check_invariants() const;
  // What every acquisition waits for, as text (for a watchdog or a hung
  // test): each waiting one's request, the lock and mode it waits for, and
  // the holders and waiters ahead there that block it; each holding one's
  // locks; the gates' fast holders. A best-effort snapshot: each shard is read under
  // its own lock in turn (impl/path_lock_describe.hpp).
  std::string describe_waits() const;

 private:
  friend struct impl::PathLockTestPeer;
  // Defined in impl/path_lock_table.hpp, _waiter.hpp and _gate.hpp.
  struct Node;
  struct Shard;
  struct Waiter;
  class WaiterSlot;
  struct IndexedKey;
  struct GateRecord;
  struct Gates;
  struct GateQueuer;
  struct GateCacheEntry;
  struct FastAsk;
  union FastAskRoom;
  struct SlotCursor;
  struct PlanMemoEntry;
  template <typename T>
  using Atomic = typename P::template Atomic<T>;
  using SpinLockHolder = impl::Locked<typename P::SpinLock>;
  enum class WaitPolicy { kNever, kUntilDeadline, kForever };
  // One step of a plan: granted at once, queued with the waiter the caller
  // gave, or neither (the caller gave none; nothing of the step is held).
  enum class StepResult : std::uint8_t { kGranted, kQueued, kMustWait };
  // How a fast step holds its gate: a slot of its thread's block, a count
  // in the gate record (a counted reader), or the word itself (a mode that
  // conflicts with itself).
  enum class FastVia : std::uint8_t { kSlot, kCount, kWord };
  // When a guard's release gives its words back (the holds of exclusive
  // steps): after clearing its slots, the give-back being the clears' fence
  // on x86 (kLockedRmwIsFence), or before anything else, so that the word's
  // hold ends as soon as it can (CONTENDED WORDS, path_lock_memo.hpp), and
  // the clears take a fence of their own (as they do elsewhere anyway).
  // (Declared here, before AsyncCompletion's complete(Guard) needs Guard
  // whole: Guard keeps one.)
  enum class WordsBack : std::uint8_t { kAfterSlots, kFirst };
  // A memoized plan's take of an exclusive step's word: not tried yet, or
  // tried (take_memoized_plan).
  enum class WordTake : std::uint8_t { kNotYet, kTaken, kRefused };
  // Whether a slow step first tries its entry's gate: not the step where
  // the fast prefix stopped (its gate was just found unknown, closed or full).
  enum class GateRetry : std::uint8_t { kTry, kSkip };
  template <typename MakeWaiter>
  StepResult take_step(const impl::StepView& step, Guard& guard, Node*& node, MakeWaiter&& make_waiter,
                       GateRetry retry = GateRetry::kTry);
  // ASYNC (impl/path_lock_async.hpp). The handler, boxed only once a step
  // must wait: the one allocation of an acquisition that waits.
  struct AsyncOp;
  struct AsyncCompletion {
    virtual ~AsyncCompletion() = default;
    virtual void complete(Guard guard) noexcept = 0;
  };
  template <typename Handler>
  struct AsyncCompletionFor;
  using BoxHandler = std::unique_ptr<AsyncCompletion> (*)(void* handler);
  enum class AsyncStart : std::uint8_t { kGrantedInline, kHandedOff };
  // kGrantedInline: `granted` holds every lock and the handler was not
  // boxed. kHandedOff: the boxed handler runs (or ran) from the op `handle` names.
  // REQUIRES: `granted` is empty (it becomes the acquisition's guard).
  AsyncStart start_async(const model::Request& request, Guard& granted, BoxHandler box, void* handler,
                         AsyncAcquisition& handle);
  // An acquisition whose stop was requested before it began: `guard`
  // becomes what a blocking acquire with that token returns (kCancelled,
  // nothing taken).
  void cancel_before_start(Guard& guard) noexcept;
  // The same for a handler of type Handler, boxed (moved from) only if a step must wait.
  template <typename Handler>
  AsyncStart start_async_with(const model::Request& request, Guard& granted, Handler& handler,
                              AsyncAcquisition& handle);
  // Takes the op's steps from its next one; queues, or completes it.
  void run_async(AsyncOp* op) noexcept;
  // The op's waiter was granted: counts the lock held and runs on.
  void resume_async(AsyncOp* op) noexcept;
  void finish_async(AsyncOp* op, AcquireStatus status) noexcept;
  CancelOutcome cancel_async(AsyncOp* op, AcquireStatus reason);
  static void unref_async(AsyncOp* op) noexcept;
  // Async ops granted by this thread wait in a thread-local queue;
  // run_deferred_resumes() resumes them, unless a resume already runs on
  // this thread (then that one's loop does): a handler that releases a guard
  // does not recurse.
  static void defer_resume(AsyncOp* op) noexcept;
  static void run_deferred_resumes() noexcept;
  class HoldResumes;
  // The same, for the header's templates: hold_resumes() returns whether
  // this call took the hold, to give to release_resumes().
  static bool hold_resumes() noexcept;
  static void release_resumes(bool owner) noexcept;
  // Around a handler: marks this thread as running one (so a handler it
  // completes is deferred, not nested) and holds resumes back meanwhile.
  static bool enter_handler() noexcept;
  static void leave_handler(bool owner) noexcept;
  // Runs the op's handler now, or after the handler running on this thread.
  static void deliver_async(AsyncOp* op) noexcept;
  Guard acquire_impl(const model::Request& request, WaitPolicy policy, typename Clock::time_point deadline,
                     StopToken stop);
  // The task id under which a gate's fast holders in `mode` hold its entry
  // while the gate is closed; acquisitions have ids >= 2^16.
  static constexpr impl::TaskId pseudo_task(impl::ModeId mode) noexcept { return mode.index; }
  static constexpr impl::TaskId kFirstTaskId = impl::TaskId{1} << 16;  // P::next_task_id()'s least

  void release_node(Node* node, impl::ModeId mode, impl::TaskId id);
  // GATES (impl/path_lock_gate.hpp). take_fast_prefix: the longest prefix
  // of `steps` this thread takes fast (recorded in the guard): each step's
  // slot set, one fence, each gate re-read in order; the first that no
  // longer admits its step, and the steps after it, are withdrawn. Returns
  // how many steps are held. try_fast: the same for one step.
  // Whether a thread's gate cache or plan memo is made if it is missing.
  using GateCacheUse = impl::ThreadArrayUse;
  // PLAN MEMO (impl/path_lock_memo.hpp). What the calling thread's memo
  // knows of a request: kNotMemoizable (not one path, or no gates),
  // kMiss, or kHit (`entry` holds its plan's gates).
  enum class MemoMatch : std::uint8_t { kNotMemoizable, kMiss, kHit };
  enum class MemoShape : std::uint8_t { kReadOne, kWriteOne };
  struct MemoLookup {
    MemoMatch match = MemoMatch::kNotMemoizable;
    MemoShape shape = MemoShape::kReadOne;
    std::string_view path;  // the request's one path
    std::uint64_t hash = 0;  // impl::memo_hash(path)
    std::uint64_t path_hash = 0;  // impl::path_hash(path), on a miss only (start_fast)
    PlanMemoEntry* entry = nullptr;  // kHit only
  };
  MemoLookup look_up_plan_memo(const model::Request& request) const noexcept;
  // Where an acquire starts: the steps it takes fast, with one fence. By
  // the memo on a hit (planning only if a gate refuses); else planned and
  // taken by take_fast_prefix, and memoized if every step was granted. Sets
  // the guard kGranted first (a rollback releases what is held).
  // A memo hit refused only at its last step, a take of its gate's word
  // (a write of a path another thread holds): that step as the memo knows
  // it, so that it may queue at the gate with no plan made. No initializers
  // (it is set, and read, only where FastStart says: an uncontended acquire
  // does not pay for it).
  struct MemoWordStep {
    GateRecord* record;
    std::uint64_t generation;  // of the record, when memoized
    std::uint64_t word;        // the record's word as the refusal found it
    const char* lock;          // its lock, a prefix of the request's path: [lock, lock + length)
    std::uint16_t length;
    std::uint8_t mode;  // its mode's index
    impl::StepView step() const noexcept { return {std::string_view(lock, length), impl::ModeId{mode}}; }
  };
  struct FastStart {
    std::size_t held = 0;     // steps held, the plan's first
    std::size_t planned = 0;  // steps in the plan
    // Planned in `scratch`; nullptr: not planned: every step is held, or
    // (held < planned) the one left is `last_word` (plan_of plans it).
    const impl::StepBuffer* plan = nullptr;
    MemoWordStep last_word;
  };
  FastStart start_fast(const model::Request& request, impl::ScratchSteps& scratch, Guard& guard);
  // The plan of an acquire start_fast began with steps left: its own, or
  // made now in `scratch` if start_fast left the last step unplanned.
  const impl::StepBuffer& plan_of(const model::Request& request, const FastStart& start, impl::ScratchSteps& scratch);
  // The steps after the fast prefix, in plan order: each through its gate's
  // queue, its gate or its entry's queue, waiting as the policy allows.
  // kEnded: a step could not be granted (the guard holds nothing, its
  // status says why); kHeld: every step is held. Out of line: an acquire
  // taken wholly fast never sets up its waits.
  enum class SlowRest : std::uint8_t { kHeld, kEnded };
  SlowRest take_rest_slowly(const model::Request& request, WaitPolicy policy, typename Clock::time_point deadline,
                            StopToken& stop, const FastStart& start, impl::ScratchSteps& scratch,
                            AcquireStatus blocked_status, Guard& guard);
  // The memo's plan, each step's slot set (or word taken) from the gate
  // and the word it remembers, then settled as settle_fast settles.
  // `refused_word`: if a step is refused, its gate's word as the refusal
  // found it.
  std::size_t take_memoized_plan(const PlanMemoEntry& entry, std::string_view path, Guard& guard,
                                 std::uint64_t& refused_word) noexcept;
  // `cursor`: where the prefix set its slots (its block is memoized).
  void memoize_plan(const MemoLookup& lookup, std::span<const FastAsk> granted, const SlotCursor& cursor) noexcept;
  static PlanMemoEntry* plan_memo(GateCacheUse use) noexcept;
  // `memo`, if not null: the request's lookup (a miss), memoized if every step is granted.
  std::size_t take_fast_prefix(std::span<const impl::StepView> steps, Guard& guard,
                               const MemoLookup* memo = nullptr) noexcept;
  bool try_fast(std::string_view key, std::uint64_t hash, impl::ModeId mode, Guard& guard) noexcept;
  // Sets a slot for `key` in `mode` (not yet a hold), if this thread's gate
  // cache knows the entry's gate, it admits the mode and a slot is free.
  // `cursor`: where the prefix's next slot is looked for (SlotCursor).
  // Inlined, as look_up_gate: a call each cost a tenth of a memo miss.
  [[gnu::always_inline]] inline bool ask_fast(std::string_view key, std::uint64_t hash, impl::ModeId mode,
                                              impl::TaskId task, FastAsk& ask, SlotCursor& cursor) noexcept;
  // The gate of `key` as ask_fast finds it (the thread's gate cache, then
  // the index), if its word admits `mode` now; `ask` names it (no slot set).
  [[gnu::always_inline]] inline bool look_up_gate(std::string_view key, std::uint64_t hash, impl::ModeId mode,
                                                  FastAsk& ask) noexcept;
  // The end of ask_fast, for the gate `ask` names: a reader's slot set
  // (publish_ask), a take's word read (settle_fast takes it).
  [[gnu::always_inline]] inline bool ask_found(FastAsk& ask, impl::TaskId task, SlotCursor& cursor) noexcept;
  // A blocking step in a mode that conflicts with itself, at its open
  // exclusive gate: takes the word if it is free and nobody queues, else
  // queues at the gate (the tail in its word) and takes it in turn
  // (path_lock_gate.hpp). kNotQueued: the gate is unknown, closed, of another
  // set or generation (the step goes the slow way; nothing is held).
  enum class GateQueue : std::uint8_t { kGranted, kNotQueued };
  static constexpr int kLinkSpins = 64;  // pauses before a head waiting for its successor's link yields
  // `known`: the step's gate, as a memo hit knew it (else it is looked up).
  GateQueue queue_at_gate(const impl::StepView& step, Guard& guard, const MemoWordStep* known = nullptr) noexcept;
  // A thread queued at g waits until ready() (seq_cst loads): spins while
  // g's queue moves, yields, then sleeps on its queuer; wake_queuer wakes
  // it once the caller made it ready, if it sleeps. wake_gate_queue_head:
  // the word was just released with threads queued (it wakes the head only
  // if the head marked its sleep on the gate's line).
  // kHead: the queue's first thread, which waits for the word to be given
  // back (and announces its sleep on the gate's line); kLinked: a thread
  // linked behind another, which waits to be handed the word.
  enum class QueuePlace : std::uint8_t { kHead, kLinked };
  template <typename Ready>
  static void wait_in_gate_queue(GateRecord* g, GateQueuer& q, QueuePlace place, Ready&& ready) noexcept;
  void wake_queuer(GateQueuer& q) noexcept;
  void wake_gate_queue_head(GateRecord* g) noexcept;
  // REQUIRES: the caller holds a gate's word taken, and q's thread queues
  // behind it at that gate. Hands it the word, still taken.
  void hand_word_to(GateQueuer& q) noexcept;
  // The end of ask_fast for a reader (a step in a mode its gate admits),
  // for a gate known by (record, expected word): sets the slot, or counts
  // the reader, as the gate's readers hold it, if the word admits the ask
  // now. (A step that takes the word asks in ask_fast; a memo hit asks in
  // take_memoized_plan, the same way.)
  [[gnu::always_inline]] inline bool publish_ask(FastAsk& ask, impl::TaskId task, SlotCursor& cursor) noexcept;
  // The gate of `key` through the lock-wide index, if the record there
  // holds `key` in the generation read and its gate admits `mode` (not yet
  // a hold: ask_fast publishes a slot, settle_fast re-reads the word).
  bool find_indexed_gate(std::string_view key, std::uint64_t hash, impl::ModeId mode, FastAsk& ask) noexcept;
  // Whether record g is the gate of `key` (it holds the path in the
  // generation its word was read in, and admits `mode`): kFound (`ask`
  // names it), kOther (another path's, or not admitting), or kMoved (a new
  // generation began while it was read).
  enum class GateRead : std::uint8_t { kFound, kOther, kMoved };
  [[gnu::always_inline]] inline GateRead read_gate(GateRecord* g, std::string_view key, impl::ModeId mode,
                                                   FastAsk& ask) noexcept;
  // REQUIRES: node->shard->mu held. index_gate: the entry's gate just opened;
  // its record takes a slot of its path's bucket that is free or names a
  // closed gate, if there is one. unindex_gate: its record retired; the
  // slot that names it (under its path's tag) is cleared.
  void index_gate(const Node* node) noexcept;
  void unindex_gate(const Node* node) noexcept;
  // Whether `word` is as the ask needs it (FastAsk::expect under its mask):
  // a reader's gate open in its generation, admitting it, untaken; a take's
  // word unchanged.
  [[gnu::always_inline]] static inline bool admits(const FastAsk& ask, std::uint64_t word) noexcept;
  // Whether a step in a mode that conflicts with itself may take `word`:
  // open in the ask's generation, untaken, no slow holder, and either the
  // mode's exclusive gate or a shared set.
  [[gnu::always_inline]] inline bool takeable(const FastAsk& ask, std::uint64_t word) noexcept;
  // A step that takes the word: compare-exchange from ask.expect (open with
  // a set, untaken, no slow holder, nobody queued); on a shared set, then
  // no slot (or counted reader) of a conflicting mode, or it gives the word
  // back and withdraws. It also switches how the gate's readers hold it
  // (switch_readers). Inlined: an ask passed through memory is stored,
  // and read back with a store-forwarding stall; the shared set's part,
  // keep_shared_word, is out of line.
  // release_exclusive: gives it back, draining the gate if it closed
  // meanwhile.
  [[gnu::always_inline]] inline bool take_exclusive(const FastAsk& ask, impl::TaskId task) noexcept;
  bool keep_shared_word(GateRecord* g, std::uint32_t set, impl::ModeId mode, std::string_view key,
                        impl::TaskId task) noexcept;
  // `successor`: the thread (slot + 1) queued behind the holder when it
  // took the word from the gate's queue, to hand the word to; 0 = none.
  // Returns how: given back (a seq_cst read-modify-write of the word) or
  // handed on (a store). Every write's release.
  enum class WordRelease : std::uint8_t { kGivenBack, kHanded };
  [[gnu::always_inline]] inline WordRelease release_exclusive(GateRecord* gate, impl::ModeId mode,
                                                              std::uint8_t successor = 0) noexcept;
  // REQUIRES: the caller holds g's word taken (a take of a shared set) and
  // no reader conflicts with it. `slots`: the modes in which slots name g
  // (if its readers set slots). Moves g's readers to counts after
  // calm_takes_to_count() takes in a row found no slot, and back to slots
  // after a counted reader found another in.
  void switch_readers(GateRecord* g, std::uint32_t slots) noexcept;
  // A counted reader asks (publish_ask, take_memoized_plan): false, having
  // taken its count back, if its mode's count is at the limit.
  // leave_reader: a reader (via kSlot or kCount) leaves or withdraws, its
  // slot cleared or its count taken back; the caller drains the gate if it
  // closed meanwhile.
  bool count_reader(GateRecord* g, impl::ModeId mode) noexcept;
  static void leave_reader(FastVia via, Atomic<std::uintptr_t>* slot, GateRecord* g, impl::ModeId mode) noexcept;
  // Fences, then grants the longest prefix of the asks whose gates still
  // admit them and withdraws the rest; returns how many were granted.
  // take_memoized_plan follows the same protocol in its own two loops.
  std::size_t settle_fast(std::span<const FastAsk> asked, Guard& guard) noexcept;
  // A fast step granted (its slot set, or its gate's word taken): told,
  // recorded in the guard (at `at`, a place of its inline room whose count
  // the caller raises, or pushed if nullptr, within the room the caller
  // reserved), and the gate marked used (CLOCK's reference bit).
  [[gnu::always_inline]] static inline void hold_fast(Guard& guard, typename Guard::Held* at, FastVia via,
                                                      Atomic<std::uintptr_t>* slot, GateRecord* gate,
                                                      impl::ModeId mode, std::string_view key,
                                                      std::uint8_t successor = 0) noexcept;
  // After clearing slots (or counts): fences once, then drains each gate
  // that for_each_gate(drain) passes to drain(record) (a cleared slot's or
  // count's gate) if it is closed. kByLockedRmw: the caller issued a seq_cst
  // read-modify-write after the last clear, so the fence is
  // impl::fence_beside_locked_rmw (the compiler's alone on x86).
  enum class ClearsOrdered : std::uint8_t { kNotYet, kByLockedRmw };
  template <typename ForEachGate>
  [[gnu::always_inline]] inline void drain_closed_gates(ForEachGate&& for_each_gate,
                                                        ClearsOrdered ordered = ClearsOrdered::kNotYet) noexcept;
  // Whether a target's slow step (its gate open already) may take this
  // thread's gate cache entry: yes where the entry is free or already its
  // own, or where the target asks for it twice in a row (a hot leaf); a
  // folder's step always may. A leaf taken once among thousands would push
  // a hot folder out.
  bool admit_target_to_gate_cache(std::uint64_t hash) noexcept;
  // Where a thread learns an entry's gate: its slow step (under the shard
  // lock), or a folder's gate found through the index.
  void remember_gate(std::string_view key, std::uint64_t hash, GateRecord* record, std::uint64_t generation) noexcept;
  static GateCacheEntry* gate_cache(GateCacheUse use) noexcept;
  // REQUIRES: node->shard->mu held. Closes the entry's gate, turning its
  // fast holders into pseudo holds (strong guarantee).
  void close_gate(Node* node);
  // REQUIRES: node->shard->mu held, its gate just closed, room in its queue
  // for a holder per admitted mode. A pseudo hold for each admitted mode
  // that has fast holders (they hold the entry in modes compatible with
  // every holder, so each is granted at once).
  // Waits first while a mode is taken beside a slot that conflicts with it.
  void stand_for_fast_holders(Node* node, std::uint32_t admitted) noexcept;
  // Whether `fast` (Gates::count) has a slot in a mode conflicting with the
  // mode `taken` (one bit).
  bool conflicting_slots(const std::array<std::uint32_t, impl::kMaxModes>& fast, std::uint32_t taken) const noexcept;
  // REQUIRES: node->shard->mu held, its shared gate open. mark: a slow step
  // is about to join the open gate's holders: sets the word's slow bit, so
  // nothing takes the word beside it; false if a mode was taken already
  // (the caller closes the gate). clear: its queue went idle.
  bool mark_slow_holders(Node* node) noexcept;
  void clear_slow_holders(Node* node) noexcept;
  // REQUIRES: node->shard->mu held, `mode` just granted on the slow path.
  // Opens the entry's gate with the first gate set that takes every mode
  // its queue holds and `mode`, if it queues nobody and has no pseudo hold.
  void maybe_open_gate(Node* node, impl::ModeId mode) noexcept;
  // REQUIRES: node->shard->mu held, its queue idle. Reopens the gate with
  // the set it last opened with, if it is closed and no pseudo task holds
  // the entry: the read after a write (or after a drain) is fast again.
  void reopen_idle_gate(Node* node) noexcept;
  // REQUIRES: node->shard->mu held, its gate closed with `word`, and `set`
  // takes every mode its queue holds. Opens it with `set` (remembered for
  // reopening) and offers its record to the index.
  void open_gate(Node* node, std::uint64_t word, std::uint32_t set) noexcept;
  // REQUIRES: node->shard->mu held, node idle. Whether eviction may take
  // the entry: kKept in the first sweep if it was used fast since the last
  // one; kMadeActive if it is held fast now (its gate closes and its fast
  // holders become pseudo holds, in the room its queue kept: no
  // allocation); else kRetired: its gate closes for good and its record
  // starts a new generation.
  enum class GateSweep : std::uint8_t { kSecondChance, kUnlessHeld };
  enum class GateRetire : std::uint8_t { kRetired, kKept, kMadeActive };
  GateRetire retire_gate(Node* node, GateSweep sweep) noexcept;
  // If the gate's entry has pseudo holds that no slot needs any more,
  // releases them. EXCLUDES the gate's shard lock.
  void drain_gate(GateRecord* gate) noexcept;
  // REQUIRES: node->shard->mu held. Takes the acquisitions `granted` names
  // off the node onto `to_wake` (wake_all wakes them once the shard lock is
  // released), lists the node if idle (evicting beyond the bound).
  void settle(Node* node, std::span<const impl::LockEntry> granted, Waiter*& to_wake) noexcept;
  // Spins until ready(), in rounds of Waiter::kSpinFor; starts another
  // round (up to impl::max_spin_rounds<P>(), a yield between) while
  // progress(), a count the queue's handoffs bump, moved during the last
  // one; then yields a few times. True once ready(); false after the last
  // yield, with no look after it (the caller decides whether to look again
  // before it sleeps). A slow waiter and a thread queued at a gate spin
  // alike (Waiter says why).
  template <typename Ready, typename Progress>
  static bool spin_while_queue_moves(Ready&& ready, Progress&& progress);
  // Spins while the waiter's entry keeps granting; true once it is granted.
  static bool spin_for_grant(const Waiter& waiter);
  AcquireStatus wait_for_grant(Waiter& waiter, WaitPolicy policy, typename Clock::time_point deadline,
                               StopToken& stop);
  // REQUIRES: node->shard->mu held. Marks the acquisitions that `granted`
  // names (they wait on `node`) granted, and links them onto `to_wake`.
  static void take_granted(Node* node, std::span<const impl::LockEntry> granted, Waiter*& to_wake) noexcept;
  // EXCLUDES every shard lock: a wake takes the waiter's mutex, a blocking
  // call, which never happens under a spin lock.
  static void wake_all(Waiter* to_wake) noexcept;
  template <typename F>
  std::size_t sum_over_shards(F count) const;
  // Parts of check_invariants(). check_shard: REQUIRES shards_[index].mu held.
  std::string check_shard(std::size_t index, std::size_t& fast_counted) const;
  std::string check_sleepers(const Node& node) const;
  std::string check_gate(const Node& node, std::size_t& held_fast) const;
  Shard& shard_for(std::uint64_t hash) const noexcept;

  // NESTING: the granted requests of guards alive, by owning thread, while
  // options_.unsafe_nesting != kIgnore (a std::mutex: only ever held for a
  // lookup, never across a lock step).
  struct HeldRequest {
    std::thread::id thread;
    impl::TaskId task;
    std::string text;
  };
  void check_nesting(const model::Request& request, WaitPolicy policy, const StopToken& stop);
  void record_held(impl::TaskId task, const model::Request& request);
  void forget_held(impl::TaskId task) noexcept;
  mutable std::mutex nesting_mu_;
  std::vector<HeldRequest> held_requests_;

  const impl::Scheme& scheme_;
  PathLockOptions options_;
  std::uint64_t uid_;  // never reused in this process: keys the threads' gate caches
  std::size_t shard_mask_;
  std::unique_ptr<Gates> gates_;
  std::unique_ptr<Shard[]> shards_;
};

// Holds the locks of one granted acquire; releases them when destroyed.
// Movable, not copyable. Not thread-safe itself: one guard, one owner.
template <typename P>
class BasicPathLock<P>::Guard {
 public:
  Guard() = default;
  Guard(Guard&& other) noexcept;
  Guard& operator=(Guard&& other) noexcept;
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;
  ~Guard() { release(); }

  AcquireStatus status() const noexcept { return status_; }
  bool owns_lock() const noexcept { return status_ == AcquireStatus::kGranted; }
  explicit operator bool() const noexcept { return owns_lock(); }
  // Number of locks held.
  std::size_t lock_count() const noexcept { return count_; }
  // Releases every lock now (last acquired first). Idempotent.
  void release() noexcept;

 private:
  friend class BasicPathLock;
  friend struct impl::PathLockTestPeer;
  static constexpr std::size_t kInline = 32;
  Guard(BasicPathLock* lock, impl::TaskId id) : lock_(lock), id_(id) {}
  struct Held {
    union {
      Node* node;                      // gate == nullptr: held in the entry's queue
      Atomic<std::uintptr_t>* slot;    // gate != nullptr, via kSlot: held fast, through this slot
    };
    GateRecord* gate;
    impl::ModeId mode;
    FastVia via;  // gate != nullptr: how it is held
    // via kWord: the thread (slot + 1) queued behind this hold when it
    // took the word from the gate's queue, which its release hands the
    // word to (release_exclusive); 0 = none.
    std::uint8_t successor;
  };
  void push(Node* node, impl::ModeId mode);
  // The next hold's place, filled in by the caller field by field (a Held
  // built on the stack and copied in stalls on store forwarding).
  [[gnu::always_inline]] Held& next_held() {
    if (count_ < kInline) return inline_.at[count_++];
    return next_held_on_heap();
  }
  Held& next_held_on_heap();
  // Where the next n holds go if they fit inline; nullptr if not.
  Held* inline_room(std::size_t n) noexcept { return count_ + n <= kInline ? inline_.at + count_ : nullptr; }
  // fn(hold) for each hold, the last first.
  template <typename Fn>
  [[gnu::always_inline]] void for_each_held_backwards(Fn&& fn) const {
    for (auto h = heap_.end(); h != heap_.begin();) fn(*--h);  // (no size: a division by sizeof(Held))
    for (const Held* h = inline_.at + std::min(count_, kInline); h != inline_.at;) fn(*--h);
  }

  BasicPathLock* lock_ = nullptr;
  impl::TaskId id_ = 0;
  AcquireStatus status_ = AcquireStatus::kReleased;
  WordsBack words_back_ = WordsBack::kAfterSlots;
  std::size_t count_ = 0;
  // Only inline_.at[0, min(count_, kInline)) is ever read: left
  // uninitialised (not even each hold's mode), since initialising 32 holds
  // per acquire costs more than a lock step.
  union HeldRoom {
    HeldRoom() noexcept {}
    Held at[kInline];
  };
  HeldRoom inline_;
  std::vector<Held> heap_;  // steps beyond kInline
};

// The handle of an async_acquire: cancels it. Destroying it does not cancel.
// Movable; one owner at a time; cancel() is thread-safe against the grant.
template <typename P>
class BasicPathLock<P>::AsyncAcquisition {
 public:
  AsyncAcquisition() = default;
  AsyncAcquisition(AsyncAcquisition&& other) noexcept : op_(std::exchange(other.op_, nullptr)) {}
  AsyncAcquisition& operator=(AsyncAcquisition&& other) noexcept {
    if (this != &other) {
      reset();
      op_ = std::exchange(other.op_, nullptr);
    }
    return *this;
  }
  AsyncAcquisition(const AsyncAcquisition&) = delete;
  AsyncAcquisition& operator=(const AsyncAcquisition&) = delete;
  ~AsyncAcquisition() { reset(); }

  // Withdraws the acquisition if it has not completed: its handler then
  // runs with `reason` (kCancelled or kTimedOut; anything else throws
  // std::invalid_argument) and nothing held: on this thread, before cancel()
  // returns, if it was queued and not yet granted; else on the thread taking
  // its steps, maybe after cancel() returns (keep what the handler uses
  // alive until it has run). An acquisition that completed at once (an
  // empty handle): kAlreadyCompleted.
  CancelOutcome cancel(AcquireStatus reason = AcquireStatus::kCancelled);

 private:
  friend class BasicPathLock;
  void reset() noexcept {
    if (op_ != nullptr) unref_async(std::exchange(op_, nullptr));
  }
  AsyncOp* op_ = nullptr;
};

template <typename P>
template <typename Handler>
struct BasicPathLock<P>::AsyncCompletionFor final : AsyncCompletion {
  explicit AsyncCompletionFor(Handler&& h) : handler(std::move(h)) {}
  void complete(Guard guard) noexcept override { handler(std::move(guard)); }
  Handler handler;
};

template <typename P>
template <typename Handler>
typename BasicPathLock<P>::AsyncAcquisition BasicPathLock<P>::async_acquire(const model::Request& request,
                                                                            Handler handler) {
  static_assert(std::is_invocable_v<Handler&, Guard>, "the handler is called as handler(Guard)");
  Guard granted;
  AsyncAcquisition handle;
  if (start_async_with(request, granted, handler, handle) == AsyncStart::kGrantedInline) {
    // Handlers never nest: one that this handler starts or grants runs after it.
    struct InHandler {
      bool owner = enter_handler();
      ~InHandler() { leave_handler(owner); }
    } in_handler;
    handler(std::move(granted));
  }
  return handle;
}

template <typename P>
template <typename Handler>
typename BasicPathLock<P>::AsyncStart BasicPathLock<P>::start_async_with(const model::Request& request,
                                                                         Guard& granted, Handler& handler,
                                                                         AsyncAcquisition& handle) {
  const BoxHandler box = [](void* h) -> std::unique_ptr<AsyncCompletion> {
    return std::make_unique<AsyncCompletionFor<Handler>>(std::move(*static_cast<Handler*>(h)));
  };
  return start_async(request, granted, box, &handler, handle);
}

// `co_await lock.acquire_async(request)`. Suspends unless granted at once;
// the handler that completes the acquisition resumes the coroutine, unless
// it ran before the coroutine had suspended (then it never suspends).
template <typename P>
class BasicPathLock<P>::AcquireAwaitable {
 public:
  AcquireAwaitable(BasicPathLock& lock, const model::Request& request, StopToken stop)
      : lock_(lock), request_(request), stop_(std::move(stop)) {}
  AcquireAwaitable(const AcquireAwaitable&) = delete;
  AcquireAwaitable& operator=(const AcquireAwaitable&) = delete;

  // Granted at once: the coroutine goes on without suspending, its guard
  // built in place (no handler runs, nothing is exchanged). Else the
  // acquisition is an op, which may complete on another thread before the
  // coroutine suspends. A stop already requested: kCancelled at once.
  bool await_ready() {
    assert(acquisition_.op_ == nullptr && "an AcquireAwaitable is awaited once");
    if (stop_.stop_requested()) {
      lock_.cancel_before_start(result_);
      return true;
    }
    Resume resume{this};
    return lock_.start_async_with(request_, result_, resume, acquisition_) == AsyncStart::kGrantedInline;
  }
  bool await_suspend(std::coroutine_handle<> coroutine) {
    coroutine_ = coroutine;
    if (stop_.stop_possible()) on_stop_.emplace(stop_, CancelOnStop{this});
    // Whoever comes second of this and the handler resumes the coroutine.
    return !handed_off_.exchange(true, std::memory_order_acq_rel);
  }
  Guard await_resume() {
    on_stop_.reset();  // waits for a stop callback running on another thread
    return std::move(result_);
  }

 private:
  struct Resume {
    AcquireAwaitable* self;
    void operator()(Guard guard) noexcept {
      self->result_ = std::move(guard);
      if (self->handed_off_.exchange(true, std::memory_order_acq_rel)) self->coroutine_.resume();
    }
  };
  struct CancelOnStop {
    AcquireAwaitable* self;
    void operator()() noexcept { (void)self->acquisition_.cancel(); }
  };
  BasicPathLock& lock_;
  const model::Request& request_;
  StopToken stop_;
  std::coroutine_handle<> coroutine_;
  Guard result_;
  Atomic<bool> handed_off_;  // false; the platform's: check-lock schedules each side's exchange
  AsyncAcquisition acquisition_;
  std::optional<typename P::template StopCallback<CancelOnStop>> on_stop_;
};

template <typename P>
typename BasicPathLock<P>::AcquireAwaitable BasicPathLock<P>::acquire_async(const model::Request& request,
                                                                            StopToken stop) {
  return AcquireAwaitable(*this, request, std::move(stop));
}

template <typename P>
template <typename Rep, typename Period>
typename BasicPathLock<P>::Guard BasicPathLock<P>::acquire_for(const model::Request& request,
                                                               std::chrono::duration<Rep, Period> timeout,
                                                               StopToken stop) {
  return acquire_until(request, Clock::now() + std::chrono::ceil<typename Clock::duration>(timeout), std::move(stop));
}

// The production lock: real threads, std::chrono::steady_clock,
// std::stop_token. Compiled once, in the library.
extern template class BasicPathLock<impl::StdPlatform>;
using PathLock = BasicPathLock<impl::StdPlatform>;

}  // namespace pathlock
