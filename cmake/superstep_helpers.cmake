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
  # The first test executable declared of each kind (concurrency or not) precompiles the common
  # headers with GoogleTest's; the others of its kind reuse them (the tsan preset builds only the
  # concurrency ones).
  set(kind plain)
  if(arg_CONCURRENCY)
    set(kind concurrency)
  endif()
  get_property(anchor GLOBAL PROPERTY superstep_pch_test_anchor_${kind})
  if(anchor)
    superstep_pch(${name} REUSE_FROM ${anchor})
  else()
    superstep_pch(${name} OWN <gtest/gtest.h>)
    set_property(GLOBAL PROPERTY superstep_pch_test_anchor_${kind} ${name})
  endif()
  set(labels)
  if(arg_CONCURRENCY)
    set(labels LABELS concurrency)
    add_dependencies(superstep_concurrency_tests ${name})
  endif()
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 120 ${labels} ${arg_PROPERTIES})
endfunction()

# superstep_server_malloc(target): links a server executable with jemalloc (Debian's
# libjemalloc-dev), which takes about a tenth off the server's CPU per run against glibc's
# allocator (docs/perf-log/2026-11-27-server-allocator.md). SUPERSTEP_MALLOC: "auto" (the default: jemalloc
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

# Precompiled headers (SUPERSTEP_PCH, on by default). Parsing the standard library, nlohmann/json
# and the public API is most of a small file's compile time (about 7 of an example's 10 s in the
# debug build). A precompiled header costs about as much as two files, so a few targets make one
# and the others reuse it (docs/reliability.md, "Build and CI times"):
#   superstep_pch(target)                 reuses superstep_core's (the common headers); superstep_core
#                                         itself makes it. For any target built with the library's
#                                         flags and without GoogleTest: libraries, tools, examples.
#   superstep_pch(target OWN headers...)  makes the target its own: the common headers plus
#                                         `headers` (the server adds Asio's).
#   superstep_pch(target REUSE_FROM t)    reuses t's (the tests: superstep_add_test).
# A target that reuses another's depends on it. The fuzz preset turns them off: its clang build
# then compiles each library file on its own includes, so a missing #include still breaks a
# build in CI.
option(SUPERSTEP_PCH "Precompile the common headers (a few targets make them, the others reuse them)" ON)
set(SUPERSTEP_PCH_HEADERS
  <algorithm> <atomic> <chrono> <cstdint> <functional> <map> <memory> <mutex> <optional> <set>
  <stdexcept> <string> <string_view> <thread> <unordered_map> <utility> <variant> <vector>
  <nlohmann/json.hpp> <superstep/superstep.hpp>)
function(superstep_pch target)
  if(NOT SUPERSTEP_PCH)
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 1 arg "OWN" "REUSE_FROM" "")
  if(arg_OWN OR target STREQUAL superstep_core)
    target_precompile_headers(${target} PRIVATE ${SUPERSTEP_PCH_HEADERS} ${arg_UNPARSED_ARGUMENTS})
  elseif(arg_REUSE_FROM)
    target_precompile_headers(${target} REUSE_FROM ${arg_REUSE_FROM})
  else()
    target_precompile_headers(${target} REUSE_FROM superstep_core)
  endif()
endfunction()
