#include "io/load.h"

#include "core/errors.h"
#include "io/hdf5.h"
#include "io/jsonl.h"

namespace isocheck {

Format parse_format_name(const std::string& n) { return import_format_from_name(n); }

std::string format_names() {
  return "jsonl, hdf5, elle-edn, elle-json, cobra, dbcop, dbcop-json, dbcop-text, polysi";
}

History load_history(const std::string& path, Format f, ImportStats* stats) {
  if (f == Format::unknown) f = sniff_format(path);
  switch (f) {
    case Format::jsonl: return read_jsonl(path);
    case Format::hdf5: return read_hdf5(path);
    case Format::unknown: break;
    default: return import_history(path, f, stats);
  }
  throw UsageError(path + ": cannot tell the history format (use --format: " + format_names() + ")");
}

}  // namespace isocheck
