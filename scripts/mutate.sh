#!/usr/bin/env bash
# Mutation testing of the whole project: applies each deliberate bug of
# sim/mutants/mutants.json (the model, plans, orders, joins, grids, the
# queue's grant policy, the threaded lock, the simulator's oracle, and a
# harmless change) to a scratch copy of the tree, rebuilds only what the
# mutant's evidence needs, and runs each of its evidence commands (`pathlock
# check`, `check-lock`, `simulate`, a unit test binary, optionally TSan),
# recording each one's verdict, seconds and first report line; the build is
# timed apart. The unmutated tree must pass every evidence command first.
# A mutant is "caught" when a checker (`check`, `check-lock` or `simulate`;
# not only a unit test) exits 3 within the time limit; a harmless change must
# pass every command.
#
# Writes mutation.{md,json,html} (a full run: into reports/generated/mutation,
# which the README quotes, doc block `mutation`; --sample or --only: into
# $scratch/report unless --out says otherwise). Exits 3 if a mutant is not
# caught that its fields say should be (no `needs`, no `known_gap`), or a
# harmless change is flagged; 2 on a bad flag; 1 if the unmutated tree fails.
#
#   bash scripts/mutate.sh                 # every mutant (scratch copy in ${MUTATE_DIR:-/tmp/pathlock-mutate})
#   bash scripts/mutate.sh --sample        # the file's "sample" mutants (CTest: mutation_sample)
#   bash scripts/mutate.sh --only a,b      # the named mutants
#   bash scripts/mutate.sh --tsan          # also run `tsan` evidence (a ThreadSanitizer build: slow)
#   bash scripts/mutate.sh --out DIR       # write the reports into DIR
set -euo pipefail
set -f  # evidence arguments are split on spaces, never globbed
cd "$(dirname "$0")/.."
source_root=$PWD
scratch=${MUTATE_DIR:-/tmp/pathlock-mutate}
mutants_file=sim/mutants/mutants.json
# The scratch copy hits the compiler cache of the source tree's builds: the
# top CMakeLists.txt keys ccache on paths relative to each tree.
unset CMAKE_CXX_COMPILER_LAUNCHER

usage() { sed -n '/^#   bash/s/^# *//p' "$0" >&2; }
selection=all only="" tsan=off out_dir=""
while [ $# -gt 0 ]; do
  case $1 in
    --sample) selection=sample ;;
    --only)
      [ $# -ge 2 ] || { echo "mutate: --only needs a comma-separated list of mutant names" >&2; exit 2; }
      selection=only only=$2
      shift ;;
    --tsan) tsan=on ;;
    --out)
      [ $# -ge 2 ] || { echo "mutate: --out needs a folder" >&2; exit 2; }
      out_dir=$2
      shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "mutate: unknown option $1" >&2; usage; exit 2 ;;
  esac
  shift
done
if [ -z "$out_dir" ]; then
  if [ $selection = all ]; then out_dir=reports/generated/mutation; else out_dir=$scratch/report; fi
fi

log() { echo "mutate: $*" >&2; }
mutant() { cmake -DSOURCE_DIR="$source_root" "$@" -P scripts/mutant.cmake; }
now_us() { local t=${EPOCHREALTIME/./}; echo $((10#$t)); }
seconds_since() {  # start in microseconds -> seconds with two decimals
  local us=$(($(now_us) - $1))
  printf '%d.%02d' $((us / 1000000)) $((us % 1000000 / 10000))
}
json_string() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\t'/ }
  printf '"%s"' "$s"
}
html_text() {
  local s=$1
  s=${s//&/&amp;}
  s=${s//</&lt;}
  s=${s//>/&gt;}
  printf '%s' "$s"
}
md_cell() { local s=$1; printf '%s' "${s//|/\\|}"; }

# --- the mutants and their evidence ---
# sed reads the whole list: `head -n 1` can exit before cmake's second write
# of a list longer than its 1 KiB chunks, and SIGPIPE (with pipefail) then
# ended this script without a word.
count=$(mutant -DMODE=list | sed -n 1p)
names=() areas=() mechanisms=() whats=() files=() expects=() needs=() gaps=() limits=() evidence=()
fields=$(mktemp)
trap 'rm -f "$fields"' EXIT
for ((i = 0; i < count; i++)); do
  mutant -DMODE=describe -DINDEX=$i -DOUT="$fields"
  evidence[i]=""
  while IFS='=' read -r key value; do
    case $key in
      name) names[i]=$value ;;
      area) areas[i]=$value ;;
      mechanism) mechanisms[i]=$value ;;
      what) whats[i]=$value ;;
      file) files[i]=$value ;;
      expect) expects[i]=$value ;;
      needs) needs[i]=$value ;;
      known_gap) gaps[i]=$value ;;
      time_limit_s) limits[i]=$value ;;
      evidence) evidence[i]+="$value"$'\n' ;;
    esac
  done <"$fields"
