#pragma once
// Index-parallel loops for `pathlock check`: items 0..count-1 spread over
// worker threads, each item writing only its own slot of a result vector, so
// that merging the slots in index order gives the same result whatever the
// number of threads. Workers take the next index from a shared counter
// (items differ widely in cost; a fixed split would leave threads idle).

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pathlock::sim {

// `jobs` as given, or the hardware's thread count for 0 (at least 1).
inline std::size_t worker_count(std::size_t jobs) {
  if (jobs != 0) return jobs;
  return std::max<std::size_t>(1, std::thread::hardware_concurrency());
}

// Runs work(i) for every i < count on up to `jobs` threads (0: the hardware's
// count), and after each item done(items finished so far), one call at a
// time. If items throw, rethrows the exception of the lowest such index
// after every thread has stopped.
inline void parallel_for(std::size_t count, std::size_t jobs, const std::function<void(std::size_t)>& work,
                         const std::function<void(std::size_t)>& done = {}) {
  const std::size_t threads = std::min(worker_count(jobs), count);
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::size_t finished = 0;
  std::size_t failed_at = count;
  std::exception_ptr error;
  const auto worker = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        work(i);
      } catch (...) {
        const std::lock_guard lock(mutex);
        if (i < failed_at) {
          failed_at = i;
          error = std::current_exception();
        }
        next = count;  // the others stop after their current item
        return;
      }
      const std::lock_guard lock(mutex);
      ++finished;
      if (done) done(finished);
    }
  };
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::jthread> pool;
    pool.reserve(threads - 1);
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
  }  // the jthreads join here
  if (error) std::rethrow_exception(error);
}

}  // namespace pathlock::sim
