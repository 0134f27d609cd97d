# Fails if a shipped file cites what users do not have: the project's private
# design page, the design notes by their internal file numbers, or issue
# numbers. Cite proofs/design.md's sections instead, or describe the thing.
#   cmake -DSOURCE_DIR=<repository root> -P tests/shipped_tree_citations.cmake
# The patterns are written so that this file does not match them itself.

cmake_minimum_required(VERSION 3.20)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "shipped_tree_citations: pass -DSOURCE_DIR=<repository root>")
endif()

set(patterns
  "DESIGN[.]md"                       # the private design page
  "[Ss][Ee][Ee][Dd][ _]?0[0-9][0-9]"  # the notes by number, also in test names and paths
  "[Ii]ssue #?[0-9]"                  # issue numbers, with or without a hash
)

# Files allowed to cite for now (none): a file listed here that no longer
# matches fails the test too, so the list only shrinks.
set(pending)

file(GLOB_RECURSE files LIST_DIRECTORIES false RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/*")
set(found "")
set(still_pending "")
foreach(f IN LISTS files)
  if(f MATCHES "^(build|out|pathlock-report|\\.git)/" OR f MATCHES "^tests/fuzz/corpus/")
    continue()
  endif()
  file(READ "${SOURCE_DIR}/${f}" text)
  foreach(p IN LISTS patterns)
    string(REGEX MATCH "[^\n]*${p}[^\n]*" hit "${text}")
    if(hit)
      if(f IN_LIST pending)
        list(APPEND still_pending "${f}")
      else()
        string(STRIP "${hit}" hit)
        string(APPEND found "  ${f}: ${hit}\n")
      endif()
      break()
    endif()
  endforeach()
endforeach()

set(fixed "")
foreach(f IN LISTS pending)
  if(NOT f IN_LIST still_pending)
    list(APPEND fixed "${f}")
  endif()
endforeach()

if(found)
  message(FATAL_ERROR "shipped files cite what users do not have (cite proofs/design.md or describe it):\n${found}")
endif()
if(fixed)
  list(JOIN fixed "\n  " fixed_text)
  message(FATAL_ERROR "no longer cite anything; remove them from the pending list in this script:\n  ${fixed_text}")
endif()
list(LENGTH still_pending n)
message(STATUS "shipped_tree_citations: clean, except ${n} file(s) still pending their owners' fix")
