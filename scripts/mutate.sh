#!/usr/bin/env bash
# Mutation testing of the lock: applies each deliberate bug of
# sim/mutants/lock-mutants.json to a scratch copy of the tree, rebuilds
# `pathlock` there, and records whether `pathlock check-lock` catches it
# (exit 3) within the mutant's time limit, and how long check-lock took (the
# build not counted). The unmutated lock must pass the same commands first.
# Writes reports/generated/mutation/mutation.{md,json,html}; the README quotes
# the table (doc block `mutation`). Exits 3 if any mutant is not caught.
#
#   bash scripts/mutate.sh            # scratch copy in ${MUTATE_DIR:-/tmp/pathlock-mutate}
set -euo pipefail
set -f  # check-lock arguments are split on spaces, never globbed
cd "$(dirname "$0")/.."
source_root=$PWD
scratch=${MUTATE_DIR:-/tmp/pathlock-mutate}
out_dir=reports/generated/mutation
# The scratch copy hits the compiler cache of the source tree's builds.
export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=/ CCACHE_NOHASHDIR=1

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
build() { (cd "$scratch" && cmake --build --preset release --target pathlock) >"$build_log" 2>&1; }
(cd "$scratch" && cmake --preset release) >"$build_log" 2>&1 || {
  log "configuring the scratch copy failed; see $build_log"
  exit 1
}

# --- the mutants ---
count=$(mutant -DMODE=list | head -n 1)
names=() mechanisms=() whats=() files=() args=() limits=()
fields=$scratch/mutant-fields.txt
for ((i = 0; i < count; i++)); do
  mutant -DMODE=describe -DINDEX=$i -DOUT="$fields"
  while IFS='=' read -r key value; do
    case $key in
      name) names[i]=$value ;;
      mechanism) mechanisms[i]=$value ;;
      what) whats[i]=$value ;;
      file) files[i]=$value ;;
      check_lock_args) args[i]=$value ;;
      time_limit_s) limits[i]=$value ;;
    esac
  done <"$fields"
done
log "$count mutant(s)"

# --- the baseline: the unmutated lock passes every command the mutants use ---
log "building the unmutated pathlock"
build || {
  log "the unmutated tree does not build; see $build_log"
  exit 1
}
baselines=()
baseline_seconds=()
for ((i = 0; i < count; i++)); do
  seen=0
  for b in "${baselines[@]+"${baselines[@]}"}"; do [ "$b" = "${args[i]}" ] && seen=1; done
  [ $seen = 1 ] && continue
  log "baseline: pathlock check-lock ${args[i]}"
  start=$(now_us)
  status=0
  "$pathlock" check-lock ${args[i]} >"$scratch/baseline.log" 2>&1 || status=$?
  if [ $status -ne 0 ]; then
    log "the unmutated lock does not pass check-lock ${args[i]} (exit $status); see $scratch/baseline.log"
    exit 1
  fi
  baselines+=("${args[i]}")
  baseline_seconds+=("$(seconds_since "$start")")
  log "baseline passed in ${baseline_seconds[-1]} s"
done

# --- each mutant in turn ---
verdicts=() took=() reported=() replays=()
previous=""
for ((i = 0; i < count; i++)); do
  name=${names[i]}
  # Restore the pristine file (a fresh copy: newer than its objects).
  [ -n "$previous" ] && cp "$source_root/$previous" "$scratch/$previous"
  previous=${files[i]}
  mutant -DMODE=apply -DINDEX=$i -DROOT="$scratch"
  log "[$((i + 1))/$count] $name: building"
  took[i]=""
  replays[i]=""
  if ! build; then
    verdicts[i]="build failure"
    reported[i]=$(grep -m 1 'error' "$build_log" || echo "see $build_log")
    log "[$((i + 1))/$count] $name: build failure"
    continue
  fi
  log "[$((i + 1))/$count] $name: pathlock check-lock ${args[i]} (limit ${limits[i]} s)"
  run_log=$scratch/mutant-$i.log
  start=$(now_us)
  status=0
  timeout "${limits[i]}" "$pathlock" check-lock ${args[i]} >"$run_log" 2>&1 || status=$?
  took[i]=$(seconds_since "$start")
  case $status in
    3) verdicts[i]="caught" ;;
    0) verdicts[i]="missed" ;;
    4) verdicts[i]="inconclusive" ;;
    124) verdicts[i]="timed out" ;;
    *) verdicts[i]="error (exit $status)" ;;
  esac
  # The first failing case: its program, and the property it broke.
  failure=$(grep -m 1 -A 1 '^    program: ' "$run_log" | sed -n 2p | sed 's/^ *//') || true
  case_line=$(grep -m 1 -B 2 '^    program: ' "$run_log" | head -n 1) || true
  read -r _ program _ <<<"$case_line" || true
  if [ -n "$failure" ]; then
    reported[i]="$program: $failure"
  else
    reported[i]=$(grep -m 1 '^verdict: ' "$run_log" || tail -n 1 "$run_log" || true)
  fi
  replays[i]=$(grep -m 1 '^    replay: ' "$run_log" | sed 's/^    replay: //') || true
  log "[$((i + 1))/$count] $name: ${verdicts[i]} in ${took[i]} s: ${reported[i]}"
