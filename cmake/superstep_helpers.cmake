# Warnings used by every superstep target.
function(superstep_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-unused-parameter -Wno-missing-field-initializers)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12 reports false -Wrestrict positives inside std::string operator+ at -O2 (GCC bug 105329).
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
endfunction()

# superstep_add_test(name [CONCURRENCY] SOURCES... [PROPERTIES prop value ...]): one GoogleTest
# executable registered with CTest; PROPERTIES are added to every test case it holds.
# CONCURRENCY: its tests run threads against each other (the pool, coroutines, async saves,
# savers, the HTTP client or the server used from many threads); they carry the CTest label
# "concurrency", which the tsan preset runs, and the target superstep_concurrency_tests builds
# exactly these executables (tests/CMakeLists.txt defines it).
function(superstep_add_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "CONCURRENCY" "" "PROPERTIES")
  add_executable(${name} ${arg_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE superstep::core GTest::gtest GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  superstep_warnings(${name})
  set(labels)
  if(arg_CONCURRENCY)
    set(labels LABELS concurrency)
    add_dependencies(superstep_concurrency_tests ${name})
  endif()
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 120 ${labels} ${arg_PROPERTIES})
endfunction()
