#include "io/txn_reader.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include "core/errors.h"
#include "core/flat_hash.h"
#include "io/import_common.h"
#include "io/jsonl.h"

namespace isocheck {
namespace {

class JsonlTxnReader : public TxnReader {
 public:
  explicit JsonlTxnReader(const std::string& path) : r_(path) {
    stats_.format = "jsonl";
    pos_.byte = r_.byte();
    pos_.line = r_.line();
  }
  History next(uint64_t n) override { return advanced(r_.next(n)); }
  History next_scan(uint64_t n, const std::string& fence_key) override {
    return advanced(r_.next_scan(n, fence_key));
  }
  History advanced(History h) {
    pos_.txn += h.txn_count();
    pos_.byte = r_.byte();
    pos_.line = r_.line();
    stats_.records = stats_.txns = pos_.txn;
    return h;
  }
  KeyIds take_key_ids() override { return r_.take_key_ids(); }
  TxnPosition position() const override { return pos_; }
  void seek(const TxnPosition& p) override {
    r_.seek(p.byte, p.line);
    pos_ = p;
  }
  const ImportStats& stats() const override { return stats_; }
  bool streamed() const override { return true; }

 private:
  JsonlReader r_;
  TxnPosition pos_;
  ImportStats stats_;
};

// Transactions [from, to) of h, with symbol tables of their own.
History slice(const History& h, uint64_t from, uint64_t to) {
  History out;
  out.time_unit = h.time_unit;
  std::vector<uint32_t> session(h.session_count(), UINT32_MAX);
  auto sym = [](const SymbolTable& t, SymbolTable& to, History& o, bool key, Sym s) {
    Sym r;
    if (!t.named() || t.is_int(s)) {
      int64_t v = t.named() ? std::stoll(t.name(s)) : SymbolTable::as_int(s);
      r = to.intern_int(v);
    } else {
      r = to.intern_string(t.name(s));
      if (to.take_switch()) {
        if (key) o.remap_keys();
        else o.remap_values();
      }
    }
    return r;
  };
  std::vector<Sym> list;
  for (uint64_t t = from; t < to; ++t) {
    uint32_t& s = session[h.txn_session[t]];
    if (s == UINT32_MAX) {
      s = static_cast<uint32_t>(out.session_name.size());
      out.session_name.push_back(h.session_name[h.txn_session[t]]);
    }
    out.begin_txn(h.txn_id[t], s, h.txn_status[t], h.txn_begin[t], h.txn_end[t]);
    for (OpIdx o = h.op_begin(static_cast<TxnIdx>(t)); o < h.op_end(static_cast<TxnIdx>(t)); ++o) {
      const Sym k = sym(h.keys, out.keys, out, true, h.op_key[o]);
      if (h.op_kind[o] == OpKind::read_list) {
        list.clear();
        for (Sym v : h.list(o)) {
          const bool was_named = out.values.named();
          const Sym m = sym(h.values, out.values, out, false, v);
          if (!was_named && out.values.named())
            for (Sym& x : list) x = out.values.remap(x);
          list.push_back(m);
        }
        out.add_list_read(k, list);
      } else {
        const Sym v = h.op_value[o];
        out.add_op(h.op_kind[o], k, v == kNullValue ? v : sym(h.values, out.values, out, false, v));
      }
    }
    out.end_txn();
  }
  return out;
}

// The formats an import pass reads a transaction at a time (PolySI text,
// dbcop bincode, .hist, JSON and YAML). A first pass over the file (its pieces built and
// dropped) validates it, so a malformed file fails at open with the whole
// importer's message, and gathers what the value-0 rule needs of the whole
// file: the keys that a transaction that did not abort writes 0 to.
struct PassFacts {
  imp::ZeroKeys zero;
  std::string format_name;
};


// The first pass: checks the whole file (a malformed one throws here, as the
// whole import does) and gathers the keys written 0, building and dropping
// pieces; remembered per file content.
PassFacts pass_facts(const std::string& path, Format f, size_t block) {
  static std::mutex lock;
  static std::map<std::string, PassFacts> known;
  const std::string id = imp::content_id(path, f);
  if (!id.empty()) {
    std::lock_guard<std::mutex> g(lock);
    if (auto it = known.find(id); it != known.end()) return it->second;
  }
  PassFacts facts;
  ImportStats st;
  auto p = imp::open_import_pass(path, f, st, block, false);
  History h;
  while (p->step(h)) {
    if (h.txn_count() >= 4096) {
      facts.zero.collect(h);
      h = History{};
      p->new_piece(h);
    }
  }
  facts.zero.collect(h);
  facts.format_name = p->format_name();
  if (!id.empty()) {
    std::lock_guard<std::mutex> g(lock);
    known[id] = facts;
  }
  return facts;
}

class PassTxnReader : public ForwardTxnReader {
 public:
  PassTxnReader(const std::string& path, Format f, size_t block) : path_(path), format_(f), block_(block) {
    PassFacts facts = pass_facts(path, f, block);
    zero_ = std::move(facts.zero);
    format_name_ = std::move(facts.format_name);
    restart();
  }
  History next(uint64_t n) override {
    if (n == 0) return History{};
    while (stage_.txn_count() < n && !done_) done_ = !pass_->step(stage_);
    History out;
    if (stage_.txn_count() <= n) {
      out = std::move(stage_);
      stage_ = History{};
    } else {  // (a step that completed several transactions)
      out = slice(stage_, 0, n);
      stage_ = slice(stage_, n, stage_.txn_count());
    }
    pass_->new_piece(stage_);
    pass_->settle(out, &zero_);
    held_ = std::max<uint64_t>(held_, pass_->held_records() + stage_.txn_count());
    return handed_out(std::move(out));
  }
  ReaderHeld held() const override { return {pass_->held_bytes(), held_, pass_->held_ids()}; }

