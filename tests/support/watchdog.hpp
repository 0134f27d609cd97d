#pragma once
// A watchdog for tests and examples that run threads on a PathLock: a scope
// that must be left within a time limit. If it is not (a deadlock, a lost
// wake-up, a starved waiter), the watchdog prints what it was told to watch
// and ends the process with a failure status, so CTest reports a failure in
// seconds instead of waiting out its timeout:
//
//   PathLock lock(scheme);
//   Watchdog watchdog("writer and readers");   // 30 s (4x under sanitizers)
//   watchdog.watch("lock", lock);              // prints lock.describe_waits()
//   WatchedThread& writer = watchdog.thread("writer");
//   std::thread t([&] { writer.at(ThreadPhase::kAcquiring, request); ... });
//
// The report: a header naming the scope and the limit, each watched
// thread's phase and request (and for how long it has been there), then
// each watched lock's describe_waits(); then the process exits with
// kExitCode (3, the exit-code contract's "fail: deadlock") through
// std::_Exit, which runs no destructors: the hung threads cannot be joined.
// The locks' snapshots are taken on a thread of their own and given
// kSnapshotLimit: a lock whose shard lock is never released cannot keep the
// watchdog from ending the process.
//
// The limit: the constructor's, or default_limit(): 30 s, times
// kSanitizerFactor under a sanitizer, or PATHLOCK_WATCHDOG_SECONDS if set
// (a number of seconds in (0, 86400]; anything else ends the process with
// status 2, naming the variable and the bounds).
//
// Watched objects must outlive the watchdog (declare the watchdog after
// them). WatchedThread::at() is cheap (a few relaxed atomic stores and a
// clock read, on the thread's own record: no lock shared between test
// threads, so it adds no synchronisation that could hide a race from
// ThreadSanitizer); note() copies text under the record's own mutex.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "pathlock/model/request.hpp"

namespace pathlock::testing_support {

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define PATHLOCK_WATCHDOG_UNDER_SANITIZER 1
#endif
#endif
#if defined(PATHLOCK_SANITIZED) || defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PATHLOCK_WATCHDOG_UNDER_SANITIZER 1
#endif

enum class ThreadPhase : std::uint8_t { kStarting, kAcquiring, kHolding, kReleasing, kIdle, kDone };

inline std::string_view to_string(ThreadPhase phase) {
  switch (phase) {
    case ThreadPhase::kStarting: return "starting";
    case ThreadPhase::kAcquiring: return "acquiring";
    case ThreadPhase::kHolding: return "holding";
    case ThreadPhase::kReleasing: return "releasing";
    case ThreadPhase::kIdle: return "between requests";
    case ThreadPhase::kDone: return "done";
  }
  return "?";
}

// What one test thread is doing, for the watchdog's report.
class WatchedThread {
 public:
  explicit WatchedThread(std::string name) : name_(std::move(name)) { touch(); }
  WatchedThread(const WatchedThread&) = delete;
  WatchedThread& operator=(const WatchedThread&) = delete;

  // REQUIRES: `request` outlives the watchdog (the report reads it).
  void at(ThreadPhase phase, const model::Request& request) noexcept {
    request_.store(&request, std::memory_order_release);
    phase_.store(phase, std::memory_order_release);
    touch();
  }
  void at(ThreadPhase phase) noexcept {
    request_.store(nullptr, std::memory_order_release);
    phase_.store(phase, std::memory_order_release);
    touch();
  }
  // Free text shown after the phase ("round 3", "holds W{/a}, then asks for W{/b}").
  void note(std::string text) {
    std::lock_guard<std::mutex> hold(mu_);
    text_ = std::move(text);
  }

  std::string describe() const {
    const ThreadPhase phase = phase_.load(std::memory_order_acquire);
    const model::Request* request = request_.load(std::memory_order_acquire);
    const auto since = std::chrono::steady_clock::duration(since_.load(std::memory_order_relaxed));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch() - since).count();
    std::string out = name_ + ": " + std::string(to_string(phase));
    if (request != nullptr) out += " " + request->to_string();
    char age[48];
    std::snprintf(age, sizeof age, " (for %.1f s)", seconds);
    out += age;
    std::lock_guard<std::mutex> hold(mu_);
    if (!text_.empty()) out += "; " + text_;
    return out;
  }

 private:
  void touch() noexcept {
    since_.store(std::chrono::steady_clock::now().time_since_epoch().count(), std::memory_order_relaxed);
  }
  const std::string name_;
  std::atomic<ThreadPhase> phase_{ThreadPhase::kStarting};
  std::atomic<const model::Request*> request_{nullptr};
  std::atomic<std::chrono::steady_clock::rep> since_{0};
  mutable std::mutex mu_;
  std::string text_;
};

