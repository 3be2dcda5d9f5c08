#include "io/sink.h"

#include <algorithm>
#include <cctype>
#include <fstream>

#include "core/errors.h"
#include "io/hdf5.h"
#include "io/jsonl_stream.h"

namespace isocheck {
namespace {

// Lines go out chunk by chunk; each chunk is rendered with its own symbol
// tables, so named and integer chunks mix freely.
class JsonlSink final : public HistorySink {
 public:
  JsonlSink(const std::string& path, const std::string& time_unit) : path_(path) {
    out_.open(path, std::ios::binary | std::ios::trunc);
    if (!out_) throw InputError(path, "cannot open for writing");
    write_jsonl_header(time_unit, out_);
    check();
  }
  void append(const History& chunk) override {
    write_jsonl_txns(chunk, out_, false);
    check();
  }
  void finish() override {
    out_.close();
    check();
  }

 private:
  void check() {
    if (out_.fail()) throw InputError(path_, "write failed (disk full?)");
  }
  std::string path_;
  std::ofstream out_;
};

}  // namespace

std::unique_ptr<HistorySink> open_sink(const std::string& path, Format f, const std::string& time_unit) {
  switch (f) {
    case Format::jsonl: return std::make_unique<JsonlSink>(path, time_unit);
    case Format::hdf5: return open_hdf5_sink(path, time_unit);
    default: throw UsageError(std::string("cannot write format ") + to_string(f) + " (isocheck writes jsonl and hdf5)");
  }
}

Format format_from_extension(const std::string& path) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return Format::unknown;
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == "jsonl" || ext == "json") return Format::jsonl;
  if (ext == "h5" || ext == "hdf5") return Format::hdf5;
  return Format::unknown;
}

const char* to_string(Format f) {
  switch (f) {
    case Format::jsonl: return "jsonl";
    case Format::hdf5: return "hdf5";
    case Format::elle_edn: return "elle-edn";
    case Format::elle_json: return "elle-json";
    case Format::cobra: return "cobra";
    case Format::dbcop: return "dbcop";
    case Format::dbcop_json: return "dbcop-json";
    case Format::dbcop_text: return "dbcop-text";
    case Format::polysi: return "polysi";
    case Format::unknown: return "unknown";
  }
  return "unknown";
}

}  // namespace isocheck
