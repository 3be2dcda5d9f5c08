#include "audit/spill.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include "core/errors.h"

namespace isocheck {

namespace fs = std::filesystem;

[[noreturn]] void scratch_write_failed(const std::string& file, int err) {
  if (err == ENOSPC || err == EDQUOT || err == EFBIG)
    throw ResourceError("the scratch folder is full (writing " + file + ": " + std::strerror(err) +
                        "): free space there, raise the file size limit, or give --scratch-dir a folder with "
                        "more room");
  throw UsageError("--scratch-dir: cannot write " + file + ": " + std::strerror(err));
}

std::string ScratchDir::new_token() {
  std::random_device rd;
  const uint64_t x = (uint64_t{rd()} << 32) ^ rd() ^ static_cast<uint64_t>(::getpid());
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(x));
  return b;
}

ScratchDir::ScratchDir(const std::string& dir, const std::string& base, const std::string& token)
    : base_(base), token_(token) {
  if (dir.empty()) {
    std::error_code ec;
    fs::path tmp = fs::temp_directory_path(ec);
    if (ec) tmp = "/tmp";
    std::string templ = (tmp / "isocheck-audit-XXXXXX").string();
    if (!::mkdtemp(templ.data()))
      throw UsageError("cannot make a scratch folder in " + tmp.string() + ": " + std::strerror(errno) +
                       " (give one with --scratch-dir)");
    dir_ = templ;
    temporary_ = true;
    return;
  }
  dir_ = dir;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec || !fs::is_directory(dir_))
    throw UsageError("--scratch-dir " + dir_ + ": not a folder that can be made (" +
                     (ec ? ec.message() : std::string("a file is there")) + ")");
  // Tried with a file: a folder that cannot be written is refused now, not
  // after pass 1.
  const std::string probe = path("probe");
  std::FILE* f = std::fopen(probe.c_str(), "wb");
  if (!f) throw UsageError("--scratch-dir " + dir_ + ": cannot write there (" + std::strerror(errno) + ")");
  std::fclose(f);
  std::remove(probe.c_str());
}

ScratchDir::~ScratchDir() {
  if (!temporary_) return;
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string ScratchDir::path(const std::string& suffix) const {
  return (fs::path(dir_) / (base_ + "." + token_ + "." + suffix)).string();
}

std::unique_ptr<RecordFile> RecordFile::create(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) scratch_write_failed(path, errno);
  return std::unique_ptr<RecordFile>(new RecordFile(f, path));
}

std::unique_ptr<RecordFile> RecordFile::open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return nullptr;
  return std::unique_ptr<RecordFile>(new RecordFile(f, path));
}

RecordFile::~RecordFile() {
  if (f_) std::fclose(f_);
}

void RecordFile::write(const void* p, size_t bytes) {
  if (bytes && std::fwrite(p, 1, bytes, f_) != bytes) scratch_write_failed(path_, errno);
}

size_t RecordFile::read(void* p, size_t bytes) {
  size_t got = std::fread(p, 1, bytes, f_);
  if (got < bytes && std::ferror(f_)) throw InputError(path_, std::string("cannot read: ") + std::strerror(errno));
  return got;
}

void RecordFile::finish(bool durable) {
  std::FILE* f = f_;
  f_ = nullptr;
  if (std::fflush(f) != 0) {
    int e = errno;
    std::fclose(f);
    scratch_write_failed(path_, e);
  }
  if (durable && ::fsync(::fileno(f)) != 0 && errno != EINVAL) {
    int e = errno;
    std::fclose(f);
    scratch_write_failed(path_, e);
  }
  if (std::fclose(f) != 0) scratch_write_failed(path_, errno);
}

}  // namespace isocheck
