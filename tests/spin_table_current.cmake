# The committed SPIN table (proofs/spin-crosscheck.md) against a fresh run:
# CTest's spin_crosscheck runs SPIN and the explorer on every shipped
# scenario and scheme and writes FRESH; every row of the committed table must
# give the same verdicts (explorer, SPIN, agreement) and the same state and
# transition counts as FRESH. Only the times may differ.
#   cmake -DCOMMITTED=proofs/spin-crosscheck.md -DFRESH=<build>/tests/spin-crosscheck.md -P tests/spin_table_current.cmake
cmake_minimum_required(VERSION 3.20)

foreach(var COMMITTED FRESH)
  if(NOT ${var} OR NOT EXISTS "${${var}}")
    message(FATAL_ERROR "spin_table_current: -D${var}=<file> is missing or does not exist: '${${var}}'")
  endif()
endforeach()

# The rows of a table as "scheme | scenario | explorer | SPIN | agree |
# explorer states | SPIN states | SPIN transitions", sorted: the columns
# before the times.
set(kCompared 8)
function(rows_of file out_var)
  file(STRINGS "${file}" lines ENCODING UTF-8 REGEX "^\\| \\*\\*")
  set(rows "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^\\| " "" line "${line}")
    string(REGEX REPLACE " \\|$" "" line "${line}")
    string(REPLACE " | " ";" cells "${line}")
    list(LENGTH cells n)
    if(n LESS ${kCompared})
      message(FATAL_ERROR "spin_table_current: ${file}: a row with ${n} cells, expected at least ${kCompared}: ${line}")
    endif()
    list(SUBLIST cells 0 ${kCompared} kept)
    list(JOIN kept " | " row)
    list(APPEND rows "${row}")
  endforeach()
  list(SORT rows)
  set(${out_var} "${rows}" PARENT_SCOPE)
endfunction()

rows_of("${COMMITTED}" committed)
rows_of("${FRESH}" fresh)
list(LENGTH committed n_committed)
list(LENGTH fresh n_fresh)
if(n_fresh EQUAL 0)
  message(FATAL_ERROR "spin_table_current: the fresh run ${FRESH} has no rows")
endif()

set(report "")
foreach(row IN LISTS committed)
  if(NOT row IN_LIST fresh)
    string(APPEND report "  committed, not in the fresh run: ${row}\n")
  endif()
endforeach()
foreach(row IN LISTS fresh)
  if(NOT row IN_LIST committed)
    string(APPEND report "  fresh run, not committed:       ${row}\n")
  endif()
endforeach()
if(report OR NOT n_committed EQUAL n_fresh)
  message(FATAL_ERROR "proofs/spin-crosscheck.md is not what SPIN and the explorer say now "
                      "(${n_committed} committed rows, ${n_fresh} fresh); regenerate with: "
                      "bash scripts/regen-reports.sh\n${report}")
endif()
message(STATUS "spin_table_current: all ${n_committed} rows match the fresh run")