done
[ -n "$previous" ] && cp "$source_root/$previous" "$scratch/$previous"

# --- the reports ---
mkdir -p "$out_dir"
caught=0
for v in "${verdicts[@]}"; do [ "$v" = caught ] && caught=$((caught + 1)); done
baseline_text=""
for ((b = 0; b < ${#baselines[@]}; b++)); do
  [ -n "$baseline_text" ] && baseline_text+="; "
  baseline_text+="\`pathlock check-lock ${baselines[b]}\` in ${baseline_seconds[b]} s"
done
md_cell() { local s=$1; printf '%s' "${s//|/\\|}"; }
{
  echo "$caught of $count mutants caught, each within its limit of ${limits[0]} s unless its row says otherwise."
  echo "The unmutated lock passes the same command: $baseline_text."
  echo "Seconds are check-lock's wall time on the mutant, the build not counted."
  echo
  echo "| mutant | mechanism | the bug | verdict | seconds | what check-lock reported |"
  echo "|---|---|---|---|---:|---|"
  for ((i = 0; i < count; i++)); do
    echo "| \`${names[i]}\` | ${mechanisms[i]} | $(md_cell "${whats[i]}") | ${verdicts[i]} | ${took[i]} |" \
      "$(md_cell "${reported[i]}") |"
  done
} >"$out_dir/mutation.md"
{
  echo "{"
  echo "  \"schema\": \"pathlock.mutation/1\","
  echo "  \"mutants_file\": \"sim/mutants/lock-mutants.json\","
  echo "  \"caught\": $caught,"
  echo "  \"baselines\": ["
  for ((b = 0; b < ${#baselines[@]}; b++)); do
    sep=","
    [ $b = $((${#baselines[@]} - 1)) ] && sep=""
    echo "    {\"check_lock_args\": $(json_string "${baselines[b]}"), \"verdict\": \"pass\", \"seconds\": ${baseline_seconds[b]}}$sep"
  done
  echo "  ],"
  echo "  \"mutants\": ["
  for ((i = 0; i < count; i++)); do
    sep=","
    [ $i = $((count - 1)) ] && sep=""
    echo "    {\"name\": $(json_string "${names[i]}"), \"mechanism\": $(json_string "${mechanisms[i]}"),"
    echo "     \"what\": $(json_string "${whats[i]}"), \"file\": $(json_string "${files[i]}"),"
    echo "     \"check_lock_args\": $(json_string "${args[i]}"), \"time_limit_s\": ${limits[i]},"
    echo "     \"verdict\": $(json_string "${verdicts[i]}"), \"seconds\": ${took[i]:-null},"
    echo "     \"reported\": $(json_string "${reported[i]}"), \"replay\": $(json_string "${replays[i]}")}$sep"
  done
  echo "  ]"
  echo "}"
} >"$out_dir/mutation.json"
{
  echo "<!DOCTYPE html>"
  echo "<html><head><meta charset=\"utf-8\"><title>pathlock: mutation testing of the lock</title>"
  echo "<style>body{font-family:sans-serif}table{border-collapse:collapse}td,th{border:1px solid #999;padding:4px 8px;text-align:left}"
  echo "td.n{text-align:right}.caught{background:#dfd}.other{background:#fdd}</style></head><body>"
  echo "<h1>Mutation testing of the lock</h1>"
  echo "<p>$caught of $count mutants caught. The unmutated lock passes the same command: $(html_text "${baseline_text//\`/}").</p>"
  echo "<table><tr><th>mutant</th><th>mechanism</th><th>the bug</th><th>verdict</th><th>seconds</th><th>what check-lock reported</th></tr>"
  for ((i = 0; i < count; i++)); do
    class=other
    [ "${verdicts[i]}" = caught ] && class=caught
    echo "<tr class=\"$class\"><td><code>$(html_text "${names[i]}")</code></td><td>$(html_text "${mechanisms[i]}")</td>" \
      "<td>$(html_text "${whats[i]}")</td><td>$(html_text "${verdicts[i]}")</td><td class=\"n\">${took[i]}</td>" \
      "<td>$(html_text "${reported[i]}")</td></tr>"
  done
  echo "</table></body></html>"
} >"$out_dir/mutation.html"
log "wrote $out_dir/mutation.{md,json,html}: $caught of $count caught"
[ "$caught" = "$count" ] || exit 3
