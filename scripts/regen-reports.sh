#!/usr/bin/env bash
# Regenerates everything under reports/generated/ from the code: the static
# tables, the default simulation campaign, and `pathlock check` on every
# built-in scheme and every shipped scheme file. Tests check that the
# committed files are current.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target pathlock
pathlock=build/release/reports/pathlock
$pathlock tables --out reports/generated --color never >/dev/null
$pathlock simulate --out reports/generated/simulate --color never >/dev/null
rm -rf reports/generated/check
files=()
for f in request-order depth-only per-role deepest-first; do files+=(--scheme-file "sim/schemes/$f.json"); done
# Exit 3 is expected: seed 000's scheme 4 and the broken variants fail.
status=0
$pathlock check --scheme all "${files[@]}" --out reports/generated/check --color never >/dev/null || status=$?
if [ "$status" -ne 3 ]; then
  echo "regen-reports: pathlock check exited $status; expected 3 (some shipped schemes are broken on purpose)" >&2
  exit 1
fi
echo "regen-reports: wrote reports/generated/{tables.*,simulate/,check/}"
