#!/usr/bin/env bash
# Runs the PathLock benchmark against its baselines (same run) and writes
#   reports/bench/path_lock.md    the summary the README quotes
#   reports/bench/path_lock.json  Google Benchmark's raw JSON
# Extra arguments go to the benchmark (e.g. --benchmark_filter=uncontended).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target path_lock_bench
mkdir -p reports/bench
build/release/bench/path_lock_bench --benchmark_repetitions=3 --benchmark_min_time=0.5 \
  --benchmark_report_aggregates_only=true \
  --benchmark_out=reports/bench/path_lock.json --benchmark_out_format=json \
  --summary=reports/bench/path_lock.md "$@"

# Quote the summary in the README, between its markers.
awk -v summary=reports/bench/path_lock.md '
  /<!-- begin path_lock_bench -->/ { print; while ((getline line < summary) > 0) print line; skip = 1; next }
  /<!-- end path_lock_bench -->/ { skip = 0 }
  !skip { print }
' README.md > README.md.new && mv README.md.new README.md
echo "bench: wrote reports/bench/path_lock.{md,json} and quoted the summary in README.md"
