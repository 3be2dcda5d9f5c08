// Importers for the history formats other checkers use: Elle/Jepsen EDN and
// elle-cli JSON, Cobra client logs, dbcop (bincode, YAML, JSON, .hist text),
// PolySI/IsoVista text. Every importer produces the one History model; what a
// format holds that the model does not (nemesis ops, failed events, ...) is
// counted in ImportStats, never dropped silently. docs/importers.md has the
// mapping of each format.
#pragma once
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "core/history.h"
#include "io/sink.h"

namespace isocheck {

struct ImportStats {
  std::string format;       // what was read, e.g. "elle-edn (list-append)"
  uint64_t records = 0;     // operation maps / lines / log records / events read
  uint64_t txns = 0;        // transactions in the resulting history
  // Records that did not become part of the history, by reason.
  std::map<std::string, uint64_t> skipped;
  // Records imported under an interpretation worth telling (e.g. "nil reads of
  // list-append taken as empty lists"), by reason.
  std::map<std::string, uint64_t> notes;

  uint64_t skipped_total() const;
  // Human text: one line per reason, "" when there is nothing to tell.
  std::string describe() const;
};

// The format of `path`: by extension first (.edn, .bincode, .yaml/.yml, .hist,
// .jsonl, .h5/.hdf5, .log, a folder of T<n>.log = cobra), then by content for
// ambiguous or unknown extensions (.json: elle-cli JSON, dbcop JSON or isocheck
// JSONL; .txt: PolySI/IsoVista text or dbcop .hist). Format::unknown when
// nothing fits; throws InputError when the path cannot be read.
Format sniff_format(const std::string& path);

// True for the formats import_history() reads (every Format except jsonl, hdf5
// and unknown).
bool is_import_format(Format f);

// Stable names for --format and messages: "elle-edn", "elle-json", "cobra",
// "dbcop", "dbcop-json", "dbcop-text", "polysi", "jsonl", "hdf5".
const char* import_format_name(Format f);
// Inverse of import_format_name (also accepts "edn", "elle", "isovista",
// "dbcop-hist"); Format::unknown when the name is not known.
Format import_format_from_name(std::string_view name);

// Reads `path` in format `f` (Format::jsonl is read with read_jsonl too). Throws
// InputError naming the file and line or byte offset on malformed input;
// UsageError for Format::hdf5/unknown. `stats`, when given, receives the counts.
History import_history(const std::string& path, Format f, ImportStats* stats = nullptr);

// In-memory entry points (tests and fuzzing). `name` is used in error messages.
History parse_elle_edn(std::string_view text, const std::string& name, ImportStats* stats = nullptr);
History parse_elle_json(std::string_view text, const std::string& name, ImportStats* stats = nullptr);
History parse_polysi_text(std::string_view text, const std::string& name, ImportStats* stats = nullptr);
History parse_dbcop_bincode(std::string_view bytes, const std::string& name, ImportStats* stats = nullptr);
History parse_dbcop_yaml(std::string_view text, const std::string& name, ImportStats* stats = nullptr);
History parse_dbcop_json(std::string_view text, const std::string& name, ImportStats* stats = nullptr);
History parse_dbcop_text(std::string_view text, const std::string& name, ImportStats* stats = nullptr);

// One Cobra client log: its session number (n of T<n>.log), a name for error
// messages, and its bytes.
struct CobraLog {
  int64_t session;
  std::string name;
  std::string_view bytes;
};
History parse_cobra_logs(std::span<const CobraLog> logs, ImportStats* stats = nullptr);

}  // namespace isocheck
