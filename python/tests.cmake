# The pytest suite, run by CTest against the package in the build tree.
add_test(NAME python_tests
  COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${CMAKE_CURRENT_BINARY_DIR} PYTHONDONTWRITEBYTECODE=1
          ${Python_EXECUTABLE} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/tests)
set_tests_properties(python_tests PROPERTIES LABELS "python" TIMEOUT 300)

# The asyncio benchmark, briefly: it writes a consistent summary (the
# target is judged by scripts/bench.sh's full run, not here).
add_test(NAME python_bench_smoke
  COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${CMAKE_CURRENT_BINARY_DIR} PYTHONDONTWRITEBYTECODE=1
          ${Python_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/bench/smoke.py ${CMAKE_CURRENT_BINARY_DIR}/bench-smoke)
set_tests_properties(python_bench_smoke PROPERTIES LABELS "python;bench-smoke" TIMEOUT 120)
