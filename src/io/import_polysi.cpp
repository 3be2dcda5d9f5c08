// PolySI / IsoVista text: one operation per line, r(key,value,session,txn) or
// w(key,value,session,txn). Operations of a transaction are in program order
// and may interleave with other sessions' lines. Value 0 is the initial state;
// IsoVista writes a transaction id of -1 for an aborted write.
//
// Read a line at a time: a transaction is complete when its session's next
// transaction starts (or the input ends), and is handed out then. What the
// format makes a reader remember: each session's open transaction (its
// operations) and every transaction id seen with its session, since an id
// may not come back in another session or after its session moved on.
#include <charconv>
#include <unordered_map>
#include <vector>

#include "core/flat_hash.h"
#include "io/import_common.h"

namespace isocheck {
namespace {

struct RawOp {
  bool write;
  int64_t key, value;
};

struct Open {
  bool active = false;
  int64_t id = 0;
  std::vector<RawOp> ops;
};

struct PerSession {
  Open txn;      // the session's current transaction
  Open aborted;  // a run of IsoVista aborted writes (txn id -1)
};

class PolysiPass : public imp::ImportPass {
 public:
  PolysiPass(std::string_view text, const std::string& name, ImportStats& st, bool whole)
      : own_(text), win_(own_), name_(name), st_(st), whole_(whole) {}
  PolysiPass(const std::string& path, ImportStats& st, size_t block, bool whole)
      : file_(std::make_unique<imp::TextWindow>(path, block)), win_(*file_), name_(path), st_(st), whole_(whole) {}

  bool step(History& out) override {
    const uint64_t before = out.txn_count();
    std::string_view l;
    while (out.txn_count() == before) {
      if (!next_line(l)) {
        if (flushed_) return false;
        flushed_ = true;
        for (int64_t s : session_order_) {
          PerSession& ps = per_[s];
          emit(out, s, ps.txn, TxnStatus::committed);
          if (ps.aborted.active) {
            ++st_.notes["aborted transactions made of runs of writes with transaction id -1"];
            emit(out, s, ps.aborted, TxnStatus::aborted);
          }
        }
        open_ops_ = 0;
        return out.txn_count() > before;
      }
      line_op(out, l);
    }
    return true;
  }
  void new_piece(const History& out) override { sessions_.reset(out); }
  void settle(History& h, const imp::ZeroKeys* written) override {
    if (written) imp::apply_zero_is_initial(h, st_, *written);
    else imp::apply_zero_is_initial(h, st_);
  }
  std::string format_name() const override { return "polysi-text"; }
  size_t held_bytes() const override { return win_.held_bytes(); }
  uint64_t held_records() const override { return open_ops_; }
  uint64_t held_ids() const override { return txn_session_.size(); }

 private:
  // The next line (without its '\n'); false at the end of the input.
  bool next_line(std::string_view& l) {
    for (;;) {
      std::string_view text = win_.text();
      if (pos_ < text.size()) {
        size_t nl = text.find('\n', pos_);
        if (nl != std::string_view::npos || win_.final()) {
          if (nl == std::string_view::npos) nl = text.size();
          l = text.substr(pos_, nl - pos_);
          pos_ = nl + 1;
          ++line_;
          return true;
        }
      } else if (win_.final()) {
        return false;
      }
      win_.more(std::min(pos_, text.size()));
      pos_ = 0;
    }
  }

  void emit(History& out, int64_t session, Open& o, TxnStatus status) {
    if (!o.active) return;
    o.active = false;
    open_ops_ -= o.ops.size();
    bool only_zero = !o.ops.empty() && status == TxnStatus::committed;
    for (const RawOp& r : o.ops) only_zero &= r.write && r.value == 0;
    if (only_zero) {
      ++st_.skipped["transactions that only write value 0 (the initial state)"];
      o.ops.clear();
      return;
    }
    out.begin_txn(o.id, sessions_.index(out, session), status, kNoTime, kNoTime);
    for (const RawOp& r : o.ops)
      out.add_op(r.write ? OpKind::write : OpKind::read, out.keys.intern_int(r.key), out.values.intern_int(r.value));
    out.end_txn();
    o.ops.clear();
  }

