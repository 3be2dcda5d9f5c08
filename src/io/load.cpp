#include "io/load.h"

#include <fstream>

#include "io/errors.h"
#include "io/hdf5.h"
#include "io/jsonl.h"

namespace isocheck {
namespace {

bool ends_with(const std::string& s, const std::string& suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

Format sniff(const std::string& path) {
  if (ends_with(path, ".jsonl") || ends_with(path, ".json")) return Format::jsonl;
  if (ends_with(path, ".h5") || ends_with(path, ".hdf5")) return Format::hdf5;
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path, "cannot open the file");
  char magic[8] = {};
  f.read(magic, 8);
  if (std::string(magic, 8) == std::string("\x89HDF\r\n\x1a\n", 8)) return Format::hdf5;
  if (magic[0] == '{') return Format::jsonl;
  return Format::unknown;
}

}  // namespace

Format parse_format_name(const std::string& n) {
  if (n == "jsonl") return Format::jsonl;
  if (n == "hdf5" || n == "h5") return Format::hdf5;
  return Format::unknown;
}

History load_history(const std::string& path, Format f) {
  if (f == Format::unknown) f = sniff(path);
  switch (f) {
    case Format::jsonl: return read_jsonl(path);
    case Format::hdf5: return read_hdf5(path);
    default: break;
  }
  throw UsageError(path + ": cannot tell the history format (use --format)");
}

}  // namespace isocheck
