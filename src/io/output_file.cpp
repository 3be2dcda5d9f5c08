#include "io/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/errors.h"

namespace isocheck {
namespace {

namespace fs = std::filesystem;

std::string parent_of(const std::string& path) {
  fs::path p = fs::path(path).parent_path();
  return p.empty() ? std::string(".") : p.string();
}

// Follows a chain of symbolic links to the file it names (which need not
// exist yet), so that writing "through" a link replaces the target and keeps
// the link.
std::string resolve_links(const std::string& path) {
  std::string cur = path;
  for (int i = 0; i < 40; ++i) {
    struct stat st {};
    if (::lstat(cur.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
    std::error_code ec;
    fs::path target = fs::read_symlink(cur, ec);
    if (ec) return cur;
    cur = target.is_absolute() ? target.string() : (fs::path(parent_of(cur)) / target).string();
  }
  return cur;  // a loop: the open will say so
}

std::atomic<unsigned> g_counter{0};

}  // namespace

void throw_write_error(const std::string& what, const std::string& path, int err) {
  std::string msg = what + ": cannot write " + path + ": " + std::strerror(err);
  if (err == ENOSPC || err == EDQUOT) throw ResourceError(msg + "; free some space or write elsewhere");
  throw UsageError(msg);
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (a.empty() || b.empty() || ::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void check_output_file(const std::string& path, const std::string& what, const std::vector<std::string>& inputs) {
  for (const std::string& in : inputs)
    if (same_file(path, in))
      throw UsageError(what + ": " + path + " is the input " + in +
                       " (the same file); writing it would destroy the input, choose another output");
  std::string real = resolve_links(path);
  struct stat st {};
  if (::stat(real.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw UsageError(what + ": " + path + " is a directory, not a file");
    if (!S_ISREG(st.st_mode)) {  // a device or FIFO is written in place
      if (::access(real.c_str(), W_OK) != 0) throw_write_error(what, path, errno);
      return;
    }
  }
  // A new file (or a replaced one) is created in its directory.
  std::string dir = parent_of(real);
  struct stat ds {};
  if (::stat(dir.c_str(), &ds) != 0)
    throw UsageError(what + ": cannot write " + path + ": directory " + dir + " does not exist");
  if (!S_ISDIR(ds.st_mode)) throw UsageError(what + ": cannot write " + path + ": " + dir + " is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw UsageError(what + ": cannot write " + path + ": directory " + dir + " is not writable");
}

void check_output_dir(const std::string& dir, const std::string& what) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw UsageError(what + ": " + dir + " exists and is not a directory");
  } else {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec && !fs::is_directory(dir)) throw UsageError(what + ": cannot create directory " + dir + ": " + ec.message());
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) throw UsageError(what + ": directory " + dir + " is not writable");
}

AtomicOutput::AtomicOutput(const std::string& dest, const std::string& what) : dest_(resolve_links(dest)), what_(what) {
  struct stat st {};
  bool exists = ::stat(dest_.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) throw UsageError(what + ": " + dest + " is a directory, not a file");
  if (exists && !S_ISREG(st.st_mode)) {
    in_place_ = true;
    write_path_ = dest_;
    fd_ = ::open(dest_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd_ < 0) throw_write_error(what_, dest, errno);
    return;
  }
  fs::path d(dest_);
  std::string name = d.filename().string();
  for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
    write_path_ = (fs::path(parent_of(dest_)) / ("." + name + ".tmp-" + std::to_string(::getpid()) + "-" +
                                                  std::to_string(g_counter.fetch_add(1))))
                      .string();
    fd_ = ::open(write_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0 && errno != EEXIST) throw_write_error(what_, dest, errno);
  }
  if (fd_ < 0) throw_write_error(what_, dest, EEXIST);
  if (exists) ::fchmod(fd_, st.st_mode & 07777);  // a replaced file keeps its permissions
}

AtomicOutput::~AtomicOutput() {
  if (fd_ >= 0) ::close(fd_);
  if (!done_ && !in_place_ && !write_path_.empty()) ::unlink(write_path_.c_str());
}

void AtomicOutput::write(const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw_write_error(what_, dest_, errno);
    }
    p += w, n -= static_cast<size_t>(w);
  }
}

void AtomicOutput::close_fd() {
  if (fd_ < 0) return;
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && errno != EINTR) throw_write_error(what_, dest_, errno);
}

void AtomicOutput::commit(bool durable) {
  if (!in_place_ && durable) {  // the data before the name: a crash leaves the old file or the new one
    int fd = fd_ >= 0 ? fd_ : ::open(write_path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) throw_write_error(what_, dest_, errno);
    if (fd != fd_) ::close(fd);
  }
  close_fd();
  if (!in_place_) {
    if (::rename(write_path_.c_str(), dest_.c_str()) != 0) throw_write_error(what_, dest_, errno);
    if (durable) {
      int dfd = ::open(parent_of(dest_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dfd >= 0) ::fsync(dfd), ::close(dfd);
    }
  }
  done_ = true;
}

void write_file_atomically(const std::string& dest, const std::string& what, const std::string& content,
                           bool durable) {
  AtomicOutput out(dest, what);
  out.write(content);
  out.commit(durable);
}

}  // namespace isocheck
