// elle-cli JSON: the Elle operation maps with keywords written as strings, as
// one JSON array of objects or one object per line.
#include "io/import_common.h"

namespace isocheck {

History parse_elle_json(std::string_view text, const std::string& name, ImportStats* stats) {
  ImportStats local;
  ImportStats& st = stats ? *stats : local;
  imp::JsonStream in(text, name);
  return imp::elle_from_ops([&](imp::Node& n) { return in.next(n); }, name, st, "elle-json");
}

}  // namespace isocheck
