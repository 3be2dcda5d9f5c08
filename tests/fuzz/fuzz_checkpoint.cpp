// libFuzzer target: the checkpoint readers (see scripts/fuzz.sh). The first
// byte picks one: even, the audit's load_checkpoint on the rest written to a
// file (an InputError is its answer to a damaged checkpoint); odd, the body of
// verify's distributed checkpoint (what follows its text header line), read
// by dist::from_bytes, where the driver turns any std::exception into "damaged
// checkpoint". A crash, a sanitizer report or another exception is a finding.
#include <unistd.h>

#include <cstdio>
#include <new>
#include <string>

#include "audit/state.h"
#include "dist/messages.h"
#include "core/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 1) {
    size_t nl = body.find('\n');
    if (nl != std::string::npos) body.erase(0, nl + 1);
    try {
      isocheck::dist::Checkpoint c;
      isocheck::dist::from_bytes(body, c);
    } catch (const std::exception&) {
    }
    return 0;
  }
  static const std::string path = "/tmp/isocheck-fuzz-ckpt-" + std::to_string(getpid());
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(body.data(), 1, body.size(), f);
    std::fclose(f);
  } else {
    std::abort();
  }
  try {
    isocheck::AuditState s;
    isocheck::load_checkpoint(s, path);
  } catch (const isocheck::InputError&) {
  } catch (const std::bad_alloc&) {  // a count past the memory: exit 3, "out of memory"
  }
  return 0;
}