  void line_op(History& out, std::string_view l) {
    auto fail = [&](const std::string& what) { imp::fail_line(name_, line_, what); };
    size_t i = 0;
    auto ws = [&]() { while (i < l.size() && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r')) ++i; };
    ws();
    if (i == l.size()) return;  // blank line
    char kind = l[i];
    if (kind != 'r' && kind != 'w') fail("expected r(key,value,session,txn) or w(key,value,session,txn)");
    ++i;
    ws();
    if (i >= l.size() || l[i] != '(') fail("expected '(' after '" + std::string(1, kind) + "'");
    ++i;
    int64_t f[4];
    static const char* const names[4] = {"key", "value", "session", "transaction id"};
    for (int k = 0; k < 4; ++k) {
      ws();
      auto [p, ec] = std::from_chars(l.data() + i, l.data() + l.size(), f[k]);
      if (ec != std::errc()) fail(std::string("expected an integer ") + names[k]);
      i = static_cast<size_t>(p - l.data());
      ws();
      char want = k < 3 ? ',' : ')';
      if (i >= l.size() || l[i] != want) fail(std::string("expected '") + want + "' after the " + names[k]);
      ++i;
    }
    ws();
    if (i != l.size()) fail("unexpected text after ')'");
    ++st_.records;
    bool write = kind == 'w';
    int64_t key = f[0], value = f[1], session = f[2], txn = f[3];
    if (static_cast<Sym>(value) == kNullValue) fail("the value " + std::to_string(value) + " is reserved");

    auto [it, fresh] = per_.try_emplace(session);
    PerSession& ps = it->second;
    if (fresh) {
      // One history numbers its sessions by first appearance; a piece by
      // its first transaction of the session.
      if (whole_) sessions_.index(out, session);
      session_order_.push_back(session);
    }
    if (txn < -1) fail("a transaction id must be >= 0 (or -1 for an aborted write), not " + std::to_string(txn));
    if (txn == -1) {
      if (!write) {
        ++st_.skipped["reads with transaction id -1 (aborted)"];
        return;
      }
      if (!ps.aborted.active) {
        ps.aborted.active = true;
        ps.aborted.id = next_aborted_id_--;
      }
      ps.aborted.ops.push_back({true, key, value});
      ++open_ops_;
      return;
    }
    bool same = ps.txn.active && ps.txn.id == txn;
    if (!same) emit(out, session, ps.txn, TxnStatus::committed);
    if (ps.aborted.active) {
      ++st_.notes["aborted transactions made of runs of writes with transaction id -1"];
      emit(out, session, ps.aborted, TxnStatus::aborted);
    }
    if (!same) {
      bool first = false;
      const int64_t was = static_cast<int64_t>(
          txn_session_.get_or_insert(static_cast<uint64_t>(txn), static_cast<uint64_t>(session), first));
      if (!first) {
        if (was != session)
          fail("transaction " + std::to_string(txn) + " appears in sessions " + std::to_string(was) + " and " +
               std::to_string(session));
        fail("transaction " + std::to_string(txn) + " continues after session " + std::to_string(session) +
             " started another transaction");
      }
      ps.txn.active = true;
      ps.txn.id = txn;
    }
    ps.txn.ops.push_back({write, key, value});
    ++open_ops_;
  }

  imp::TextWindow own_{std::string_view()};
  std::unique_ptr<imp::TextWindow> file_;
  imp::TextWindow& win_;
  std::string name_;
  ImportStats& st_;
  bool whole_;
  size_t pos_ = 0;
  uint32_t line_ = 0;
  bool flushed_ = false;
  imp::PieceSessions sessions_;
  std::unordered_map<int64_t, PerSession> per_;
  std::vector<int64_t> session_order_;                // for a deterministic flush at the end
  FlatMap64 txn_session_;  // txn id -> session, for duplicate checks (16 bytes an id at most 2/3 full)
  int64_t next_aborted_id_ = -1;
  uint64_t open_ops_ = 0;
};

}  // namespace

namespace imp {
std::unique_ptr<ImportPass> open_polysi_pass(const std::string& path, ImportStats& st, size_t block, bool whole) {
  return std::make_unique<PolysiPass>(path, st, block, whole);
}
}  // namespace imp

History parse_polysi_text(std::string_view text, const std::string& name, ImportStats* stats) {
  ImportStats local;
  ImportStats& st = stats ? *stats : local;
  PolysiPass p(text, name, st, true);
  return imp::run_whole(p, st);
}

}  // namespace isocheck
