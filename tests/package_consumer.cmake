# CTest package_consumer: installs this build into a scratch prefix, then
# builds tests/consumer/ against it twice (find_package, and pkg-config with
# the compiler alone) and runs the programs; the find_package build checks that
# the core target names no JSON, formatting or test library, and also builds
# against the io component.
#   cmake -DBUILD_DIR=<build> -DSOURCE_DIR=<root> -DSCRATCH=<dir> -DCXX=<compiler> -P tests/package_consumer.cmake
foreach(v BUILD_DIR SOURCE_DIR SCRATCH CXX)
  if(NOT ${v})
    message(FATAL_ERROR "package_consumer: pass -D${v}=...")
  endif()
endforeach()
file(REMOVE_RECURSE ${SCRATCH})
set(prefix ${SCRATCH}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "package_consumer: '${ARGN}' failed (${rc}):\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f include/pathlock/pathlock.hpp include/pathlock/path_lock.hpp include/pathlock/version.hpp
          include/pathlock/io/scheme_file.hpp include/pathlock/testing/check.hpp
          include/pathlock/etcd/etcd_path_lock.hpp include/pathlock/etcd/fencing.hpp
          lib/cmake/pathlock/pathlockConfig.cmake
          lib/pkgconfig/pathlock.pc lib/pkgconfig/pathlock-io.pc bin/pathlock)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "package_consumer: cmake --install did not install ${f}")
  endif()
endforeach()

# 1. CMake: find_package(pathlock CONFIG).
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/consumer -B ${SCRATCH}/build -G Ninja
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${SCRATCH}/build)
run(${SCRATCH}/build/consumer)
message(STATUS "find_package consumer: ${last_output}")
run(${SCRATCH}/build/consumer_io)
message(STATUS "find_package consumer of pathlock::io: ${last_output}")
run(${SCRATCH}/build/consumer_etcd)
message(STATUS "find_package consumer of pathlock::etcd: ${last_output}")
# The README's pathlock::testing example: it finds the bug in the user's
# lock (that test fails, with the report) and passes PathLock.
execute_process(COMMAND ${SCRATCH}/build/consumer_testing RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
foreach(expected "[  FAILED  ] FolderLock.KeepsConflictingFolderOperationsApart" "safety violation: conflicting requests held at once"
                 "seed 2024" "replay: pathlock::testing::check_scenario" "[       OK ] FolderLock.PathLockPassesTheSameCheck"
                 "[       OK ] FolderLock.AWriteConflictsWithEveryRequestBelowIt")
  string(FIND "${out}" "${expected}" at)
  if(rc EQUAL 0 OR at EQUAL -1)
    message(FATAL_ERROR "package_consumer: the pathlock::testing example should fail its FolderLock test with a report "
                        "and pass the others; missing '${expected}' (exit ${rc}):\n${out}\n${err}")
  endif()
endforeach()
message(STATUS "find_package consumer of pathlock::testing: found the FolderLock bug, PathLock passed")

# 2. pkg-config, with the compiler alone.
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
run(pkg-config --cflags --libs pathlock)
string(STRIP "${last_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${CXX} -O1 ${SOURCE_DIR}/tests/consumer/main.cpp -o ${SCRATCH}/consumer_pc ${flags})
run(${SCRATCH}/consumer_pc)
message(STATUS "pkg-config consumer: ${last_output}")
# The core's flags name no other library; pathlock-io's bring JSON and fmt.
if(flags MATCHES "fmt|nlohmann")
  message(FATAL_ERROR "package_consumer: pkg-config pathlock names another library: ${flags}")
endif()
run(pkg-config --cflags --libs pathlock-io)
string(STRIP "${last_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${CXX} -O1 ${SOURCE_DIR}/tests/consumer/io_main.cpp -o ${SCRATCH}/consumer_io_pc ${flags})
run(${SCRATCH}/consumer_io_pc)
message(STATUS "pkg-config consumer of pathlock-io: ${last_output}")

# 3. The installed program says the same version as the header.
run(${prefix}/bin/pathlock --version)
