// The container every checkpoint is stored in (verify's distributed driver
// and the audit): a magic, a format version, the kind of checkpoint, the
// payload's length, the payload, and a CRC-32 of all of it. The reader checks
// all of that before a byte of the payload is used, so a damaged, truncated or
// foreign file is refused (exit 2) instead of being decoded: a CRC-32 detects
// every error burst of up to 32 bits, so any one changed byte (or several
// within four consecutive bytes) is always caught, and other damage with a
// probability of 1 - 2^-32.
// Written through AtomicOutput (temporary file, fsync, rename), so a kill
// leaves the previous checkpoint whole.
#pragma once
#include <optional>
#include <string>

#include "core/errors.h"

namespace isocheck {

// "damaged checkpoint FILE: REASON, remove it or HINT" (exit 2).
struct DamagedCheckpoint : UsageError {
  using UsageError::UsageError;
};

// `what` names the option in write-error messages ("--checkpoint-dir").
void write_checkpoint_file(const std::string& path, const std::string& kind, const std::string& payload,
                           const std::string& what);

// The payload of the checkpoint at `path`, or nothing when there is no file.
// Throws DamagedCheckpoint (whose message ends with ", remove it or " + hint)
// when the file is not a whole, unchanged checkpoint of `kind`.
std::optional<std::string> read_checkpoint_file(const std::string& path, const std::string& kind,
                                                const std::string& hint);

// The message DamagedCheckpoint carries; for callers that find a payload they
// cannot decode (a bug, or damage past the checksum) and report it alike.
std::string damaged_checkpoint_message(const std::string& path, const std::string& reason, const std::string& hint);

}  // namespace isocheck
