// Every file isocheck writes goes through here, so that an output never
// destroys an input and never fails silently:
//  - check_output_file / check_output_dir run before any work starts: the
//    directory exists (or can be created) and is writable, the path is not a
//    directory (or not a file, for a directory), and it is not one of the
//    inputs (same file by st_dev + st_ino, so a symlink or hard link to the
//    input is caught as well as the same name);
//  - AtomicOutput writes to a temporary file beside the destination and
//    renames it into place only when complete, so a failed or killed run
//    leaves the old file (or none), never half a one;
//  - a failed write is an error: ResourceError (exit 3) when the disk or quota
//    is full, UsageError (exit 2) otherwise, with one line naming the file.
// Destinations that exist and are not regular files (/dev/stdout, /dev/null,
// a FIFO) are written in place: there is nothing to rename onto.
#pragma once
#include <string>
#include <vector>

namespace isocheck {

// Throws ResourceError for ENOSPC/EDQUOT, UsageError otherwise:
// "WHAT: cannot write PATH: strerror(err)" (+ "; free some space" when full).
[[noreturn]] void throw_write_error(const std::string& what, const std::string& path, int err);

// `what` names the option in messages ("--dot", "convert output", ...).
// Refuses (UsageError) an output file that cannot be written or that is one
// of `inputs` (files or folders; names that do not exist are ignored).
void check_output_file(const std::string& path, const std::string& what, const std::vector<std::string>& inputs = {});
// A directory isocheck writes into (created if missing, with its parents):
// refuses one that is a file or cannot be created or written.
void check_output_dir(const std::string& dir, const std::string& what);
// True when `a` and `b` both exist and are the same file (device + inode).
bool same_file(const std::string& a, const std::string& b);

class AtomicOutput {
 public:
  // Opens a temporary file beside `dest` (or `dest` itself when it exists and
  // is not a regular file). A symlink destination is followed: its target is
  // replaced and the link kept.
  AtomicOutput(const std::string& dest, const std::string& what);
  ~AtomicOutput();  // not committed: the temporary file is removed
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  // The file to write (for libraries that open files by name, e.g. HDF5).
  // Writers that do so close it before commit().
  const std::string& path() const { return write_path_; }
  // Appends bytes through the descriptor; a short write throws at once.
  void write(const char* p, size_t n);
  void write(const std::string& s) { write(s.data(), s.size()); }
  // Flushes (fsync when `durable`), closes and renames onto the destination.
  void commit(bool durable = false);
  // Releases the descriptor (for writers that reopen path() themselves).
  void close_fd();

 private:
  std::string dest_, what_, write_path_;
  int fd_ = -1;
  bool in_place_ = false, done_ = false;
};

// One-shot: `content` to `dest` through an AtomicOutput.
void write_file_atomically(const std::string& dest, const std::string& what, const std::string& content,
                           bool durable = false);

}  // namespace isocheck
