#!/usr/bin/env bash
# Runs the benchmarks whose summaries the README quotes, each against its
# baseline in the same run, and writes
#   reports/bench/path_lock.md, .json  PathLock against std::mutex and others
#   reports/bench/explore.md, .json    the model checker, reduced against none
#   reports/bench/sim.md, .json        the simulator, against the oracle policy
#   reports/bench/plan.md, .json       planning, against parsing the key
#   reports/bench/scaling.md, .json    PathLock at 1..N threads against its peers
#   reports/bench/python.md, .json     Python async with against the notes' Python design
#   reports/bench/python_testing.md, .json  pathlock.testing: schedules replayed and examples per second
#   reports/bench/etcd.md, .json       EtcdPathLock against etcd's own lock, 1..64 client threads
# (the .md is the computed summary, the .json Google Benchmark's raw output),
# then replaces each summary's block in README.md. Extra arguments go to
# path_lock_bench (e.g. --benchmark_filter=uncontended).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target path_lock_bench explore_bench sim_bench plan_bench scaling_bench etcd_bench pathlock_python
mkdir -p reports/bench
build/release/bench/path_lock_bench --benchmark_repetitions=3 --benchmark_min_time=0.5 \
  --benchmark_report_aggregates_only=true \
  --benchmark_out=reports/bench/path_lock.json --benchmark_out_format=json \
  --summary=reports/bench/path_lock.md "$@"


build/release/bench/explore_bench --benchmark_repetitions=3 --benchmark_min_time=0.2 \
  --benchmark_report_aggregates_only=true \
  --benchmark_out=reports/bench/explore.json --benchmark_out_format=json \
  --summary=reports/bench/explore.md

build/release/bench/sim_bench --benchmark_repetitions=3 --benchmark_min_time=0.2 \
  --benchmark_report_aggregates_only=true \
  --benchmark_out=reports/bench/sim.json --benchmark_out_format=json \
  --summary=reports/bench/sim.md

build/release/bench/plan_bench --benchmark_repetitions=3 --benchmark_min_time=0.2 \
  --benchmark_report_aggregates_only=true \
  --benchmark_out=reports/bench/plan.json --benchmark_out_format=json \
  --summary=reports/bench/plan.md

# Repetitions interleaved at random through the run, so that a phase of the
# machine (a virtual machine's neighbours) shows in each figure's spread,
# which the summary judges every target against, rather than in one
# workload's figures alone.
build/release/bench/scaling_bench --seed=1 --benchmark_repetitions=5 --benchmark_min_time=0.2 \
  --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true \
  --benchmark_out=reports/bench/scaling.json --benchmark_out_format=json \
  --summary=reports/bench/scaling.md

build/release/bench/etcd_bench --benchmark_repetitions=3 --benchmark_min_time=0.2 \
  --benchmark_report_aggregates_only=true \
  --benchmark_out=reports/bench/etcd.json --benchmark_out_format=json \
  --summary=reports/bench/etcd.md

PYTHONPATH=build/release/python /usr/bin/python3 python/bench/async_bench.py \
  --md reports/bench/python.md --json reports/bench/python.json
PYTHONPATH=build/release/python /usr/bin/python3 python/bench/testing_bench.py \
  --md reports/bench/python_testing.md --json reports/bench/python_testing.json

# Quote each summary in the README, between its markers (a test checks them).
cmake -DSOURCE_DIR="$PWD" -DMODE=write -DBLOCKS="path_lock_bench;explore_bench;sim_bench;plan_bench;scaling_bench;python_bench;python_testing_bench;etcd_bench" \
  -P scripts/doc-blocks.cmake
echo "bench: wrote reports/bench/{path_lock,explore,sim,plan,scaling,python,python_testing,etcd}.{md,json} and quoted the summaries in README.md"
