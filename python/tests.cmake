# The pytest suite, run by CTest against the package in the build tree.
add_test(NAME python_tests
  COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${CMAKE_CURRENT_BINARY_DIR} PYTHONDONTWRITEBYTECODE=1
          ${Python_EXECUTABLE} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/tests)
set_tests_properties(python_tests PROPERTIES LABELS "python" TIMEOUT 120)
