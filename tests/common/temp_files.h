// Temporary files for the unit tests: a folder of its own per test binary
// under GoogleTest's temporary folder, and a folder removed when it goes out
// of scope.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace isocheck::testkit {

// `name` inside the folder `folder` of GoogleTest's temporary folder (made
// if missing).
inline std::string temp_path(const std::string& folder, const std::string& name) {
  const auto dir = std::filesystem::path(testing::TempDir()) / folder;
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

// A fresh folder, removed with everything in it at the end of its scope.
struct ScopedTempDir {
  std::filesystem::path path;
  explicit ScopedTempDir(const std::string& prefix) {
    path = std::filesystem::temp_directory_path() /
           (prefix + std::to_string(::getpid()) + "-" + std::to_string(reinterpret_cast<uintptr_t>(this)));
    std::filesystem::create_directories(path);
  }
  ~ScopedTempDir() { std::filesystem::remove_all(path); }
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;
  // Writes `bytes` to the file `name` in the folder; returns its path.
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream f(path / name, std::ios::binary);
    f << bytes;
    return (path / name).string();
  }
};

}  // namespace isocheck::testkit