done
chosen=()
case $selection in
  all) for ((i = 0; i < count; i++)); do chosen+=("$i"); done ;;
  sample) while read -r i; do chosen+=("$i"); done < <(mutant -DMODE=sample) ;;
  only)
    IFS=',' read -r -a wanted <<<"$only"
    for w in "${wanted[@]}"; do
      found=""
      for ((i = 0; i < count; i++)); do [ "${names[i]}" = "$w" ] && found=$i; done
      [ -n "$found" ] || { log "--only: no mutant is named $w (see $mutants_file)"; exit 2; }
      chosen+=("$found")
    done ;;
esac
log "${#chosen[@]} of $count mutant(s)"

# --- the scratch copy: the tracked (and new, unignored) files of this tree ---
# Only files that differ are copied, so an unchanged file keeps its time and
# the scratch build stays incremental across runs; a copied file is newer
# than its objects, so a mutant left over from an interrupted run is rebuilt.
log "scratch copy in $scratch"
mkdir -p "$scratch"
while IFS= read -r -d '' f; do
  [ -f "$f" ] || continue
  if ! cmp -s "$f" "$scratch/$f"; then
    mkdir -p "$scratch/$(dirname "$f")"
    cp "$f" "$scratch/$f"
  fi
done < <(git ls-files -z --cached --others --exclude-standard)
pathlock=$scratch/build/release/reports/pathlock
build_log=$scratch/mutate-build.log
(cd "$scratch" && cmake --preset release) >"$build_log" 2>&1 || {
  log "configuring the scratch copy failed; see $build_log"
  exit 1
}
if [ $tsan = on ]; then
  (cd "$scratch" && cmake --preset tsan) >>"$build_log" 2>&1 || {
    log "configuring the scratch copy's tsan build failed; see $build_log"
    exit 1
  }
fi

# The build targets a list of evidence commands needs, per preset.
targets_of() {  # evidence lines -> "release: T..." and "tsan: T..." lines
  local release="" tsan_targets="" kind target rest
  while read -r kind target rest; do
    [ -n "$kind" ] || continue
    case $kind in
      check | check-lock | simulate) [[ " $release " == *" pathlock "* ]] || release+=" pathlock" ;;
      unit) [[ " $release " == *" $target "* ]] || release+=" $target" ;;
      tsan) [ $tsan = on ] && { [[ " $tsan_targets " == *" $target "* ]] || tsan_targets+=" $target"; } ;;
    esac
  done <<<"$1"
  echo "release:$release"
  echo "tsan:$tsan_targets"
}
build_for() {  # evidence lines; 0 if every target needed builds
  local line preset targets
  : >"$build_log"
  while IFS= read -r line; do
    preset=${line%%:*}
    targets=${line#*:}
    [ -n "$targets" ] || continue
    # shellcheck disable=SC2086
    (cd "$scratch" && cmake --build --preset "$preset" --target $targets) >>"$build_log" 2>&1 || return 1
  done < <(targets_of "$1")
}

# Runs one evidence command in the scratch copy; sets run_status, run_seconds, run_log.
run_evidence() {  # command limit log
  local kind target filter args
  read -r kind args <<<"$1"
  run_log=$3
  local start
  start=$(now_us)
  run_status=0
  case $kind in
    check | check-lock | simulate)
      # shellcheck disable=SC2086
      (cd "$scratch" && timeout "$2" "$pathlock" "$kind" $args) >"$run_log" 2>&1 || run_status=$? ;;
    unit | tsan)
      read -r target filter <<<"$args"
      local preset=release
      [ "$kind" = tsan ] && preset=tsan
      (cd "$scratch" && timeout "$2" "build/$preset/tests/$target" "--gtest_filter=$filter" --gtest_brief=1) \
        >"$run_log" 2>&1 || run_status=$? ;;
  esac
  run_seconds=$(seconds_since "$start")
}
# What a command reported: a model error, else its first failure line
# (check and simulate mark them "!! "), else check-lock's failing case and
# property, else a failing unit test, else its last line.
first_report() {  # log
  local line failure case_line program
  line=$(grep -m 1 -i 'model error' "$1") || true
  [ -n "$line" ] && { echo "$line"; return; }
  line=$(grep -m 1 '^!! ' "$1" | sed 's/^!! //') || true
  [ -n "$line" ] && { echo "$line"; return; }
  failure=$(grep -m 1 -A 1 '^    program: ' "$1" | sed -n 2p | sed 's/^ *//') || true
  if [ -n "$failure" ]; then
    case_line=$(grep -m 1 -B 2 '^    program: ' "$1" | head -n 1) || true
    read -r _ program _ <<<"$case_line" || true
    echo "$program: $failure"
    return
  fi
  line=$(grep -m 1 '^\[  FAILED  \]' "$1") || true
  [ -n "$line" ] && { echo "$line"; return; }
  line=$(grep -m 1 '^verdict: ' "$1") || true
  [ -n "$line" ] && { echo "$line"; return; }
  tail -n 1 "$1" | cut -c 1-300 || true
}
evidence_verdict() {  # kind status -> caught, passed, timed out, error (exit N)
  case $2 in
    0) echo passed ;;
    124) echo "timed out" ;;
    3) echo caught ;;
    *) if [ "$1" = unit ] || [ "$1" = tsan ]; then echo caught; else echo "error (exit $2)"; fi ;;
  esac
}

