// Elle / Jepsen histories: one operation map per line (or one vector of maps),
// :invoke followed by its completion (:ok committed, :fail aborted, :info
// unknown). The same builder reads the elle-cli JSON form (import_elle_json.cpp).
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "io/import_common.h"

namespace isocheck {
namespace imp {
namespace {

constexpr int64_t kEndOfHistory = INT64_MAX;  // placeholder, fixed in finish()

struct Pending {
  int64_t id;
  int64_t pos;
  uint32_t line;
  Node value;
};

class ElleBuilder {
 public:
  ElleBuilder(const std::string& name, ImportStats& st) : name_(name), st_(st) {}

  void op(Node& m) {
    ++st_.records;
    int64_t pos = pos_++;
    if (m.t != Node::T::map) fail_line(name_, m.line, "expected an operation map {...}, found " + std::string(kind_name(m.t)));
    const Node* type = m.get("type");
    if (!type) fail_line(name_, m.line, "the operation has no :type");
    enum { invoke, ok, fail, info } kind;
    if (type->is("invoke")) kind = invoke;
    else if (type->is("ok")) kind = ok;
    else if (type->is("fail")) kind = fail;
    else if (type->is("info")) kind = info;
    else fail_line(name_, m.line, ":type must be :invoke, :ok, :fail or :info, not " + type->brief());

    const Node* process = m.get("process");
    int64_t proc = kNoProcess;
    if (process && process->t == Node::T::integer) {
      proc = process->i;
      if (proc == kNoProcess) fail_line(name_, m.line, ":process " + std::to_string(proc) + " is reserved");
    } else if (process && process->t != Node::T::nil) {
      ++st_.skipped["operations of a process that is not a client (" + process->brief() + ")"];
      return;
    } else {
      ++no_process_;
    }

    const Node* f = m.get("f");
    if (!f || f->t == Node::T::nil) {
      ++st_.notes["operations without :f (taken as :txn)"];
    } else if (!f->is("txn")) {
      ++st_.skipped["operations with :f " + f->brief() + " (only :txn is a transaction)"];
      return;
    }

    const Node* index = m.get("index");
    if (index && index->t != Node::T::integer && index->t != Node::T::nil)
      fail_line(name_, m.line, ":index must be an integer, not " + index->brief());
    int64_t id = (index && index->t == Node::T::integer) ? index->i : pos;

    Node* value = const_cast<Node*>(m.get("value"));
    if (kind == invoke) {
      auto [it, fresh] = pending_.try_emplace(proc);
      if (!fresh)
        fail_line(name_, m.line, "process " + proc_text(proc) + " invoked an operation before its operation invoked on line " +
                                     std::to_string(it->second.line) + " completed");
      it->second.id = id;
      it->second.pos = pos;
      it->second.line = m.line;
      if (value) it->second.value = std::move(*value);
      return;
    }

    TxnStatus status = kind == ok ? TxnStatus::committed : kind == fail ? TxnStatus::aborted : TxnStatus::unknown;
    auto it = pending_.find(proc);
    int64_t begin = kNoTime, end = kNoTime;
    Node inv_value;
    if (it != pending_.end()) {
      id = it->second.id;
      begin = it->second.pos;
      end = kind == info ? kEndOfHistory : pos;
      inv_value = std::move(it->second.value);
      pending_.erase(it);
    } else {
      ++st_.notes["completions without an invocation (transaction without times)"];
    }
    const Node* ops = nullptr;
    if (value && value->is_seq()) ops = value;
    else if (kind != ok && inv_value.is_seq()) ops = &inv_value;
    if (!ops) {
      if (kind == ok || (value && value->t != Node::T::nil))
        fail_line(name_, m.line, ":value of a :txn operation must be a vector of micro-operations, not " +
                                     std::string(value ? kind_name(value->t) : "absent"));
      ops = &empty_;
    }
    emit(id, proc, status, begin, end, *ops, m.line);
  }

  History finish(const char* format) {
    // Invocations that never completed: outcome unknown, in invocation order.
    std::vector<std::pair<int64_t, Pending*>> left;
    for (auto& [proc, p] : pending_) left.emplace_back(proc, &p);
    std::sort(left.begin(), left.end(), [](auto& a, auto& b) { return a.second->pos < b.second->pos; });
    for (auto& [proc, p] : left) {
      ++st_.notes["invocations that never completed (outcome unknown, like :info)"];
      const Node& ops = p->value.is_seq() ? p->value : empty_;
      emit(p->id, proc, TxnStatus::unknown, p->pos, kEndOfHistory, ops, p->line);
    }
    for (auto& e : h_.txn_end)
      if (e == kEndOfHistory) e = pos_;
    if (saw_w_ && (saw_append_ || saw_list_read_))
      throw InputError(name_, "the history mixes rw-register writes [:w k v] with list-append operations");
    bool list_model = saw_append_ || saw_list_read_;
    if (list_model) {
      uint64_t n = 0;
      for (auto& k : h_.op_kind)
        if (k == OpKind::read) {
          k = OpKind::read_list;
          ++n;
        }
      for (OpIdx o = 0; o < h_.op_count(); ++o)
        if (h_.op_kind[o] == OpKind::read_list && h_.op_list_offset[o] == h_.op_list_offset[o + 1]) h_.op_value[o] = 0;
      if (n) st_.notes["nil reads of list-append taken as reads of the empty list"] += n;
    }
    if (no_process_ > 0) {
      int64_t fresh = 0;
      for (size_t s = 0; s < h_.session_name.size(); ++s)
        if (h_.session_name[s] != kNoProcess) fresh = std::max(fresh, h_.session_name[s] + 1);
      for (auto& s : h_.session_name)
        if (s == kNoProcess) s = fresh;
      st_.notes["operations without :process (one session, numbered " + std::to_string(fresh) + ")"] += no_process_;
    }
    st_.format = std::string(format) + (list_model ? " (list-append)" : " (rw-register)");
    st_.txns = h_.txn_count();
    return std::move(h_);
  }

