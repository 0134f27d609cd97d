# The generated blocks of the README and proofs/: text between
#   <!-- begin NAME -->  and  <!-- end NAME -->
# is never typed by hand. Each block comes from one generated file:
#   README.md        path_lock_bench  reports/bench/path_lock.md  (scripts/bench.sh)
#   README.md        explore_bench    reports/bench/explore.md    (scripts/bench.sh)
#   README.md        sim_bench        reports/bench/sim.md        (scripts/bench.sh)
#   README.md        plan_bench       reports/bench/plan.md       (scripts/bench.sh)
#   README.md        scaling_bench_many_cores reports/bench/scaling-many-cores.md
#                                     (scripts/bench-many-cores.sh, on 16+ cores)
#   README.md        python_bench     reports/bench/python.md     (scripts/bench.sh)
#   README.md        python_testing_bench reports/bench/python_testing.md (scripts/bench.sh)
#   README.md        etcd_bench       reports/bench/etcd.md       (scripts/bench.sh)
#   README.md        mutation         reports/generated/mutation/mutation.md
#                                     (scripts/mutate.sh)
#   README.md        blocking_example impl/examples/blocking_quickstart.cpp and
#   README.md        async_example    impl/examples/async_quickstart.cpp, each in
#                                     a ```cpp fence (CTests build and run them)
#   README.md        testing_cpp_example tests/consumer/testing_example.cpp (package_consumer runs it)
#   proofs/flaws.md  counterexamples  rendered here from reports/generated/check/check.json
#                                     (scripts/regen-reports.sh)
#
#   cmake -DSOURCE_DIR=<root> -DMODE=write [-DBLOCKS=a;b] -P scripts/doc-blocks.cmake
#       replaces the blocks (all, or those named) with their sources
#   cmake -DSOURCE_DIR=<root> -DMODE=check -P scripts/doc-blocks.cmake
#       fails, naming the block and the command that fixes it, unless every
#       block equals its source (CTest: doc_blocks_current)
cmake_minimum_required(VERSION 3.20)

if(NOT SOURCE_DIR OR NOT MODE MATCHES "^(write|check)$")
  message(FATAL_ERROR "doc-blocks: pass -DSOURCE_DIR=<repository root> and -DMODE=write or -DMODE=check")
endif()

# name;document;source (a file, or "check.json" for the rendered table);
# how to regenerate; optionally a language: the source is code, quoted whole
# in a fenced block
set(block_table
  "path_lock_bench|README.md|reports/bench/path_lock.md|bash scripts/bench.sh"
  "explore_bench|README.md|reports/bench/explore.md|bash scripts/bench.sh"
  "sim_bench|README.md|reports/bench/sim.md|bash scripts/bench.sh"
  "plan_bench|README.md|reports/bench/plan.md|bash scripts/bench.sh"
  "scaling_bench|README.md|reports/bench/scaling.md|bash scripts/bench.sh"
  "scaling_bench_many_cores|README.md|reports/bench/scaling-many-cores.md|bash scripts/bench-many-cores.sh (on a machine of 16 cores or more)"
  "python_bench|README.md|reports/bench/python.md|bash scripts/bench.sh"
  "python_testing_bench|README.md|reports/bench/python_testing.md|bash scripts/bench.sh"
  "etcd_bench|README.md|reports/bench/etcd.md|bash scripts/bench.sh"
  "counterexamples|proofs/flaws.md|check.json|bash scripts/regen-reports.sh"
  "mutation|README.md|reports/generated/mutation/mutation.md|bash scripts/mutate.sh"
  "blocking_example|README.md|impl/examples/blocking_quickstart.cpp|cmake -DSOURCE_DIR=. -DMODE=write -DBLOCKS=blocking_example -P scripts/doc-blocks.cmake|cpp"
  "async_example|README.md|impl/examples/async_quickstart.cpp|cmake -DSOURCE_DIR=. -DMODE=write -DBLOCKS=async_example -P scripts/doc-blocks.cmake|cpp"
  "testing_cpp_example|README.md|tests/consumer/testing_example.cpp|cmake -DSOURCE_DIR=. -DMODE=write -DBLOCKS=testing_cpp_example -P scripts/doc-blocks.cmake|cpp"
)

