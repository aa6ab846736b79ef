// Shared by the fuzz targets (fuzz/README.md): what counts as a finding.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include <superstep/errors.hpp>

namespace fuzz {

/// A broken promise: print what and abort (libFuzzer saves the input as a crash).
[[noreturn]] inline void fail(std::string_view what) {
  std::fprintf(stderr, "fuzz finding: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

/// Runs `fn`; superstep::Error is the contract for bad input (a named error), anything else
/// escaping (a std::exception from a library, an unknown throw) is a finding.
template <class F>
void named_errors_only(F&& fn) {
  try {
    fn();
  } catch (const superstep::Error&) {
  } catch (const std::exception& e) {
    std::string what = std::string("an exception that is not a superstep::Error escaped: ") + e.what();
    fail(what);
  }
}

}  // namespace fuzz