 private:
  static constexpr int64_t kNoProcess = INT64_MIN;

  static std::string proc_text(int64_t p) { return p == kNoProcess ? "(none)" : std::to_string(p); }

  Sym key_sym(const Node& k, uint32_t line) {
    switch (k.t) {
      case Node::T::integer: return in_.key_int(k.i);
      case Node::T::string:
      case Node::T::keyword:
      case Node::T::symbol:
      case Node::T::number: return in_.key_str(k.s);
      default: fail_line(name_, line, "a key must be an integer, string or keyword, not " + std::string(kind_name(k.t)));
    }
  }

  Sym value_sym(const Node& v, uint32_t line) {
    switch (v.t) {
      case Node::T::integer:
        if (!in_.value_int_ok(v.i)) fail_line(name_, line, "the value " + std::to_string(v.i) + " is reserved");
        return in_.value_int(v.i);
      case Node::T::string:
      case Node::T::keyword:
      case Node::T::symbol:
      case Node::T::number: return in_.value_str(v.s);
      default: fail_line(name_, line, "a value must be an integer, string or keyword, not " + std::string(kind_name(v.t)));
    }
  }

  void emit(int64_t id, int64_t proc, TxnStatus status, int64_t begin, int64_t end, const Node& ops, uint32_t line) {
    if (!ids_.insert(id).second)
      fail_line(name_, line, "transaction id " + std::to_string(id) + " (the :index of its invocation) is used twice");
    h_.begin_txn(id, sessions_.index(proc), status, begin, end);
    size_t n = 0;
    for (const Node& mop : ops.items) {
      std::string at = "micro-operation " + std::to_string(n++) + ": ";
      if (!mop.is_seq() || mop.items.size() != 3)
        fail_line(name_, mop.line ? mop.line : line, at + "expected [f key value], found " + mop.brief());
      const Node& f = mop.items[0];
      const Node& k = mop.items[1];
      const Node& v = mop.items[2];
      uint32_t l = mop.line ? mop.line : line;
      if (f.is("append")) {
        saw_append_ = true;
        Sym key = key_sym(k, l);
        if (v.t == Node::T::nil) fail_line(name_, l, at + "cannot append nil");
        h_.add_op(OpKind::append, key, value_sym(v, l));
      } else if (f.is("w")) {
        saw_w_ = true;
        Sym key = key_sym(k, l);
        if (v.t == Node::T::nil) fail_line(name_, l, at + "cannot write nil");
        h_.add_op(OpKind::write, key, value_sym(v, l));
      } else if (f.is("r")) {
        Sym key = key_sym(k, l);
        if (status != TxnStatus::committed) {
          ++st_.skipped["reads of :fail/:info transactions (their values are unknown)"];
          continue;
        }
        if (v.t == Node::T::nil) {
          h_.add_op(OpKind::read, key, kNullValue);
        } else if (v.is_seq()) {
          saw_list_read_ = true;
          scratch_.clear();
          for (const Node& x : v.items) scratch_.push_back(value_sym(x, l));
          h_.add_list_read(key, scratch_);
        } else {
          h_.add_op(OpKind::read, key, value_sym(v, l));
        }
      } else {
        fail_line(name_, l, at + "unknown micro-operation " + f.brief() + " (expected :append, :r or :w)");
      }
    }
    h_.end_txn();
  }

  const std::string& name_;
  ImportStats& st_;
  History h_;
  Interner in_{h_};
  Sessions sessions_{h_};
  std::unordered_map<int64_t, Pending> pending_;
  std::unordered_set<int64_t> ids_;
  std::vector<Sym> scratch_;
  Node empty_{Node::T::vector};
  int64_t pos_ = 0;
  uint64_t no_process_ = 0;
  bool saw_w_ = false, saw_append_ = false, saw_list_read_ = false;
};

}  // namespace

History elle_from_ops(const std::function<bool(Node&)>& next, const std::string& name, ImportStats& st,
                      const char* format) {
  ElleBuilder b(name, st);
  Node m;
  while (next(m)) b.op(m);
  return b.finish(format);
}

}  // namespace imp

History parse_elle_edn(std::string_view text, const std::string& name, ImportStats* stats) {
  ImportStats local;
  ImportStats& st = stats ? *stats : local;
  imp::EdnStream in(text, name);
  return imp::elle_from_ops([&](imp::Node& n) { return in.next(n); }, name, st, "elle-edn");
}

}  // namespace isocheck
