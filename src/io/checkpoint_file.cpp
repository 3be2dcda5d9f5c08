#include "io/checkpoint_file.h"

#include <zlib.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sys/stat.h>

#include "io/output_file.h"

namespace isocheck {
namespace {

// Layout (integers little-endian):
//   8  magic "ISOCKPT\n"
//   4  container version
//   4  kind length k (at most kMaxKind)
//   k  kind
//   8  payload length n
//   n  payload
//   4  CRC-32 (zlib's) of every byte before it
constexpr char kMagic[8] = {'I', 'S', 'O', 'C', 'K', 'P', 'T', '\n'};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kMaxKind = 64;
constexpr size_t kFixed = 8 + 4 + 4 + 8 + 4;

void put32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
}
void put64(std::string& s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
}
uint64_t get(const std::string& s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(s[at + i])) << (8 * i);
  return v;
}
uint32_t crc(uint32_t c, const char* p, size_t n) {
  return static_cast<uint32_t>(crc32_z(c, reinterpret_cast<const Bytef*>(p), n));
}

}  // namespace

std::string damaged_checkpoint_message(const std::string& path, const std::string& reason, const std::string& hint) {
  return "damaged checkpoint " + path + ": " + reason + ", remove it or " + hint;
}

void write_checkpoint_file(const std::string& path, const std::string& kind, const std::string& payload,
                           const std::string& what) {
  std::string head(kMagic, sizeof kMagic);
  put32(head, kVersion);
  put32(head, static_cast<uint32_t>(kind.size()));
  head += kind;
  put64(head, payload.size());
  uint32_t c = crc(crc(0, head.data(), head.size()), payload.data(), payload.size());
  std::string tail;
  put32(tail, c);
  AtomicOutput out(path, what);
  out.write(head);
  out.write(payload);
  out.write(tail);
  out.commit(/*durable=*/true);
}

std::optional<std::string> read_checkpoint_file(const std::string& path, const std::string& kind,
                                                const std::string& hint) {
  auto damaged = [&](const std::string& reason) { return DamagedCheckpoint(damaged_checkpoint_message(path, reason, hint)); };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::nullopt;
    throw damaged(std::string("cannot read it (") + std::strerror(errno) + ")");
  }
  if (!S_ISREG(st.st_mode)) throw damaged("not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw damaged(std::string("cannot read it (") + std::strerror(errno) + ")");
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw damaged("cannot read it (read error)");
  if (s.size() < sizeof kMagic || std::memcmp(s.data(), kMagic, sizeof kMagic) != 0)
    throw damaged("not an isocheck checkpoint (or one written by an older isocheck)");
  if (s.size() < kFixed) throw damaged("truncated (" + std::to_string(s.size()) + " bytes)");
  uint64_t k = get(s, 12, 4);
  if (k > kMaxKind) throw damaged("bad header (kind length " + std::to_string(k) + ")");
  if (s.size() < kFixed + k) throw damaged("truncated (" + std::to_string(s.size()) + " bytes)");
  uint64_t n = get(s, 16 + k, 8);
  uint64_t expect = kFixed + k + n;
  if (n > s.size() || expect > s.size())
    throw damaged("truncated (" + std::to_string(s.size()) + " bytes" +
                  (n > s.size() ? std::string() : " of " + std::to_string(expect)) + ")");
  if (expect < s.size())
    throw damaged(std::to_string(s.size() - expect) + " bytes past its end (" + std::to_string(expect) + " expected)");
  uint32_t stored = static_cast<uint32_t>(get(s, s.size() - 4, 4));
  if (crc(0, s.data(), s.size() - 4) != stored) throw damaged("checksum mismatch (the file was changed or damaged)");
  uint32_t version = static_cast<uint32_t>(get(s, 8, 4));
  if (version != kVersion)
    throw damaged("container version " + std::to_string(version) + ", this isocheck reads " + std::to_string(kVersion));
  std::string got = s.substr(16, k);
  if (got != kind) throw damaged("a checkpoint of " + got + ", not of " + kind);
  s.resize(s.size() - 4);
  s.erase(0, 16 + k + 8);
  return s;
}

}  // namespace isocheck
