#include "io/load.h"

#include "core/errors.h"
#include "io/hdf5.h"
#include "io/jsonl.h"

namespace isocheck {

Format parse_format_name(const std::string& n) { return import_format_from_name(n); }

std::string format_names() {
  return "jsonl, hdf5, elle-edn, elle-json, cobra, dbcop, dbcop-json, dbcop-text, polysi";
}

History load_history(const std::string& path, Format f, ImportStats* stats, bool release_unused_lists) {
  if (f == Format::unknown) f = sniff_format(path);
  History h;
  switch (f) {
    case Format::jsonl: h = read_jsonl(path, release_unused_lists); break;
    case Format::hdf5: h = read_hdf5(path, release_unused_lists); break;
    case Format::unknown:
      throw UsageError(path + ": cannot tell the history format (use --format: " + format_names() + ")");
    default: h = import_history(path, f, stats); break;
  }
  if (release_unused_lists) h.release_unused_list_offsets();
  return h;
}

}  // namespace isocheck
