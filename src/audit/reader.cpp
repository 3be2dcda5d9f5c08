#include "audit/reader.h"

#include <sys/stat.h>

#include <cstdio>
#include <vector>

#include "audit/pass1.h"
#include "audit/written.h"
#include "core/errors.h"
#include "core/predicates.h"
#include "io/hdf5.h"
#include "io/import.h"
#include "io/jsonl.h"
#include "io/sink.h"
#include "io/txn_reader.h"

namespace isocheck {

LogReader::LogReader(const std::string& path, const std::string& format) : path_(path) {
  Format f = Format::unknown;
  if (format != "auto") {
    f = import_format_from_name(format);
    if (f == Format::unknown) throw UsageError("--format: unknown format \"" + format + "\"");
  }
  // (by extension, then content: a .json file may be JSONL, elle-cli or dbcop JSON)
  if (f == Format::unknown) f = sniff_format(path);
  if (f == Format::unknown)
    throw UsageError(path + ": cannot tell the history format (use --format)");
  hdf5_ = f == Format::hdf5;
  if (hdf5_) {
    file_ = std::make_unique<Hdf5RangeReader>(path);
    total_ = file_->txn_count();
    return;
  }
  if (f == Format::jsonl) {
    jsonl_ = std::make_unique<JsonlReader>(path);
    pos_ = {0, jsonl_->byte(), jsonl_->line()};
    return;
  }
  src_ = open_txn_reader(path, f);
  const TxnPosition p = src_->position();
  pos_ = {p.txn, p.byte, p.line};
}

History LogReader::next_predicates(uint64_t n, PredicateList& preds) {
  History h = jsonl_->next(n, preds);
  pos_ = {pos_.txn + h.txn_count(), jsonl_->byte(), jsonl_->line()};
  return h;
}

History LogReader::next(uint64_t n) {
  if (hdf5_) {
    uint64_t last = std::min<uint64_t>(total_, pos_.txn + n);
    if (pos_.txn >= last) return History{};
    History h = file_->range(pos_.txn, last);
    // A scan's open absence (mark 4), or an insert's (mark 6), is placed
    // against the whole history's versions of its key; rounds that forget
    // versions cannot place it.
    if (!h.absent_choice_ops.empty()) {
      const bool insert = h.is_insert_choice(h.absent_choice_ops.front());
      throw ResourceError("not decided by audit: " + path_ + ", transactions " + std::to_string(pos_.txn) + " to " +
                          std::to_string(last - 1) +
                          (insert ? ": an insert required absent a key another transaction deletes (mark 6 in "
                                    "/op/scan: which absent version it saw is open); the audit's rounds do not place "
                                    "such inserts, isocheck verify on one process does"
                                  : ": a range scan saw absent a key another transaction deletes (mark 4 in /op/scan: "
                                    "which absent version it saw is open); the audit's rounds do not place such scans, "
                                    "isocheck verify on one process does"));
    }
    pos_.txn = last;
    return h;
  }
  if (jsonl_) {
    PredicateList preds;
    History h = next_predicates(n, preds);
    if (preds.ops.empty()) return h;
    if (!pred_keys_) throw std::logic_error("audit: a JSONL round with scans, inserts or deletes, read without pass 1's keys");
    return pred_keys_->expand(std::move(h), preds, path_);
  }
  History h = src_->next(n);
  const TxnPosition p = src_->position();
  pos_ = {p.txn, p.byte, p.line};
  return h;
}

History LogReader::next_hashed(uint64_t n) {
  if (jsonl_ && !pred_keys_) {
    History h = jsonl_->next_hashed(n);
    pos_ = {pos_.txn + h.txn_count(), jsonl_->byte(), jsonl_->line()};
    return h;
  }
  History h = next(n);
  const SymbolTable &keys = key_table(h), &values = value_table(h);
  SymHashCache kh, vh;
  for (OpIdx o = 0; o < h.op_count(); ++o) {
    h.op_key[o] = kh.get(keys, h.op_key[o]);
    if (h.op_kind[o] != OpKind::read_list && h.op_value[o] != kNullValue) h.op_value[o] = vh.get(values, h.op_value[o]);
  }
  for (Sym& v : h.list_value) v = vh.get(values, v);
  h.keys = SymbolTable{}, h.values = SymbolTable{};
  return h;
}

History LogReader::next_scan(uint64_t n, const std::string& fence_key) {
  if (hdf5_) return next(n);
  if (jsonl_) {
    History h = jsonl_->next_scan(n, fence_key);
    pos_ = {pos_.txn + h.txn_count(), jsonl_->byte(), jsonl_->line()};
    return h;
  }
  History h = src_->next_scan(n, fence_key);
  const TxnPosition p = src_->position();
  pos_ = {p.txn, p.byte, p.line};
  return h;
}

void LogReader::seek(const LogPosition& p) {
  pos_ = p;
  if (jsonl_) jsonl_->seek(p.byte, p.line);
  else if (!hdf5_) src_->seek(TxnPosition{p.txn, p.byte, p.line});
}

std::shared_ptr<const LogPredicateKeys> log_predicate_keys(const std::string& path, const std::string& format,
                                                           uint64_t piece) {
  LogReader r(path, format);
  if (!r.jsonl() || !jsonl_may_hold_predicates(path)) return nullptr;
  auto keys = std::make_shared<LogPredicateKeys>();
  while (true) {
    PredicateList preds;
    History h = r.next_predicates(piece, preds);
    if (h.txn_count() == 0) break;
    keys->add(h, preds);
  }
  keys->finish();
  if (!keys->any()) return nullptr;
  return keys;
}

std::string file_fingerprint(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "missing";
  uint64_t h = 1469598103934665603ULL;
  auto feed = [&](const char* p, size_t n) {
    for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 1099511628211ULL;
  };
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    std::vector<char> buf(1 << 20);
    size_t n = std::fread(buf.data(), 1, buf.size(), f);
    feed(buf.data(), n);
    if (st.st_size > static_cast<off_t>(buf.size())) {
      std::fseek(f, -static_cast<long>(buf.size()), SEEK_END);
      n = std::fread(buf.data(), 1, buf.size(), f);
      feed(buf.data(), n);
    }
    std::fclose(f);
  }
  char out[96];
  std::snprintf(out, sizeof out, "size=%lld mtime=%lld fnv=%016llx", static_cast<long long>(st.st_size),
                static_cast<long long>(st.st_mtime), static_cast<unsigned long long>(h));
  return out;
}

}  // namespace isocheck
