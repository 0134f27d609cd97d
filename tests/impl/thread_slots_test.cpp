// impl::this_thread_slot(): distinct among live threads, the least free one
// for a new thread, and given back when a thread exits, so the gates' slot
// blocks are scanned only as far as the most threads alive at once.

#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <cstddef>
#include <set>
#include <thread>
#include <vector>

#include "pathlock/impl/thread_slots.hpp"

namespace pathlock::impl {
namespace {

std::size_t slot_of_a_new_thread() {
  std::size_t slot = 0;
  std::thread([&] { slot = this_thread_slot(); }).join();
  return slot;
}

TEST(ThreadSlots, LiveThreadsHoldDistinctSlots) {
  constexpr std::size_t kThreads = 8;
  std::vector<std::size_t> slots(kThreads);
  std::barrier all_claimed(static_cast<std::ptrdiff_t>(kThreads));
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      slots[i] = this_thread_slot();
      EXPECT_EQ(this_thread_slot(), slots[i]) << "a thread's slot is fixed for its life";
      all_claimed.arrive_and_wait();  // every slot held at once
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(std::set<std::size_t>(slots.begin(), slots.end()).size(), slots.size());
}

// Threads started one after another, each exiting before the next starts,
// reuse one slot: the process's thread count does not grow the scan.
TEST(ThreadSlots, AnExitedThreadsSlotIsReused) {
  const std::size_t first = slot_of_a_new_thread();
  for (int i = 0; i < 100; ++i) EXPECT_EQ(slot_of_a_new_thread(), first);
  EXPECT_LT(first, kRecycledThreadSlots);
}

// A thread_local made before the thread's first lock call is destroyed
// after the thread gave its number back; if its destructor locks, it must
// not use that number, which a new thread may hold by then (two live
// threads setting one block's slots would lose a fast holder).
struct AsksAtExit {
  std::size_t* out = nullptr;
  ~AsksAtExit() {
    if (out != nullptr) *out = this_thread_slot();
  }
};

TEST(ThreadSlots, ADestructorRunAfterTheNumberIsGivenBackGetsOneNoThreadHolds) {
  std::size_t during = 0;
  std::size_t at_exit = 0;
  std::thread([&] {
    thread_local AsksAtExit asks;  // made first, so destroyed after the claim
    asks.out = &at_exit;
    during = this_thread_slot();
  }).join();
  EXPECT_LT(during, kRecycledThreadSlots);
  EXPECT_GE(at_exit, kRecycledThreadSlots) << "the number given back was used again at exit";
}

}  // namespace
}  // namespace pathlock::impl
