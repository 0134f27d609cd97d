#!/usr/bin/env bash
# Quick start 2: install what is missing, build, and run every test:
#   release (g++):  unit and property tests, CLI tests, benchmark smoke runs,
#                   the Python package's pytest suite (installed for python3);
#   asan (clang):   the same under AddressSanitizer + UBSan, plus the fuzzers;
#   tsan (clang):   the concurrency tests (label "concurrency") and the etcd
#                   lock's (label "etcd") under ThreadSanitizer;
#   gcc-asan (g++): the async and coroutine tests under ASan + UBSan, as
#                   Debian's compiler builds them (GCC 12.2 miscompiles a
#                   co_await form that clang 14 builds right).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

for preset in release asan tsan gcc-asan; do
  echo "== $preset: configure and build"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
done
bash scripts/install-python.sh  # `import pathlock` works afterwards (release build)
for preset in release asan; do
  echo "== $preset: test"
  ctest --preset "$preset" -j2 --timeout 600
done
echo "== tsan: concurrency and etcd tests"
ctest --preset tsan -j2 --timeout 600 -L 'concurrency|etcd'
echo "== gcc-asan: async and coroutine tests"
ctest --preset gcc-asan -j2 --timeout 600
