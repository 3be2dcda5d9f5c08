// libFuzzer target: parse_cobra_logs (see scripts/fuzz.sh). The input is split
// at the first two "\n--\n" markers into up to three client logs, so that
// cross-log checks (duplicate transaction ids, reads of other logs' writes)
// are reached too.
#include <vector>

#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return isocheck::fuzz::run(data, size, [](std::string_view in, isocheck::ImportStats& st) {
    std::vector<isocheck::CobraLog> logs;
    for (int64_t s = 0; s < 3; ++s) {
      size_t cut = s < 2 ? in.find("\n--\n") : std::string_view::npos;
      logs.push_back({s, "T" + std::to_string(s) + ".log", in.substr(0, cut)});
      if (cut == std::string_view::npos) break;
      in.remove_prefix(cut + 4);
    }
    return isocheck::parse_cobra_logs(logs, &st);
  });
}
