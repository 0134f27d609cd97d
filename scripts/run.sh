#!/usr/bin/env bash
# Quick start 1: install what is missing, build, and run the main job (the
# simulation campaign) on the built-in defaults. Extra arguments go to
# `pathlock` instead, e.g. `bash scripts/run.sh tables`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target pathlock
bash scripts/install-python.sh >/dev/null  # `import pathlock` works afterwards
exec build/release/reports/pathlock "$@"