# The minimal counterexample of every scheme `pathlock check` fails, from the
# committed check report: what proofs/flaws.md quotes.
function(render_counterexamples out_var)
  set(json_file "${SOURCE_DIR}/reports/generated/check/check.json")
  if(NOT EXISTS "${json_file}")
    message(FATAL_ERROR "doc-blocks: ${json_file} is missing; run bash scripts/regen-reports.sh")
  endif()
  file(READ "${json_file}" json)
  string(JSON count LENGTH "${json}" schemes)
  set(text "\n| scheme | failure | found by | minimal scenario | steps | preemptions | replay |\n")
  string(APPEND text "|---|---|---|---|---:|---:|---|\n")
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON verdict GET "${json}" schemes ${i} verdict)
    if(NOT verdict STREQUAL "fail")
      continue()
    endif()
    string(JSON name GET "${json}" schemes ${i} scheme name)
    string(JSON kind GET "${json}" schemes ${i} counterexample kind)
    string(JSON found_by GET "${json}" schemes ${i} counterexample found_by)
    string(JSON preemptions GET "${json}" schemes ${i} counterexample preemptions)
    string(JSON steps LENGTH "${json}" schemes ${i} counterexample schedule)
    set(schedule "")
    if(steps GREATER 0)
      math(EXPR last_step "${steps} - 1")
      foreach(k RANGE ${last_step})
        string(JSON step GET "${json}" schemes ${i} counterexample schedule ${k})
        list(APPEND schedule "${step}")
      endforeach()
    endif()
    list(JOIN schedule "," schedule)
    string(JSON tasks LENGTH "${json}" schemes ${i} counterexample scenario tasks)
    set(scenario "")
    math(EXPR last_task "${tasks} - 1")
    foreach(t RANGE ${last_task})
      string(JSON requests LENGTH "${json}" schemes ${i} counterexample scenario tasks ${t})
      set(task "")
      math(EXPR last_request "${requests} - 1")
      foreach(r RANGE ${last_request})
        string(JSON request GET "${json}" schemes ${i} counterexample scenario tasks ${t} ${r})
        list(APPEND task "`${request}`")
      endforeach()
      list(JOIN task ", " task)
      list(APPEND scenario "T${t}: ${task}")
    endforeach()
    list(JOIN scenario "; " scenario)
    string(APPEND text "| `${name}` | ${kind} | ${found_by} | ${scenario} | ${steps} | ${preemptions} | "
                       "`--schedule ${schedule}` |\n")
  endforeach()
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

set(stale "")
foreach(row IN LISTS block_table)
  string(REPLACE "|" ";" fields "${row}")
  list(GET fields 0 name)
  list(GET fields 1 document)
  list(GET fields 2 source)
  list(GET fields 3 fix)
  list(LENGTH fields field_count)
  set(language "")
  if(field_count GREATER 4)
    list(GET fields 4 language)
  endif()
  if(BLOCKS AND NOT name IN_LIST BLOCKS)
    continue()
  endif()
  if(source STREQUAL "check.json")
    render_counterexamples(wanted)
  else()
    if(NOT EXISTS "${SOURCE_DIR}/${source}")
      message(FATAL_ERROR "doc-blocks: ${source} is missing; run ${fix}")
    endif()
    file(READ "${SOURCE_DIR}/${source}" wanted)
    if(language)
      set(wanted "```${language}\n${wanted}```\n")
    endif()
  endif()
  file(READ "${SOURCE_DIR}/${document}" text)
  set(begin_marker "<!-- begin ${name} -->\n")
  set(end_marker "<!-- end ${name} -->")
  string(FIND "${text}" "${begin_marker}" at_begin)
  string(FIND "${text}" "${end_marker}" at_end)
  if(at_begin LESS 0 OR at_end LESS at_begin)
    message(FATAL_ERROR "doc-blocks: ${document} has no block ${begin_marker}...${end_marker}")
  endif()
  string(LENGTH "${begin_marker}" begin_length)
  math(EXPR content_start "${at_begin} + ${begin_length}")
  math(EXPR content_length "${at_end} - ${content_start}")
  string(SUBSTRING "${text}" ${content_start} ${content_length} current)
  if(current STREQUAL wanted)
    continue()
  endif()
  if(MODE STREQUAL "check")
    string(APPEND stale "  ${document}, block ${name}: differs from ${source}; run ${fix}\n")
  else()
    string(SUBSTRING "${text}" 0 ${content_start} head)
    string(SUBSTRING "${text}" ${at_end} -1 tail)
    file(WRITE "${SOURCE_DIR}/${document}" "${head}${wanted}${tail}")
    message(STATUS "doc-blocks: wrote ${document}, block ${name}")
  endif()
endforeach()

if(stale)
  message(FATAL_ERROR "generated blocks are not what their sources give:\n${stale}")
endif()
