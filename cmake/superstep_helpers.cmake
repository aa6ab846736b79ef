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

# superstep_server_malloc(target): links a server executable with jemalloc (Debian's
# libjemalloc-dev), which takes about a tenth off the server's CPU per run against glibc's
# allocator (docs/performance.md, "The allocator"). SUPERSTEP_MALLOC: "auto" (the default: jemalloc
# when pkg-config finds it and no sanitizer is on, else the C library's), "jemalloc" (required),
# "system" (the C library's). Sanitizers bring their own allocator, so "auto" leaves them be.
set(SUPERSTEP_MALLOC "auto" CACHE STRING "The allocator of the server executables: auto, jemalloc or system")
set_property(CACHE SUPERSTEP_MALLOC PROPERTY STRINGS auto jemalloc system)
function(superstep_server_malloc target)
  if(SUPERSTEP_MALLOC STREQUAL "system")
    return()
  endif()
  if(SUPERSTEP_MALLOC STREQUAL "auto" AND "${CMAKE_CXX_FLAGS} ${CMAKE_EXE_LINKER_FLAGS}" MATCHES "-fsanitize")
    return()
  endif()
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND AND NOT TARGET PkgConfig::superstep_jemalloc)
    pkg_check_modules(superstep_jemalloc QUIET IMPORTED_TARGET GLOBAL jemalloc)
  endif()
  if(TARGET PkgConfig::superstep_jemalloc)
    target_link_libraries(${target} PRIVATE PkgConfig::superstep_jemalloc)
  elseif(SUPERSTEP_MALLOC STREQUAL "jemalloc")
    message(FATAL_ERROR "SUPERSTEP_MALLOC=jemalloc, but pkg-config finds no jemalloc (apt-get install libjemalloc-dev)")
  else()
    message(STATUS "superstep: ${target} uses the C library's allocator (no jemalloc found; apt-get install libjemalloc-dev)")
  endif()
endfunction()
