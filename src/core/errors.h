// Errors every stage may raise. InputError: the input is malformed (exit 2).
// ResourceError: a memory or time budget ran out (exit 3). UsageError: bad
// command line (exit 2).
#pragma once
#include <stdexcept>
#include <string>

namespace isocheck {

struct InputError : std::runtime_error {
  // `where` is "FILE:LINE", "FILE: dataset /op/key row 17", "FILE: byte 1234".
  InputError(const std::string& where, const std::string& what)
      : std::runtime_error(where + ": " + what) {}
};

struct ResourceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace isocheck
