// A history written as an Elle history (EDN, or elle-cli JSON): each
// transaction an :invoke and its completion (:ok committed, :fail aborted,
// :info unknown) by the process of its session, events in the order of the
// transactions' begin and end (completions first on a tie; in file order
// where there are no times). Tests read it back with the importers.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/history.h"

namespace isocheck::testkit {

// False when Elle cannot hold h: register writes beside appends or list
// reads, or a session whose transactions overlap in time.
inline bool elle_can_hold(const History& h) {
  bool w = false, list = false;
  for (OpKind k : h.op_kind) {
    w |= k == OpKind::write;
    list |= k == OpKind::append || k == OpKind::read_list;
  }
  if (w && list) return false;
  std::vector<int64_t> last_end(h.session_count(), INT64_MIN);
  for (TxnIdx t = 0; t < h.txn_count(); ++t) {
    if (!h.has_times(t)) continue;
    if (h.txn_begin[t] < last_end[h.txn_session[t]]) return false;
    last_end[h.txn_session[t]] = h.txn_end[t];
  }
  return true;
}

inline std::string elle_text(const History& h, bool json) {
  auto str = [&](const std::string& s) {
    std::string o = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') o += '\\';
      o += c;
    }
    return o + "\"";
  };
  auto word = [&](const char* w) { return json ? str(w) : std::string(":") + w; };
  auto sym = [&](const SymbolTable& t, Sym s) {
    if (!t.named()) return std::to_string(SymbolTable::as_int(s));
    return t.is_int(s) ? t.name(s) : str(t.name(s));
  };
  const char* nil = json ? "null" : "nil";
  auto ops = [&](TxnIdx t, bool results) {
    std::string o = "[";
    for (OpIdx i = h.op_begin(t); i < h.op_end(t); ++i) {
      if (i != h.op_begin(t)) o += json ? "," : " ";
      const OpKind k = h.op_kind[i];
      o += "[";
      o += word(k == OpKind::write ? "w" : k == OpKind::append ? "append" : "r");
      o += json ? "," : " ";
      o += sym(h.keys, h.op_key[i]);
      o += json ? "," : " ";
      if (k == OpKind::read_list) {
        if (!results) {
          o += nil;
        } else {
          o += "[";
          auto l = h.list(i);
          for (size_t j = 0; j < l.size(); ++j) o += (j ? (json ? "," : " ") : "") + sym(h.values, l[j]);
          o += "]";
        }
      } else if (k == OpKind::read && (!results || h.op_value[i] == kNullValue)) {
        o += nil;
      } else {
        o += sym(h.values, h.op_value[i]);
      }
      o += "]";
    }
    return o + "]";
  };
  struct Event {
    int64_t time;
    int kind;  // 0 completion, 1 invocation (completions first on a tie)
    TxnIdx t;
    int sub;   // a transaction of no length: invoked (0) right before it completes (1)
    bool invoke;
  };
  std::vector<Event> ev;
  for (TxnIdx t = 0; t < h.txn_count(); ++t)
    if (h.has_times(t)) {
      const bool instant = h.txn_begin[t] == h.txn_end[t];
      ev.push_back({h.txn_begin[t], instant ? 0 : 1, t, 0, true});
      ev.push_back({h.txn_end[t], 0, t, 1, false});
    }
  std::sort(ev.begin(), ev.end(), [](const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.kind != b.kind) return a.kind < b.kind;
    if (a.t != b.t) return a.t < b.t;
    return a.sub < b.sub;
  });
  // Transactions without times: invoked and completed in file order, after
  // the timed ones.
  for (TxnIdx t = 0; t < h.txn_count(); ++t)
    if (!h.has_times(t)) {
      ev.push_back({0, 1, t, 0, true});
      ev.push_back({0, 0, t, 1, false});
    }
  std::string out = json ? "[\n" : "";
  bool first = true;
  for (const Event& e : ev) {
    const TxnIdx t = e.t;
    const char* type = e.invoke ? "invoke"
                       : h.txn_status[t] == TxnStatus::committed ? "ok"
                       : h.txn_status[t] == TxnStatus::aborted   ? "fail"
                                                                 : "info";
    const std::string process = std::to_string(h.session_name[h.txn_session[t]]);
    const std::string value = ops(t, !e.invoke && h.txn_status[t] == TxnStatus::committed);
    if (json) {
      out += first ? "" : ",\n";
      out += "{\"type\":" + str(type) + ",\"process\":" + process + ",\"f\":\"txn\"";
      if (e.invoke) out += ",\"index\":" + std::to_string(h.txn_id[t]);
      out += ",\"value\":" + value + "}";
    } else {
      out += "{:type :" + std::string(type) + ", :process " + process + ", :f :txn";
      if (e.invoke) out += ", :index " + std::to_string(h.txn_id[t]);
      out += ", :value " + value + "}\n";
    }
    first = false;
  }
  if (json) out += "\n]\n";
  return out;
}

}  // namespace isocheck::testkit
