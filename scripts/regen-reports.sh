#!/usr/bin/env bash
# Regenerates everything under reports/generated/ from the code: the static
# tables, the default simulation campaign, and `pathlock check` on every
# built-in scheme and every shipped scheme file; and proofs/spin-crosscheck.md,
# SPIN against the explorer on every shipped scenario (the same run CTest's
# spin_crosscheck makes); and the counterexample table of proofs/flaws.md.
# Tests check that the committed reports are current.
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
# Exit 3 is expected: the design notes' scheme 4 as written and the broken
# variants fail.
status=0
$pathlock check --scheme all "${files[@]}" --out reports/generated/check --color never >/dev/null || status=$?
if [ "$status" -ne 3 ]; then
  echo "regen-reports: pathlock check exited $status; expected 3 (some shipped schemes are broken on purpose)" >&2
  exit 1
fi
scenarios=()
for f in sim/scenarios/*.json; do scenarios+=(--scenario "$f"); done
schemes=()
for f in sim/schemes/*.json; do schemes+=(--scheme-file "$f"); done
$pathlock crosscheck --scheme all "${schemes[@]}" "${scenarios[@]}" --out proofs/spin-crosscheck.md >/dev/null
# proofs/flaws.md quotes the counterexamples of the check report.
cmake -DSOURCE_DIR="$PWD" -DMODE=write -DBLOCKS=counterexamples -P scripts/doc-blocks.cmake
echo "regen-reports: wrote reports/generated/{tables.*,simulate/,check/}, proofs/spin-crosscheck.md and proofs/flaws.md's counterexamples"
