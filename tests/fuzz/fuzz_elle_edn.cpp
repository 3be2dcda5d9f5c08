// libFuzzer target: parse_elle_edn (see scripts/fuzz.sh).
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return isocheck::fuzz::run(data, size, [](std::string_view in, isocheck::ImportStats& st) {
    return isocheck::parse_elle_edn(in, "fuzz", &st);
  });
}
