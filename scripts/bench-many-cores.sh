#!/usr/bin/env bash
# The scaling benchmark on a many-core machine (16 cores or more), the
# figures the README's many-core block quotes: every workload at 1, 2, 4,
# ... threads up to the machine's hardware threads, writing
#   reports/bench/scaling-many-cores.md    the computed summary
#   reports/bench/scaling-many-cores.json  Google Benchmark's raw output
# then replacing that block of README.md. Shorter repetitions than
# scripts/bench.sh's two-core run (0.1 s each), so the whole run stays
# near four minutes on 16 cores. Extra arguments go to scaling_bench.
#
# With a prebuilt binary (a machine without the build's dependencies):
#   SCALING_BENCH=path/to/scaling_bench OUT_DIR=dir bash scripts/bench-many-cores.sh
# writes the two files into dir and leaves the README alone.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${SCALING_BENCH:-}"
out="${OUT_DIR:-reports/bench}"
if [[ -z "$bin" ]]; then
  bash scripts/install-deps.sh
  cmake --preset release >/dev/null
  cmake --build --preset release --target scaling_bench
  bin=build/release/bench/scaling_bench
fi
mkdir -p "$out"
# Five repetitions, interleaved at random through the run (as
# scripts/bench.sh's): the summary judges no target on fewer.
"$bin" --seed=1 --benchmark_repetitions=5 --benchmark_min_time=0.1 \
  --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/scaling-many-cores.json" --benchmark_out_format=json \
  --summary="$out/scaling-many-cores.md" "$@"
if [[ -z "${OUT_DIR:-}" ]]; then
  cmake -DSOURCE_DIR="$PWD" -DMODE=write -DBLOCKS=scaling_bench_many_cores -P scripts/doc-blocks.cmake
  echo "bench-many-cores: wrote reports/bench/scaling-many-cores.{md,json} and quoted the summary in README.md"
fi
