#include "io/sink.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <fstream>

#include "core/errors.h"
#include "io/hdf5.h"
#include "io/jsonl_stream.h"
#include "io/output_file.h"

namespace isocheck {
namespace {

// Lines go out chunk by chunk; each chunk is rendered with its own symbol
// tables, so named and integer chunks mix freely.
class JsonlSink final : public HistorySink {
 public:
  // Writes `path`; messages name `shown` (the destination of a temporary file).
  JsonlSink(const std::string& path, const std::string& shown, const std::string& time_unit) : path_(shown) {
    errno = 0;
    out_.open(path, std::ios::binary | std::ios::trunc);
    if (!out_) throw_write_error("output", shown, errno ? errno : EIO);
    write_jsonl_header(time_unit, out_);
    check();
  }
  void append(const History& chunk) override {
    errno = 0;
    write_jsonl_txns(chunk, out_, false);
    check();
  }
  void finish() override {
    errno = 0;
    out_.close();
    check();
  }

 private:
  void check() {
    // The stream keeps no error code; errno still holds the failed write's.
    if (out_.fail()) throw_write_error("output", path_, errno ? errno : EIO);
  }
  std::string path_;
  std::ofstream out_;
};

// Every sink writes a temporary file beside its destination and renames it
// into place in finish(): an output that fails or is abandoned halfway leaves
// the destination as it was (io/output_file.h).
class AtomicSink final : public HistorySink {
 public:
  AtomicSink(const std::string& path, Format f, const std::string& time_unit) : dest_(path), file_(path, "output") {
    file_.close_fd();  // the format's writer opens the file by name
    if (f == Format::jsonl) inner_ = std::make_unique<JsonlSink>(file_.path(), path, time_unit);
    else inner_ = open_hdf5_sink(file_.path(), time_unit);
  }
  void append(const History& chunk) override {
    named([&] { inner_->append(chunk); });
  }
  void finish() override {
    named([&] {
      inner_->finish();
      inner_.reset();
    });
    file_.commit();
  }

 private:
  // The format's errors name the file it writes: say the destination instead.
  template <class F> void named(F&& f) {
    try {
      f();
    } catch (const InputError& e) {
      std::string m = e.what(), tmp = file_.path() + ": ";
      if (m.rfind(tmp, 0) != 0) throw;
      throw InputError(dest_, m.substr(tmp.size()));
    }
  }
  std::string dest_;
  AtomicOutput file_;                  // destroyed last: removes an unfinished temporary file
  std::unique_ptr<HistorySink> inner_;
};

}  // namespace

std::unique_ptr<HistorySink> open_sink(const std::string& path, Format f, const std::string& time_unit) {
  switch (f) {
    case Format::jsonl:
    case Format::hdf5: return std::make_unique<AtomicSink>(path, f, time_unit);
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
