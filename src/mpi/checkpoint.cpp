#include "mpi/checkpoint.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "core/errors.h"
#include "io/checkpoint_file.h"
#include "io/output_file.h"
#include "core/version.h"
#include "mpi/collectives.h"

namespace isocheck::dist {
namespace {

constexpr const char* kVersion = kVersionText;
// 2: piece results carry the pairs forced while building (stats).
constexpr const char* kCheckpointMagic = "isocheck-checkpoint 4";  // 3: witnesses carry forced orders; 4: pieces carry their replays

}  // namespace

std::string Fingerprint::text() const {
  char b[80];
  std::snprintf(b, sizeof b, "%llu:%016llx", static_cast<unsigned long long>(size), static_cast<unsigned long long>(hash));
  return b;
}

Fingerprint fingerprint_file(const std::string& path) {
  Fingerprint f;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {  // a folder of logs (cobra): hash every file in name order
    std::vector<std::string> files;
    for (auto& e : std::filesystem::directory_iterator(path)) files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    for (auto& p : files) {
      Fingerprint g = fingerprint_file(p);
      f.size += g.size, f.hash = mix(f.hash ^ g.hash) + g.size;
    }
    return f;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot open " + path);
  std::vector<char> buf(1 << 22);
  uint64_t h = 0x243f6a8885a308d3ULL;
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    size_t got = static_cast<size_t>(in.gcount());
    f.size += got;
    size_t i = 0;
    for (; i + 8 <= got; i += 8) {
      uint64_t w;
      std::memcpy(&w, buf.data() + i, 8);
      h = (h ^ mix(w)) * 0x9e3779b97f4a7c15ULL;
    }
    for (; i < got; ++i) h = (h ^ static_cast<unsigned char>(buf[i])) * 0x100000001b3ULL;
  }
  f.hash = mix(h ^ f.size);
  return f;
}

std::string checkpoint_path(const std::string& dir) { return dir + "/isocheck.ckpt"; }

std::string header_line(const Fingerprint& fp, const std::string& options) {
  return std::string(kCheckpointMagic) + "\t" + kVersion + "\t" + fp.text() + "\t" + options + "\n";
}

// The checkpoint file (io/checkpoint_file.h: checksummed, written atomically)
// holds the header line (version, input, options) and the state.
void write_checkpoint(const std::string& dir, const std::string& header, const Checkpoint& c) {
  check_output_dir(dir, "--checkpoint-dir");
  write_checkpoint_file(checkpoint_path(dir), "verify", header + to_bytes(c), "--checkpoint-dir");
}

bool load_checkpoint(const std::string& dir, const Fingerprint& fp, const std::string& options, Checkpoint& c) {
  std::string path = checkpoint_path(dir);
  const char* hint = "use another --checkpoint-dir";
  std::optional<std::string> payload = read_checkpoint_file(path, "verify", hint);
  if (!payload) return false;
  size_t eol = payload->find('\n');
  if (eol == std::string::npos) throw DamagedCheckpoint(damaged_checkpoint_message(path, "no header line", hint));
  std::vector<std::string> f;
  std::stringstream ss(payload->substr(0, eol));
  for (std::string x; std::getline(ss, x, '\t');) f.push_back(x);
  if (f.size() >= 3 && f[0] != kCheckpointMagic && f[0].rfind("isocheck-checkpoint ", 0) == 0)
    throw UsageError("checkpoint " + path + " has format " + f[0] + ", this isocheck writes " + kCheckpointMagic +
                     "; remove it (or finish the job with the isocheck that wrote it)");
  if (f.size() < 3 || f[0] != kCheckpointMagic)
    throw UsageError("checkpoint " + path + " is not an isocheck checkpoint; remove it or use another --checkpoint-dir");
  if (f[1] != kVersion)
    throw UsageError("checkpoint " + path + " was written by " + f[1] + ", this is " + kVersion +
                     "; remove it (or finish the job with that version)");
  if (f[2] != fp.text())
    throw UsageError("checkpoint " + path + " was written for another input (size:hash " + f[2] + ", this input " +
                     fp.text() + "); remove it or use another --checkpoint-dir");
  std::string opts = f.size() > 3 ? f[3] : "";
  if (opts != options)
    throw UsageError("checkpoint " + path + " was written with other options (" + opts + "; now " + options +
                     "); rerun with the same options or remove it");
  try {
    from_bytes(payload->substr(eol + 1), c);
  } catch (const std::exception& e) {
    throw DamagedCheckpoint(damaged_checkpoint_message(path, std::string("undecodable state (") + e.what() + ")", hint));
  }
  return true;
}

}  // namespace isocheck::dist