# --- the baseline: the unmutated tree passes every command the mutants use ---
all_evidence=""
for i in "${chosen[@]}"; do all_evidence+=${evidence[i]}; done
all_evidence=$(printf '%s' "$all_evidence" | awk 'NF && !seen[$0]++')
log "building the unmutated tree"
start=$(now_us)
build_for "$all_evidence" || {
  log "the unmutated tree does not build; see $build_log"
  exit 1
}
baseline_build_seconds=$(seconds_since "$start")
log "built in $baseline_build_seconds s"
baselines=() baseline_seconds=()
while IFS= read -r command; do
  [ -n "$command" ] || continue
  if [[ $command == tsan* && $tsan = off ]]; then continue; fi
  log "baseline: $command"
  run_evidence "$command" 100000 "$scratch/baseline.log"
  if [ "$run_status" -ne 0 ]; then
    log "the unmutated tree does not pass $command (exit $run_status); see $scratch/baseline.log"
    exit 1
  fi
  baselines+=("$command")
  baseline_seconds+=("$run_seconds")
  log "baseline passed in $run_seconds s"
done <<<"$all_evidence"

# --- each mutant in turn ---
# Per mutant: verdict, build seconds, whether a check output said "model
# error", and per evidence command (tab-separated in ev_rows): kind, command,
# verdict, seconds, report.
verdicts=() builds=() model_errors=() ev_rows=()
previous=""
run_start=$(now_us)
n_chosen=${#chosen[@]}
k=0
for i in "${chosen[@]}"; do
  k=$((k + 1))
  name=${names[i]}
  # Restore the pristine file (a fresh copy: newer than its objects).
  [ -n "$previous" ] && cp "$source_root/$previous" "$scratch/$previous"
  previous=${files[i]}
  mutant -DMODE=apply -DINDEX="$i" -DROOT="$scratch"
  log "[$k/$n_chosen] $name: building"
  start=$(now_us)
  ev_rows[i]=""
  model_errors[i]=no
  if ! build_for "${evidence[i]}"; then
    builds[i]=$(seconds_since "$start")
    verdicts[i]="build failure"
    ev_rows[i]="build"$'\t'"build"$'\t'"error"$'\t'"${builds[i]}"$'\t'"$(grep -m 1 'error' "$build_log" || echo "see $build_log")"$'\n'
    log "[$k/$n_chosen] $name: build failure"
    continue
  fi
  builds[i]=$(seconds_since "$start")
  by_checker=no by_other=no flagged=no
  while IFS= read -r command; do
    [ -n "$command" ] || continue
    kind=${command%% *}
    if [[ $kind = tsan && $tsan = off ]]; then
      ev_rows[i]+="$kind"$'\t'"$command"$'\t'"skipped (pass --tsan)"$'\t'$'\t'$'\n'
      continue
    fi
    run_evidence "$command" "${limits[i]}" "$scratch/mutant-$i.log"
    verdict=$(evidence_verdict "$kind" "$run_status")
    report=$(first_report "$run_log")
    [ "$verdict" = passed ] && report=""
    if [ "$kind" = check ] && grep -q -i 'model error' "$run_log"; then model_errors[i]=yes; fi
    if [ "$verdict" = caught ]; then
      flagged=yes
      case $kind in check | check-lock | simulate) by_checker=yes ;; *) by_other=yes ;; esac
    elif [ "$verdict" != passed ]; then
      flagged=yes
    fi
    ev_rows[i]+="$kind"$'\t'"$command"$'\t'"$verdict"$'\t'"$run_seconds"$'\t'"$report"$'\n'
    log "[$k/$n_chosen] $name: $kind $verdict in $run_seconds s${report:+: $report}"
  done <<<"${evidence[i]}"
  if [ "${expects[i]}" = pass ]; then
    if [ $flagged = no ]; then verdicts[i]=passed; else verdicts[i]=flagged; fi
  elif [ $by_checker = yes ]; then
    verdicts[i]=caught
  elif [ $by_other = yes ]; then
    verdicts[i]="caught by other evidence only"
  else
    verdicts[i]=missed
  fi
  log "[$k/$n_chosen] $name: ${verdicts[i]} (build ${builds[i]} s)"
