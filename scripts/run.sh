#!/usr/bin/env bash
# Quick start 1: install what is missing, build, and run the main job on the
# built-in defaults. Extra arguments go to `pathlock` (default: `tables`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target pathlock
if [ $# -eq 0 ]; then set -- tables --out out/tables; fi
exec build/release/reports/pathlock "$@"
