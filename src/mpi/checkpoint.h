// Checkpoints of the MPI driver (docs/dist.md): one file in --checkpoint-dir,
// a header line (format, isocheck version, the input's size:hash, the options
// that decide the result) and the serialized Checkpoint (messages.h). A
// checkpoint made for another input, version or options is refused (exit 2).
#pragma once
#include <cstdint>
#include <string>

#include "mpi/messages.h"

namespace isocheck::dist {

struct Fingerprint {
  uint64_t size = 0, hash = 0;
  std::string text() const;
};

// Size and hash of the input's bytes (a folder of logs: every file in name order).
Fingerprint fingerprint_file(const std::string& path);
std::string checkpoint_path(const std::string& dir);
std::string header_line(const Fingerprint& fp, const std::string& options);
// Checksummed and written atomically (io/checkpoint_file.h).
void write_checkpoint(const std::string& dir, const std::string& header, const Checkpoint& c);
// Loads the checkpoint if there is one; refuses (UsageError, exit 2) a damaged
// one, and one made for another input, another isocheck version or other options.
bool load_checkpoint(const std::string& dir, const Fingerprint& fp, const std::string& options, Checkpoint& c);

}  // namespace isocheck::dist