class Watchdog {
 public:
  static constexpr int kExitCode = 3;
  static constexpr int kBadLimitExitCode = 2;
  static constexpr int kSanitizerFactor = 4;
  static constexpr std::chrono::seconds kBaseLimit{30};
  static constexpr std::chrono::seconds kSnapshotLimit{10};
  static constexpr double kMaxLimitSeconds = 86400;
  static constexpr const char* kLimitVariable = "PATHLOCK_WATCHDOG_SECONDS";

  static constexpr bool under_sanitizer() noexcept {
#ifdef PATHLOCK_WATCHDOG_UNDER_SANITIZER
    return true;
#else
    return false;
#endif
  }

  // PATHLOCK_WATCHDOG_SECONDS if set, else kBaseLimit (times
  // kSanitizerFactor under a sanitizer).
  static std::chrono::milliseconds default_limit() {
    if (const char* text = std::getenv(kLimitVariable); text != nullptr) {
      char* end = nullptr;
      const double seconds = std::strtod(text, &end);
      if (end == text || *end != '\0' || !(seconds > 0) || seconds > kMaxLimitSeconds) {
        std::fprintf(stderr, "watchdog: %s='%s' is not a number of seconds in (0, %.0f]\n", kLimitVariable, text,
                     kMaxLimitSeconds);
        std::fflush(stderr);
        std::_Exit(kBadLimitExitCode);
      }
      return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
    }
    const std::chrono::milliseconds base = kBaseLimit;
    return base * (under_sanitizer() ? kSanitizerFactor : 1);
  }

  // The default limit (default_limit()).
  explicit Watchdog(std::string scope) : Watchdog(std::move(scope), default_limit(), std::string(kLimitVariable)) {}
  // An explicit limit; `set_by` names where it comes from in the report
  // ("--watchdog-seconds").
  Watchdog(std::string scope, std::chrono::milliseconds limit, std::string set_by = "the test")
      : scope_(std::move(scope)), limit_(limit), set_by_(std::move(set_by)), start_(std::chrono::steady_clock::now()) {
    thread_ = std::thread([this] { run(); });
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> hold(mu_);
      left_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  std::chrono::milliseconds limit() const noexcept { return limit_; }

  // Any object with describe_waits() (a BasicPathLock). REQUIRES: outlives the watchdog.
  template <typename Lock>
  void watch(std::string name, const Lock& lock) {
    std::lock_guard<std::mutex> hold(mu_);
    locks_.push_back({std::move(name), [&lock] { return lock.describe_waits(); }});
  }
  // A record for one test thread; the reference stays valid for the watchdog's life.
  WatchedThread& thread(std::string name) {
    std::lock_guard<std::mutex> hold(mu_);
    return threads_.emplace_back(std::move(name));
  }

 private:
  struct WatchedLock {
    std::string name;
    std::function<std::string()> describe;
  };

  void run() {
    std::unique_lock<std::mutex> hold(mu_);
    if (cv_.wait_until(hold, start_ + limit_, [this] { return left_; })) return;
    hold.unlock();  // watch() and thread() are done by now; a late caller is not reported
    report_and_exit();
  }

  [[noreturn]] void report_and_exit() {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string report = "\nWATCHDOG: \"" + scope_ + "\" still running after " + format_seconds(seconds) +
                         " (limit " + format_seconds(std::chrono::duration<double>(limit_).count()) + ", set by " +
                         set_by_ + (under_sanitizer() ? ", under a sanitizer" : "") +
                         "): a deadlock, a lost wake-up or a starved waiter.\n";
    report += "WATCHDOG: threads (" + std::to_string(threads_.size()) + "):\n";
    for (const auto& t : threads_) report += "  " + t.describe() + "\n";
    write(report);
    // Each lock's snapshot takes its shard locks: on a thread of its own, so
    // that a shard lock held forever cannot keep the process alive.
    auto finished = std::make_shared<std::atomic<bool>>(false);
    std::thread([this, finished] {
      for (const auto& l : locks_) write("WATCHDOG: lock \"" + l.name + "\":\n" + l.describe());
      finished->store(true);
    }).detach();
    const auto give_up = std::chrono::steady_clock::now() + kSnapshotLimit;
    while (!finished->load() && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!finished->load()) {
      write("WATCHDOG: a lock's snapshot did not come within " +
            format_seconds(std::chrono::duration<double>(kSnapshotLimit).count()) +
            " (a shard lock held forever?)\n");
    }
    write("WATCHDOG: failing with exit status " + std::to_string(kExitCode) + "\n");
    std::_Exit(kExitCode);
  }

  static std::string format_seconds(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f s", seconds);
    return text;
  }
  static void write(const std::string& text) {
    std::fputs(text.c_str(), stderr);
    std::fflush(stderr);
  }

  const std::string scope_;
  const std::chrono::milliseconds limit_;
  const std::string set_by_;
  const std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool left_ = false;
  std::vector<WatchedLock> locks_;
  std::deque<WatchedThread> threads_;
  std::thread thread_;
};

}  // namespace pathlock::testing_support