done
[ -n "$previous" ] && cp "$source_root/$previous" "$scratch/$previous"
total_seconds=$(seconds_since "$run_start")

# --- the summary, computed from the rows (scripts/mutant.cmake computes the same) ---
limit=${limits[0]}
run=0 caught=0 other=0 missed=0 expected=0 harmless=0 harmless_passed=0 model=0 model_yes=0 unexpected=0
for i in "${chosen[@]}"; do
  if [ "${expects[i]}" = pass ]; then
    harmless=$((harmless + 1))
    if [ "${verdicts[i]}" = passed ]; then harmless_passed=$((harmless_passed + 1)); else unexpected=$((unexpected + 1)); fi
    continue
  fi
  run=$((run + 1))
  if [ "${verdicts[i]}" = caught ]; then
    caught=$((caught + 1))
  else
    if [ "${verdicts[i]}" = "caught by other evidence only" ]; then other=$((other + 1)); else missed=$((missed + 1)); fi
    if [ -n "${needs[i]}${gaps[i]}" ]; then expected=$((expected + 1)); else unexpected=$((unexpected + 1)); fi
  fi
  if [ "${areas[i]}" = model ]; then
    model=$((model + 1))
    [ "${model_errors[i]}" = yes ] && model_yes=$((model_yes + 1))
  fi
done
summary="$caught of $run mutants caught by a checker (check, check-lock or simulate) within $limit s; of the other $((other + missed)), $other caught by other evidence only and $expected expected to be missed (a known gap, or a checker this tree lacks); harmless changes passed: $harmless_passed of $harmless; model mutants reported as model errors: $model_yes of $model."

