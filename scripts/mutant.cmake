# The lock mutants of sim/mutants/lock-mutants.json (schema pathlock.mutants/1):
# deliberate bugs in the lock's concurrency code, each a text replacement in
# one file, that scripts/mutate.sh applies one at a time to a scratch copy.
#
#   cmake -DSOURCE_DIR=<root> -DMODE=list -P scripts/mutant.cmake
#       prints the number of mutants, then "index name" per line
#   cmake -DSOURCE_DIR=<root> -DMODE=describe -DINDEX=i -DOUT=<file> -P scripts/mutant.cmake
#       writes mutant i's fields as key=value lines (name, mechanism, what,
#       file, check_lock_args, time_limit_s) for the shell to read
#   cmake -DSOURCE_DIR=<root> -DMODE=apply -DINDEX=i -DROOT=<copy> -P scripts/mutant.cmake
#       applies mutant i to the copy at ROOT; fails, naming the mutant and
#       the file, unless its `find` text occurs exactly once there
#   cmake -DSOURCE_DIR=<root> -DMODE=check -P scripts/mutant.cmake
#       fails unless every mutant's `find` occurs exactly once in the source
#       tree and reports/generated/mutation/mutation.json names exactly the
#       mutants, in order, each caught, except those whose "known_gap" says
#       why check-lock misses them (CTest: mutation_report_current)
cmake_minimum_required(VERSION 3.20)

if(NOT SOURCE_DIR OR NOT MODE MATCHES "^(list|describe|apply|check)$")
  message(FATAL_ERROR "mutant: pass -DSOURCE_DIR=<repository root> and -DMODE=list, describe, apply or check")
endif()

set(mutants_file "${SOURCE_DIR}/sim/mutants/lock-mutants.json")
set(report_file "${SOURCE_DIR}/reports/generated/mutation/mutation.json")
file(READ "${mutants_file}" mutants_json)
string(JSON schema ERROR_VARIABLE schema_error GET "${mutants_json}" schema)
if(schema_error OR NOT schema STREQUAL "pathlock.mutants/1")
  message(FATAL_ERROR "mutant: ${mutants_file}: expected schema pathlock.mutants/1")
endif()
string(JSON mutant_count LENGTH "${mutants_json}" mutants)
if(mutant_count EQUAL 0)
  message(FATAL_ERROR "mutant: ${mutants_file} lists no mutants")
endif()
math(EXPR last_mutant "${mutant_count} - 1")

# A field of mutant `index`, falling back to the file's default for the
# fields that have one (check_lock_args, time_limit_s).
function(mutant_field out_var index field)
  string(JSON value ERROR_VARIABLE missing GET "${mutants_json}" mutants ${index} ${field})
  if(missing)
    string(JSON value ERROR_VARIABLE missing_default GET "${mutants_json}" ${field})
    if(missing_default)
      message(FATAL_ERROR "mutant: mutant ${index} of ${mutants_file} has no field ${field}")
    endif()
  endif()
  set(${out_var} "${value}" PARENT_SCOPE)
endfunction()

# How often `needle` occurs in `haystack`, and where it first does.
function(count_occurrences out_count out_first haystack needle)
  string(LENGTH "${needle}" needle_length)
  set(count 0)
  set(first -1)
  set(offset 0)
  set(rest "${haystack}")
  while(TRUE)
    string(FIND "${rest}" "${needle}" at)
    if(at LESS 0)
      break()
    endif()
    if(count EQUAL 0)
      math(EXPR first "${offset} + ${at}")
    endif()
    math(EXPR count "${count} + 1")
    math(EXPR skip "${at} + ${needle_length}")
    math(EXPR offset "${offset} + ${skip}")
    string(SUBSTRING "${rest}" ${skip} -1 rest)
  endwhile()
  set(${out_count} ${count} PARENT_SCOPE)
  set(${out_first} ${first} PARENT_SCOPE)
endfunction()

