#pragma once
// How far apart the benchmarks' baselines keep lock words that two threads
// write.
#include <cstddef>

namespace pathlock::bench {

// A core's adjacent-line prefetcher pulls 64-byte lines in aligned pairs,
// so two words 64 bytes apart can still travel together. At 64-byte
// alignment a baseline's rate depended on where the heap put it: shifting
// every allocation by a few dozen bytes took the ticket lock from 30 to
// 6.5 M/s and the 64-stripe table from 18 to 9.7 at 2 threads (disjoint),
// a verdict against the peer then flipping between runs of one binary.
inline constexpr std::size_t kApart = 128;

}  // namespace pathlock::bench