# --- the reports ---
mkdir -p "$out_dir"
baseline_text=""
for ((b = 0; b < ${#baselines[@]}; b++)); do
  [ -n "$baseline_text" ] && baseline_text+="; "
  baseline_text+="\`${baselines[b]}\` in ${baseline_seconds[b]} s"
done
evidence_cell() {  # mutant index -> "kind verdict seconds s" per command
  local cell="" kind command verdict seconds report
  while IFS=$'\t' read -r kind command verdict seconds report; do
    [ -n "$kind" ] || continue
    [ -n "$cell" ] && cell+="; "
    cell+="$kind: $verdict${seconds:+ in $seconds s}"
  done <<<"${ev_rows[$1]}"
  printf '%s' "$cell"
}
reported_cell() {  # mutant index -> the first report of a command that caught it
  local kind command verdict seconds report
  while IFS=$'\t' read -r kind command verdict seconds report; do
    [ -n "$report" ] && { printf '%s: %s' "$kind" "$report"; return; }
  done <<<"${ev_rows[$1]}"
}
bug_cell() {  # mutant index -> the bug, with its expectation
  local s="${whats[$1]}"
  [ -n "${needs[$1]}" ] && s+=" (needs ${needs[$1]})"
  [ -n "${gaps[$1]}" ] && s+=" (known gap: ${gaps[$1]})"
  printf '%s' "$s"
}
{
  echo "$summary"
  echo
  echo "The unmutated tree passes every command first (built in $baseline_build_seconds s): $baseline_text."
  echo "A mutant is caught when a checker (\`check\`, \`check-lock\` or \`simulate\`) exits 3 within $limit s; each evidence command's verdict and wall time follow, the build timed apart. The run took $total_seconds s for ${#chosen[@]} mutants on $(nproc) cores."
  echo
  echo "| mutant | area | the bug | verdict | build s | evidence | what was reported |"
  echo "|---|---|---|---|---:|---|---|"
  for i in "${chosen[@]}"; do
    area=${areas[i]}
    [ -n "${mechanisms[i]}" ] && area+=" (${mechanisms[i]})"
    echo "| \`${names[i]}\` | $area | $(md_cell "$(bug_cell "$i")") | ${verdicts[i]} | ${builds[i]} |" \
      "$(md_cell "$(evidence_cell "$i")") | $(md_cell "$(reported_cell "$i")") |"
  done
} >"$out_dir/mutation.md"
{
  echo "{"
  echo "  \"schema\": \"pathlock.mutation/2\","
  echo "  \"mutants_file\": \"$mutants_file\","
  echo "  \"time_limit_s\": $limit,"
  echo "  \"summary\": $(json_string "$summary"),"
  echo "  \"seconds\": $total_seconds,"
  echo "  \"baseline_build_seconds\": $baseline_build_seconds,"
  echo "  \"baselines\": ["
  for ((b = 0; b < ${#baselines[@]}; b++)); do
    sep=","
    [ $b = $((${#baselines[@]} - 1)) ] && sep=""
    echo "    {\"command\": $(json_string "${baselines[b]}"), \"verdict\": \"passed\", \"seconds\": ${baseline_seconds[b]}}$sep"
  done
  echo "  ],"
  echo "  \"mutants\": ["
  last=${chosen[-1]}
  for i in "${chosen[@]}"; do
    echo "    {\"name\": $(json_string "${names[i]}"), \"area\": $(json_string "${areas[i]}"),"
    echo "     \"mechanism\": $(json_string "${mechanisms[i]}"), \"what\": $(json_string "${whats[i]}"),"
    echo "     \"file\": $(json_string "${files[i]}"), \"expect\": $(json_string "${expects[i]}"),"
    echo "     \"needs\": $(json_string "${needs[i]}"), \"known_gap\": $(json_string "${gaps[i]}"),"
    echo "     \"verdict\": $(json_string "${verdicts[i]}"), \"build_seconds\": ${builds[i]},"
    echo "     \"model_error\": $(json_string "${model_errors[i]}"),"
    echo "     \"evidence\": ["
    first=1
    while IFS=$'\t' read -r kind command verdict seconds report; do
      [ -n "$kind" ] || continue
      [ $first = 1 ] || echo ","
      first=0
      printf '       {"kind": %s, "command": %s, "verdict": %s, "seconds": %s, "reported": %s}' \
        "$(json_string "$kind")" "$(json_string "$command")" "$(json_string "$verdict")" "${seconds:-null}" \
        "$(json_string "$report")"
    done <<<"${ev_rows[i]}"
    echo
    sep=","
    [ "$i" = "$last" ] && sep=""
    echo "     ]}$sep"
  done
  echo "  ]"
  echo "}"
} >"$out_dir/mutation.json"
{
  echo "<!DOCTYPE html>"
  echo "<html><head><meta charset=\"utf-8\"><title>pathlock: mutation testing</title>"
  echo "<style>body{font-family:sans-serif}table{border-collapse:collapse}td,th{border:1px solid #999;padding:4px 8px;text-align:left}"
  echo "td.n{text-align:right}.good{background:#dfd}.other{background:#fdd}</style></head><body>"
  echo "<h1>Mutation testing</h1>"
  echo "<p>$(html_text "$summary")</p>"
  echo "<p>The unmutated tree passes every command first: $(html_text "${baseline_text//\`/}").</p>"
  echo "<table><tr><th>mutant</th><th>area</th><th>the bug</th><th>verdict</th><th>build s</th><th>evidence</th><th>what was reported</th></tr>"
  for i in "${chosen[@]}"; do
    class=other
    case ${verdicts[i]} in caught | passed) class=good ;; esac
    echo "<tr class=\"$class\"><td><code>$(html_text "${names[i]}")</code></td><td>$(html_text "${areas[i]}")</td>" \
      "<td>$(html_text "$(bug_cell "$i")")</td><td>$(html_text "${verdicts[i]}")</td><td class=\"n\">${builds[i]}</td>" \
      "<td>$(html_text "$(evidence_cell "$i")")</td><td>$(html_text "$(reported_cell "$i")")</td></tr>"
  done
  echo "</table></body></html>"
} >"$out_dir/mutation.html"
log "wrote $out_dir/mutation.{md,json,html} in $total_seconds s: $summary"
[ "$unexpected" = 0 ] || exit 3
