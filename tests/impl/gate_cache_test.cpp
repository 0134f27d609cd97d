// What a thread's gate cache keeps (path_lock.hpp: GATES): a folder's gate
// at once; a target's only when its gate was open already and the cache
// entry is free or the target asks for it twice in a row. Seen through the
// lock's own events: a step the cache knows is asked for fast (kAsked).

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "pathlock/impl/path_hash.hpp"
#include "pathlock/impl/path_lock_definitions.hpp"
#include "pathlock/path_lock.hpp"

// Named, not anonymous: the lock is explicitly instantiated on this
// platform below, which needs its members to have external linkage.
namespace pathlock::gate_cache_test {

// Fast asks per path, over this test binary's locks on ObservingPlatform.
struct Asks {
  std::mutex mu;
  std::map<std::string, int, std::less<>> by_path;
  int of(std::string_view path) {
    std::lock_guard<std::mutex> hold(mu);
    const auto it = by_path.find(path);
    return it == by_path.end() ? 0 : it->second;
  }
};
Asks g_asks;

struct ObservingPlatform : impl::StdPlatform {
  static void observe(impl::LockEvent event, std::string_view lock, impl::TaskId, impl::ModeId) noexcept {
    if (event != impl::LockEvent::kAsked) return;
    std::lock_guard<std::mutex> hold(g_asks.mu);
    ++g_asks.by_path[std::string(lock)];
  }
};

}  // namespace pathlock::gate_cache_test

template class pathlock::BasicPathLock<pathlock::gate_cache_test::ObservingPlatform>;

namespace pathlock {
namespace {

using gate_cache_test::g_asks;
using Lock = BasicPathLock<gate_cache_test::ObservingPlatform>;

model::Path P(std::string_view text) { return model::Path::parse(text); }

// A top-level path, not under /f, that lands on the same entry of a
// thread's gate cache as /f.
std::string same_entry_as(std::string_view folder) {
  const std::size_t target = impl::gate_cache_index(impl::path_hash(folder));
  for (int i = 0;; ++i) {
    std::string candidate = "/c" + std::to_string(i);
    if (impl::gate_cache_index(impl::path_hash(candidate)) == target) return candidate;
  }
}

// Runs `body` on a thread of its own: its gate cache starts empty.
template <typename Body>
void on_fresh_thread(Body body) {
  std::thread t(body);
  t.join();
}

TEST(GateCache, ALeafReadOnceAmongManyLeavesTheFolderCached) {
  Lock lock(impl::path_rwa_joined_scheme());
  const std::string leaf = same_entry_as("/f");
  on_fresh_thread([&] {
    (void)lock.read(P("/f/x"));  // /f: a folder, remembered at once
    (void)lock.read(P(leaf));    // opens the leaf's gate
    (void)lock.read(P(leaf));    // its gate open: a candidate, refused once
    const int before = g_asks.of("/f");
    (void)lock.read(P("/f/y"));
    EXPECT_EQ(g_asks.of("/f"), before + 1) << "the folder /f is still in the cache, not " << leaf;
  });
}

TEST(GateCache, ALeafAskedForTwiceInARowIsRemembered) {
  Lock lock(impl::path_rwa_joined_scheme());
  const std::string leaf = same_entry_as("/f");
  on_fresh_thread([&] {
    (void)lock.read(P("/f/x"));
    (void)lock.read(P(leaf));  // opens the leaf's gate
    (void)lock.read(P(leaf));  // refused once
    (void)lock.read(P(leaf));  // asked again: remembered in /f's place
    const int before = g_asks.of(leaf);
    (void)lock.read(P(leaf));
    EXPECT_EQ(g_asks.of(leaf), before + 1) << leaf << " is read fast";
    const int folder_before = g_asks.of("/f");
    (void)lock.read(P("/f/y"));
    EXPECT_EQ(g_asks.of("/f"), folder_before) << "/f gave its entry to the hot leaf";
  });
}

TEST(GateCache, ALeafInAFreeEntryIsRememberedOnceItsGateIsOpen) {
  Lock lock(impl::path_rwa_joined_scheme());
  on_fresh_thread([&] {
    (void)lock.read(P("/hot"));  // opens its gate
    (void)lock.read(P("/hot"));  // the gate open, the entry free: remembered
    const int before = g_asks.of("/hot");
    (void)lock.read(P("/hot"));
    EXPECT_EQ(g_asks.of("/hot"), before + 1);
  });
}

}  // namespace
}  // namespace pathlock
