// PolySI / IsoVista text: one operation per line, r(key,value,session,txn) or
// w(key,value,session,txn). Operations of a transaction are in program order
// and may interleave with other sessions' lines. Value 0 is the initial state;
// IsoVista writes a transaction id of -1 for an aborted write.
#include <charconv>
#include <unordered_map>
#include <vector>

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
  uint32_t index;
  Open txn;      // the session's current transaction
  Open aborted;  // a run of IsoVista aborted writes (txn id -1)
};

}  // namespace

History parse_polysi_text(std::string_view text, const std::string& name, ImportStats* stats) {
  ImportStats local;
  ImportStats& st = stats ? *stats : local;
  History h;
  imp::Sessions sessions{h};
  std::unordered_map<int64_t, PerSession> per;
  std::vector<int64_t> session_order;                 // for a deterministic flush at the end
  std::unordered_map<int64_t, int64_t> txn_session;  // txn id -> session, for duplicate checks
  int64_t next_aborted_id = -1;
  uint32_t line = 0;

  auto emit = [&](PerSession& ps, Open& o, TxnStatus status) {
    if (!o.active) return;
    o.active = false;
    bool only_zero = !o.ops.empty() && status == TxnStatus::committed;
    for (const RawOp& r : o.ops) only_zero &= r.write && r.value == 0;
    if (only_zero) {
      ++st.skipped["transactions that only write value 0 (the initial state)"];
      o.ops.clear();
      return;
    }
    h.begin_txn(o.id, ps.index, status, kNoTime, kNoTime);
    for (const RawOp& r : o.ops)
      h.add_op(r.write ? OpKind::write : OpKind::read, h.keys.intern_int(r.key), h.values.intern_int(r.value));
    h.end_txn();
    o.ops.clear();
  };

  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view l = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line;
    auto fail = [&](const std::string& what) { imp::fail_line(name, line, what); };
    size_t i = 0;
    auto ws = [&]() { while (i < l.size() && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r')) ++i; };
    ws();
    if (i == l.size()) continue;  // blank line
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
    ++st.records;
    bool write = kind == 'w';
    int64_t key = f[0], value = f[1], session = f[2], txn = f[3];
    if (static_cast<Sym>(value) == kNullValue) fail("the value " + std::to_string(value) + " is reserved");

    auto [it, fresh] = per.try_emplace(session);
    PerSession& ps = it->second;
    if (fresh) {
      ps.index = sessions.index(session);
      session_order.push_back(session);
    }
    if (txn < -1) fail("a transaction id must be >= 0 (or -1 for an aborted write), not " + std::to_string(txn));
    if (txn == -1) {
      if (!write) {
        ++st.skipped["reads with transaction id -1 (aborted)"];
        continue;
      }
      if (!ps.aborted.active) {
        ps.aborted.active = true;
        ps.aborted.id = next_aborted_id--;
      }
      ps.aborted.ops.push_back({true, key, value});
      continue;
    }
    bool same = ps.txn.active && ps.txn.id == txn;
    if (!same) emit(ps, ps.txn, TxnStatus::committed);
    if (ps.aborted.active) {
      ++st.notes["aborted transactions made of runs of writes with transaction id -1"];
      emit(ps, ps.aborted, TxnStatus::aborted);
    }
    if (!same) {
      auto [t, first] = txn_session.try_emplace(txn, session);
      if (!first) {
        if (t->second != session)
          fail("transaction " + std::to_string(txn) + " appears in sessions " + std::to_string(t->second) + " and " +
               std::to_string(session));
        fail("transaction " + std::to_string(txn) + " continues after session " + std::to_string(session) +
             " started another transaction");
      }
      ps.txn.active = true;
      ps.txn.id = txn;
    }
    ps.txn.ops.push_back({write, key, value});
  }
  for (int64_t s : session_order) {
    PerSession& ps = per[s];
    emit(ps, ps.txn, TxnStatus::committed);
    if (ps.aborted.active) {
      ++st.notes["aborted transactions made of runs of writes with transaction id -1"];
      emit(ps, ps.aborted, TxnStatus::aborted);
    }
  }
  imp::apply_zero_is_initial(h, st);
  st.format = "polysi-text";
  st.txns = h.txn_count();
  return h;
}

}  // namespace isocheck