# Fails with a message naming the mutant and the file unless `find` occurs
# exactly once in the file under `root`; otherwise sets out_text to the
# file's text and out_at to where `find` starts.
function(locate_find out_text out_at index root)
  mutant_field(name ${index} name)
  mutant_field(relative ${index} file)
  mutant_field(find ${index} find)
  set(path "${root}/${relative}")
  if(NOT EXISTS "${path}")
    message(FATAL_ERROR "mutant ${name}: ${relative} does not exist under ${root}")
  endif()
  file(READ "${path}" text)
  count_occurrences(count at "${text}" "${find}")
  if(NOT count EQUAL 1)
    message(FATAL_ERROR "mutant ${name}: its find text occurs ${count} times in ${relative} "
                        "(it must occur exactly once; update ${mutants_file})")
  endif()
  set(${out_text} "${text}" PARENT_SCOPE)
  set(${out_at} ${at} PARENT_SCOPE)
endfunction()

function(require_index)
  if(NOT DEFINED INDEX OR NOT INDEX MATCHES "^[0-9]+$" OR INDEX GREATER last_mutant)
    message(FATAL_ERROR "mutant: pass -DINDEX=<0 to ${last_mutant}> (${mutant_count} mutants)")
  endif()
endfunction()

if(MODE STREQUAL "list")
  set(text "${mutant_count}\n")
  foreach(i RANGE ${last_mutant})
    mutant_field(name ${i} name)
    string(APPEND text "${i} ${name}\n")
  endforeach()
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo_append "${text}")
elseif(MODE STREQUAL "describe")
  require_index()
  if(NOT OUT)
    message(FATAL_ERROR "mutant: pass -DOUT=<file> for MODE=describe")
  endif()
  set(text "")
  foreach(field name mechanism what file check_lock_args time_limit_s)
    mutant_field(value ${INDEX} ${field})
    if(value MATCHES "\n")
      message(FATAL_ERROR "mutant: field ${field} of mutant ${INDEX} spans lines; it must be one line")
    endif()
    string(APPEND text "${field}=${value}\n")
  endforeach()
  file(WRITE "${OUT}" "${text}")
elseif(MODE STREQUAL "apply")
  require_index()
  if(NOT ROOT)
    message(FATAL_ERROR "mutant: pass -DROOT=<scratch copy of the tree> for MODE=apply")
  endif()
  locate_find(text at ${INDEX} "${ROOT}")
  mutant_field(relative ${INDEX} file)
  mutant_field(find ${INDEX} find)
  mutant_field(replace ${INDEX} replace)
  string(LENGTH "${find}" find_length)
  math(EXPR after "${at} + ${find_length}")
  string(SUBSTRING "${text}" 0 ${at} head)
  string(SUBSTRING "${text}" ${after} -1 tail)
  file(WRITE "${ROOT}/${relative}" "${head}${replace}${tail}")
else()  # check
  foreach(i RANGE ${last_mutant})
    locate_find(text at ${i} "${SOURCE_DIR}")
  endforeach()
  set(fix "run bash scripts/mutate.sh")
  if(NOT EXISTS "${report_file}")
    message(FATAL_ERROR "mutation report ${report_file} is missing; ${fix}")
  endif()
  file(READ "${report_file}" report_json)
  string(JSON reported_count LENGTH "${report_json}" mutants)
  if(NOT reported_count EQUAL mutant_count)
    message(FATAL_ERROR "mutation report lists ${reported_count} mutants, ${mutants_file} ${mutant_count}; ${fix}")
  endif()
  set(problems "")
  foreach(i RANGE ${last_mutant})
    mutant_field(name ${i} name)
    string(JSON reported_name GET "${report_json}" mutants ${i} name)
    string(JSON verdict GET "${report_json}" mutants ${i} verdict)
    # A mutant check-lock is known to miss says why in "known_gap"; it must
    # stay missed (once caught, the gap is closed: drop the field).
    string(JSON known_gap ERROR_VARIABLE no_known_gap GET "${mutants_json}" mutants ${i} known_gap)
    if(NOT reported_name STREQUAL name)
      string(APPEND problems "  mutant ${i}: the report has ${reported_name}, the mutants file ${name}; ${fix}\n")
    elseif(no_known_gap AND NOT verdict STREQUAL "caught")
      string(APPEND problems "  mutant ${name}: ${verdict}, not caught\n")
    elseif(NOT no_known_gap AND verdict STREQUAL "caught")
      string(APPEND problems "  mutant ${name}: caught, yet the mutants file names a known gap; drop its known_gap\n")
    endif()
  endforeach()
  if(problems)
    message(FATAL_ERROR "mutation report ${report_file}:\n${problems}")
  endif()
endif()
