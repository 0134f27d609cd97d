// PathLock fairness: FIFO among conflicting requests, so a waiting writer is
// never overtaken by a reader that starts after it, step by step and under a
// read-heavy load. Each test first waits until the lock reports the writer
// queued (PathLock::waiting_acquisitions), so it cannot pass without
// reaching the case it checks; every wait has a time limit, and each test
// runs under a Watchdog (support/watchdog.hpp): a writer starved, or a grant
// lost, fails within the watchdog's limit with what each acquisition waits
// for, instead of waiting out the 60 s deadlines below.

#include <gtest/gtest.h>

#include <atomic>
#include <string_view>
#include <thread>
#include <vector>

#include "pathlock/model/request.hpp"
#include "pathlock/path_lock.hpp"
#include "support/path_lock_support.hpp"
#include "support/watchdog.hpp"

namespace pathlock {
namespace {

using namespace std::chrono_literals;
using model::Path;
using testing_support::current_test_name;
using testing_support::eventually;
using testing_support::GlobalRw;
using testing_support::PathRwaJoined;
using testing_support::ThreadPhase;
using testing_support::WatchedThread;
using testing_support::Watchdog;

Path P(std::string_view s) { return Path::parse(s); }

// FIFO among conflicting requests, step by step: a reader holds /docs; a
// writer queues; a later reader, compatible with the holder, must queue
// behind the writer rather than be granted at once; releasing the holder
// grants the writer, then the reader.
template <typename S>
void later_reader_queues_behind_a_waiting_writer() {
  SCOPED_TRACE(S::scheme().name());
  PathLock lock(S::scheme());
  const auto read = model::read(P("/docs")).request();
  const auto write = model::write(P("/docs")).request();
  Watchdog watchdog(current_test_name() + " (" + S::scheme().name() + ")");
  watchdog.watch("lock", lock);
  auto& writer_note = watchdog.thread("writer");
  auto& reader_note = watchdog.thread("later reader");
  auto first = lock.acquire(read);
  // Two readers share /docs under this scheme, so only the queued writer can
  // make the later reader wait.
  ASSERT_TRUE(lock.try_acquire(read)) << "readers of one folder conflict: this test would prove nothing";
  std::atomic<int> grants{0};
  std::atomic<int> writer_rank{0};
  std::atomic<int> reader_rank{0};
  std::thread writer([&] {
    writer_note.at(ThreadPhase::kAcquiring, write);
    auto g = lock.acquire_for(write, 60s);
    if (g) writer_rank = ++grants;
    writer_note.at(ThreadPhase::kDone);
  });
  ASSERT_TRUE(eventually([&] { return lock.waiting_acquisitions() == 1; })) << "the writer never queued";
  std::thread reader([&] {
    reader_note.at(ThreadPhase::kAcquiring, read);
    auto g = lock.acquire_for(read, 60s);
    if (g) reader_rank = ++grants;
    reader_note.at(ThreadPhase::kDone);
  });
  const bool reader_queued = eventually([&] { return lock.waiting_acquisitions() == 2; });
  EXPECT_TRUE(reader_queued) << "the later reader did not queue behind the waiting writer";
  EXPECT_EQ(reader_rank.load(), 0) << "the later reader was granted while the writer waited";
  EXPECT_EQ(lock.check_invariants(), "");  // two sleeper records, in queue order
  first.release();
  writer.join();
  reader.join();
  EXPECT_EQ(writer_rank.load(), 1);
  EXPECT_EQ(reader_rank.load(), 2);
  EXPECT_EQ(lock.active_locks(), 0u);
}

TEST(PathLockFairness, ALaterReaderQueuesBehindAWaitingWriter) {
  later_reader_queues_behind_a_waiting_writer<GlobalRw>();
  later_reader_queues_behind_a_waiting_writer<PathRwaJoined>();  // path-rw: readers of a folder conflict
}

// The same under load: readers keep the lock busy; once the writer is queued,
// no reader that starts later is granted before it. The test pins the lock
// with a read of its own until the writer is queued and readers have started
// acquires after that, so it always reaches the case it checks. Readers never
// wait for each other or for the pin, so while the writer has not been
// granted, any waiting acquisition means the writer is queued.
template <typename S>
void writer_is_not_bypassed() {
  SCOPED_TRACE(S::scheme().name());
  PathLock lock(S::scheme());
  const auto read = model::read(P("/docs")).request();
  const auto write = model::write(P("/docs")).request();
  std::atomic<bool> stop{false};
  std::atomic<bool> writer_done{false};
  std::atomic<int> started_behind_writer{0};
  std::atomic<int> bypasses{0};
  std::atomic<int> reader_failures{0};
  Watchdog watchdog(current_test_name() + " (" + S::scheme().name() + ")");
  watchdog.watch("lock", lock);
  auto pin = lock.acquire(read);
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    WatchedThread* note = &watchdog.thread("reader " + std::to_string(t));
    readers.emplace_back([&, note] {
      while (!stop) {
        const bool behind_writer = !writer_done && lock.waiting_acquisitions() >= 1;
        if (behind_writer) ++started_behind_writer;
        note->at(ThreadPhase::kAcquiring, read);
        auto g = lock.acquire_for(read, 60s);
        if (!g) ++reader_failures;
        if (behind_writer && !writer_done) ++bypasses;
        note->at(ThreadPhase::kIdle);
        std::this_thread::sleep_for(200us);
      }
      note->at(ThreadPhase::kDone);
    });
  }
  std::atomic<bool> writer_granted{false};
  auto& writer_note = watchdog.thread("writer");
  std::thread writer([&] {
    writer_note.at(ThreadPhase::kAcquiring, write);
    auto g = lock.acquire_for(write, 60s);
    writer_granted = g.owns_lock();
    writer_done = true;
    writer_note.at(ThreadPhase::kDone);
  });
  const bool queued = eventually([&] { return lock.waiting_acquisitions() >= 1; });
  // Reached once two readers are queued behind the writer: counted by the
  // readers themselves, or seen as three waiting acquisitions (a reader that
  // looked before the writer queued still queues behind it).
  const bool reached =
      eventually([&] { return started_behind_writer.load() >= 2 || lock.waiting_acquisitions() >= 3; });
  pin.release();
  writer.join();
  stop = true;
  for (auto& r : readers) r.join();
  EXPECT_TRUE(queued) << "the writer never queued";
  EXPECT_TRUE(reached) << "no reader started while the writer was queued";
  EXPECT_TRUE(writer_granted.load());
  EXPECT_EQ(reader_failures.load(), 0);
  EXPECT_EQ(bypasses.load(), 0);
}

TEST(PathLockFairness, AWriterIsNotBypassedByLaterReaders) {
  writer_is_not_bypassed<GlobalRw>();
  writer_is_not_bypassed<PathRwaJoined>();
}

// The header's NESTING case: FIFO makes a thread that holds read(/a/x) and
// asks for read(/a/y) wait behind a writer of /a that waits for the first
// read, so the second read never comes (here it times out instead).
TEST(PathLockFairness, ANestedAcquireWaitsBehindAWriterQueuedBetweenItsRequests) {
  PathLock lock(PathRwaJoined::scheme());
  Watchdog watchdog(current_test_name());
  watchdog.watch("lock", lock);
  const auto write = model::write(P("/a")).request();
  auto& writer_note = watchdog.thread("writer");
  auto first = lock.read(P("/a/x"));
  std::atomic<bool> writer_granted{false};
  std::thread writer([&] {
    writer_note.at(ThreadPhase::kAcquiring, write);
    writer_granted = lock.acquire_for(write, 60s).owns_lock();
    writer_note.at(ThreadPhase::kDone);
  });
  ASSERT_TRUE(eventually([&] { return lock.waiting_acquisitions() == 1; })) << "the writer never queued";
  EXPECT_EQ(lock.acquire_for(model::read(P("/a/y")).request(), 50ms).status(), AcquireStatus::kTimedOut)
      << "the second read did not wait behind the queued writer";
  EXPECT_FALSE(writer_granted.load());
  first.release();
  writer.join();
  EXPECT_TRUE(writer_granted.load());
  EXPECT_EQ(lock.check_invariants(), "");
}

}  // namespace
}  // namespace pathlock
