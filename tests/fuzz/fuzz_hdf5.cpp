// libFuzzer target: the HDF5 history reader (see scripts/fuzz.sh). The input
// is written to a file and read with read_hdf5, as the commands read one: an
// InputError is the answer to a damaged file, anything else (a crash inside
// libhdf5 included, a sanitizer report, another exception) is a finding, and
// a history that reads must satisfy the model's invariants.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "fuzz_common.h"
#include "io/hdf5.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/isocheck-fuzz-hdf5-" + std::to_string(getpid()) + ".h5";
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    std::abort();
  }
  try {
    isocheck::History h = isocheck::read_hdf5(path);
    isocheck::fuzz::check_invariants(h);
  } catch (const isocheck::InputError&) {
  }
  return 0;
}