 private:
  void restart() override {
    stats_ = ImportStats{};
    stats_.format = format_name_;
    pass_ = imp::open_import_pass(path_, format_, stats_, block_, false);
    stage_ = History{};
    done_ = false;
    pos_ = TxnPosition{};
  }
  std::string path_;
  Format format_;
  size_t block_;
  std::string format_name_;
  imp::ZeroKeys zero_;
  std::unique_ptr<imp::ImportPass> pass_;
  History stage_;
  bool done_ = false;
  uint64_t held_ = 0;
};

// A format read whole (none now: every imported format has a streamed
// reader): the history is imported at the first piece and handed out in pieces.
class WholeTxnReader : public TxnReader {
 public:
  WholeTxnReader(const std::string& path, Format f) : path_(path), format_(f) {}
  History next(uint64_t n) override {
    load();
    const uint64_t to = std::min<uint64_t>(whole_.txn_count(), pos_.txn + n);
    History h = slice(whole_, pos_.txn, to);
    pos_.txn = to;
    return h;
  }
  TxnPosition position() const override { return pos_; }
  void seek(const TxnPosition& p) override { pos_ = p; }
  const ImportStats& stats() const override { return stats_; }
  bool streamed() const override { return false; }

 private:
  void load() {
    if (loaded_) return;
    whole_ = import_history(path_, format_, &stats_);
    loaded_ = true;
  }
  std::string path_;
  Format format_;
  bool loaded_ = false;
  History whole_;
  ImportStats stats_;
  TxnPosition pos_;
};

}  // namespace

std::unique_ptr<TxnReader> open_pass_reader(const std::string& path, Format f, size_t block) {
  if (f != Format::polysi && f != Format::dbcop && f != Format::dbcop_text && f != Format::dbcop_json)
    throw UsageError(path + ": no streamed import pass for this format");
  return std::make_unique<PassTxnReader>(path, f, block);
}

uint64_t copy_pieces(TxnReader& r, const std::string& path, uint64_t piece,
                     const std::function<std::unique_ptr<HistorySink>(const std::string& time_unit)>& open) {
  std::unique_ptr<HistorySink> sink;
  std::vector<int64_t> ids;
  uint64_t n = 0;
  std::string unit;  // (an empty input's: what its reader tells, e.g. a JSONL header's)
  for (;;) {
    History h = r.next(piece);
    if (h.txn_count() == 0) {
      unit = h.time_unit;
      break;
    }
    if (!sink) sink = open(h.time_unit);
    sink->append(h);
    ids.insert(ids.end(), h.txn_id.begin(), h.txn_id.end());
    n += h.txn_count();
  }
  std::sort(ids.begin(), ids.end());
  if (auto d = std::adjacent_find(ids.begin(), ids.end()); d != ids.end())
    throw InputError(path, "duplicate transaction id " + std::to_string(*d));
  if (!sink) sink = open(unit);
  sink->finish();
  return n;
}

std::unique_ptr<TxnReader> open_txn_reader(const std::string& path, Format f) {
  switch (f) {
    case Format::jsonl: return std::make_unique<JsonlTxnReader>(path);
    case Format::elle_edn:
    case Format::elle_json: return open_elle_reader(path, f);
    case Format::hdf5:
    case Format::unknown: break;
    case Format::polysi:
    case Format::dbcop_text:
    case Format::dbcop_json:
    case Format::dbcop: return open_pass_reader(path, f);
    case Format::cobra: return open_cobra_reader(path);
    default: return std::make_unique<WholeTxnReader>(path, f);
  }
  throw UsageError(path + ": no piece reader for this format");
}

}  // namespace isocheck
