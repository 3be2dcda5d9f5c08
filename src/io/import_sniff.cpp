// Format detection and the import_history() dispatcher.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "io/import_common.h"
#include "io/jsonl.h"
#include "io/txn_reader.h"

namespace isocheck {
namespace fs = std::filesystem;
namespace {

std::string lower_ext(const std::string& path) {
  std::string e = fs::path(path).extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e;
}

std::string head(const std::string& path, size_t n) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path, "cannot open the file");
  std::string s(n, '\0');
  f.read(s.data(), static_cast<std::streamsize>(n));
  s.resize(static_cast<size_t>(f.gcount()));
  return s;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ','; }

// The first JSON object key after position p (which is at '{'), or "".
std::string first_key(std::string_view s, size_t p) {
  ++p;
  while (p < s.size() && is_space(s[p])) ++p;
  if (p >= s.size() || s[p] != '"') return "";
  size_t e = s.find('"', p + 1);
  if (e == std::string_view::npos) return "";
  return std::string(s.substr(p + 1, e - p - 1));
}

Format json_kind(std::string_view s, size_t brace) {
  std::string k = first_key(s, brace);
  if (k == "isocheck" || k == "id" || k == "session" || k == "status" || k == "ops" || k == "begin") return Format::jsonl;
  if (k == "type" || k == "process" || k == "f" || k == "value" || k == "index" || k == "time") return Format::elle_json;
  if (k == "params" || k == "data" || k == "info" || k == "events" || k == "committed") return Format::dbcop_json;
  return Format::unknown;
}

bool looks_binary(std::string_view s) { return s.find('\0') != std::string_view::npos; }

Format sniff_content(std::string_view s, uint64_t file_size) {
  if (s.substr(0, 8) == std::string_view("\x89HDF\r\n\x1a\n", 8)) return Format::hdf5;
  if (looks_binary(s)) {
    // Cobra log: 'S' txnid then a record tag (or an 8-byte timestamp).
    if (s.size() >= 9 && s[0] == 'S') return Format::cobra;
    // dbcop bincode: five u64 then the info string's u64 length.
    if (s.size() >= 48) {
      uint64_t len = 0;
      for (int k = 7; k >= 0; --k) len = (len << 8) | static_cast<unsigned char>(s[40 + k]);
      if (len < file_size) return Format::dbcop;
    }
    return Format::unknown;
  }
  size_t p = 0;
  if (s.substr(0, 3) == "\xEF\xBB\xBF") p = 3;
  for (;;) {
    while (p < s.size() && is_space(s[p])) ++p;
    if (p < s.size() && s[p] == ';') {  // EDN comment line
      while (p < s.size() && s[p] != '\n') ++p;
      return Format::elle_edn;
    }
    break;
  }
  if (p >= s.size()) return Format::unknown;
  auto next_non_space = [&](size_t q) {
    while (q < s.size() && is_space(s[q])) ++q;
    return q;
  };
  char c = s[p];
  if (c == '{') {
    size_t q = next_non_space(p + 1);
    if (q < s.size() && s[q] == ':') return Format::elle_edn;
    if (q < s.size() && s[q] == '"') return json_kind(s, p);
    return Format::unknown;
  }
  if (c == '#') return Format::elle_edn;  // a tagged literal, e.g. #jepsen.history.Op{...}
  if (c == '[' || c == '(') {
    size_t q = next_non_space(p + 1);
    if (q >= s.size()) return Format::unknown;
    if (s[q] == '{' || s[q] == '#') {
      size_t r = next_non_space(q + 1);
      if (s[q] == '#' || (r < s.size() && s[r] == ':')) return Format::elle_edn;
      return json_kind(s, q);
    }
    if (s[q] == '[') return Format::dbcop_json;
    if (c == '[' && (std::isalpha(static_cast<unsigned char>(s[q])) || s[q] == '_')) return Format::dbcop_text;
    return Format::unknown;
  }
  if ((c == 'r' || c == 'w') && p + 1 < s.size() && s[p + 1] == '(') return Format::polysi;
  if (c == '/' && p + 1 < s.size() && s[p + 1] == '/') return Format::dbcop_text;
  if (c == '-') {
    // YAML ("- - events:" or "---") or a .hist session separator ("---" then "[").
    if (s.substr(p, 2) == "- ") return Format::dbcop;
    size_t q = p;
    while (q < s.size() && s[q] == '-') ++q;
    q = next_non_space(q);
    if (q < s.size() && s[q] == '[') return Format::dbcop_text;
    return Format::dbcop;
  }
  return Format::unknown;
}

}  // namespace

bool is_import_format(Format f) {
  switch (f) {
    case Format::elle_edn:
    case Format::elle_json:
    case Format::cobra:
    case Format::dbcop:
    case Format::dbcop_json:
    case Format::dbcop_text:
    case Format::polysi: return true;
    default: return false;
  }
}

const char* import_format_name(Format f) { return to_string(f); }

Format import_format_from_name(std::string_view n) {
  for (Format f : {Format::jsonl, Format::hdf5, Format::elle_edn, Format::elle_json, Format::cobra, Format::dbcop,
                   Format::dbcop_json, Format::dbcop_text, Format::polysi})
    if (n == import_format_name(f)) return f;
  if (n == "edn" || n == "elle") return Format::elle_edn;
  if (n == "isovista" || n == "polysi-text") return Format::polysi;
  if (n == "dbcop-hist" || n == "hist") return Format::dbcop_text;
  if (n == "dbcop-bincode" || n == "dbcop-yaml" || n == "bincode") return Format::dbcop;
  if (n == "h5") return Format::hdf5;
  return Format::unknown;
}

Format sniff_format(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path, ec))
      if (e.path().extension() == ".log") return Format::cobra;
    return Format::unknown;
  }
  std::string ext = lower_ext(path);
  if (ext == ".edn") return Format::elle_edn;
  if (ext == ".bincode" || ext == ".yaml" || ext == ".yml") return Format::dbcop;
  if (ext == ".hist") return Format::dbcop_text;
  if (ext == ".jsonl") return Format::jsonl;
  if (ext == ".h5" || ext == ".hdf5") return Format::hdf5;
  if (ext == ".log") return Format::cobra;
  uint64_t size = fs::file_size(path, ec);
  if (ec) throw InputError(path, "cannot read the file: " + ec.message());
  Format f = sniff_content(head(path, 4096), size);
  if (ext == ".txt" && f != Format::polysi && f != Format::dbcop_text) return Format::unknown;
  return f;
}

History import_history(const std::string& path, Format f, ImportStats* stats) {
  ImportStats local;
  ImportStats& st = stats ? *stats : local;
  switch (f) {
    case Format::elle_edn:
    case Format::elle_json: return read_elle_file(path, f, st);  // through a window of the file
    case Format::cobra: return imp::read_cobra(path, st);  // through a buffer of each log
    case Format::polysi:
    case Format::dbcop_text:
    case Format::dbcop:
      // Through a window of the file.
      return imp::run_whole(*imp::open_import_pass(path, f, st, 8 << 20, true), st);
    case Format::dbcop_json:  // through a window of the file
      return imp::run_whole(*imp::open_import_pass(path, f, st, 8 << 20, true), st);
    case Format::jsonl: {
      History h = read_jsonl(path);
      st.format = "jsonl";
      st.records = st.txns = h.txn_count();
      return h;
    }
    case Format::hdf5: throw UsageError(path + ": HDF5 is not an import format (read it with the HDF5 reader)");
    case Format::unknown: break;
  }
  throw UsageError(path + ": unknown history format (name one with --format)");
}

}  // namespace isocheck
