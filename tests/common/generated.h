// A generated history as the JSONL file `generate` would write, read back as
// `verify` reads it (scans, inserts and deletes expanded).
#pragma once
#include <string>

#include "core/history.h"
#include "gen/gen.h"
#include "io/jsonl.h"

namespace isocheck::testkit {

inline History read_generated(const GenOptions& o, GenSummary* sum = nullptr, std::string* text = nullptr) {
  JsonlTextSink sink;
  GenSummary s = generate(o, sink);
  if (sum) *sum = s;
  if (text) *text = sink.text;
  return parse_jsonl(sink.text, "generated.jsonl");
}

}  // namespace isocheck::testkit
