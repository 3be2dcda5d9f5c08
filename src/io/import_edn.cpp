// Elle / Jepsen histories: one operation map per line (or one vector of maps),
// :invoke followed by its completion (:ok committed, :fail aborted, :info
// unknown). The same builder reads the elle-cli JSON form (import_elle_json.cpp).

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "core/flat_hash.h"
#include "io/import_common.h"
#include "io/txn_reader.h"

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

// What only the whole file tells, and a builder that hands out pieces must
// know before the first: whether it is a list-append history (then every
// read is a list read), the session number of operations without :process,
// and the position that stands for the end of the history.
struct ElleFacts {
  bool list_model = false;
  int64_t fresh_session = 0;
  int64_t end_of_history = 0;
  uint64_t no_process = 0;
};

class ElleBuilder {
 public:
  // `facts`: known (pieces, see take_piece()), or nullptr (one history,
  // settled by finish()).
  ElleBuilder(const std::string& name, ImportStats& st, const ElleFacts* facts = nullptr)
      : name_(name), st_(st), facts_(facts) {}

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

  // Invocations that never completed: outcome unknown, in invocation order
  // (queued at the end of the input, emitted one at a time).
  void queue_open() {
    for (auto& [proc, p] : pending_) open_.emplace_back(proc, std::move(p));
    pending_.clear();
    std::sort(open_.begin(), open_.end(), [](auto& a, auto& b) { return a.second.pos > b.second.pos; });
  }
  bool emit_open() {
    if (open_.empty()) return false;
    auto& [proc, p] = open_.back();
    ++st_.notes["invocations that never completed (outcome unknown, like :info)"];
    const Node& ops = p.value.is_seq() ? p.value : empty_;
    emit(p.id, proc, TxnStatus::unknown, p.pos, kEndOfHistory, ops, p.line);
    open_.pop_back();
    return true;
  }
  size_t piece_txns() const { return h_.txn_count(); }
  // The transactions emitted since the last piece, with tables of their own.
  History take_piece() {
    History out = std::move(h_);
    h_ = History{};
    sessions_.map.clear();
    ids_.clear();
    return out;
  }
  // After the whole input went through op() and its pieces were taken
  // (queue_open/emit_open included): what the facts are.
  ElleFacts facts() const {
    if (saw_w_ && (saw_append_ || saw_list_read_))
      throw InputError(name_, "the history mixes rw-register writes [:w k v] with list-append operations");
    ElleFacts f;
    f.list_model = saw_append_ || saw_list_read_;
    f.fresh_session = fresh_;
    f.end_of_history = pos_;
    f.no_process = no_process_;
    return f;
  }
  // Pieces: the notes finish() gives, once the input is read.
  void finish_pieces(const char* format) {
    if (facts_->no_process > 0)
      st_.notes["operations without :process (one session, numbered " + std::to_string(facts_->fresh_session) + ")"] +=
          no_process_;
    st_.format = std::string(format) + (facts_->list_model ? " (list-append)" : " (rw-register)");
  }

  History finish(const char* format) {
    queue_open();
    while (emit_open()) {
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
    if (proc != kNoProcess) fresh_ = std::max(fresh_, proc + 1);
    if (facts_) {  // what finish() settles for a whole history, settled now
      if (proc == kNoProcess) proc = facts_->fresh_session;
      if (end == kEndOfHistory) end = facts_->end_of_history;
    }
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
        if (facts_ && facts_->list_model && !v.is_seq()) {
          // (as finish() turns a whole history's register reads into list reads)
          if (v.t != Node::T::nil) (void)value_sym(v, l);
          h_.add_list_read(key, {});
          ++st_.notes["nil reads of list-append taken as reads of the empty list"];
        } else if (v.t == Node::T::nil) {
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
  const ElleFacts* facts_;
  std::unordered_map<int64_t, Pending> pending_;
  std::vector<std::pair<int64_t, Pending>> open_;  // queue_open(): latest first
  int64_t fresh_ = 0;
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

namespace {

const char* elle_format_name(Format f) { return f == Format::elle_edn ? "elle-edn" : "elle-json"; }

// The operation maps of an Elle file, EDN or JSON, through a window.
class ElleOps {
 public:
  ElleOps(const std::string& path, Format f, size_t block) : path_(path), win_(path, block) {
    if (f == Format::elle_edn) edn_ = std::make_unique<imp::EdnStream>(win_, path_);
    else json_ = std::make_unique<imp::JsonStream>(win_, path_);
  }
  bool next(imp::Node& n) { return edn_ ? edn_->next(n) : json_->next(n); }

 private:
  std::string path_;
  imp::TextWindow win_;
  std::unique_ptr<imp::EdnStream> edn_;
  std::unique_ptr<imp::JsonStream> json_;
};


// The facts of a file (one scan: its pieces are built and dropped),
// remembered per file while its bytes stay the same: the audit opens a log's
// reader several times.
imp::ElleFacts elle_facts(const std::string& path, Format f, size_t block) {
  const std::string id = imp::content_id(path, f);
  static std::mutex lock;
  static std::map<std::string, imp::ElleFacts> known;
  if (!id.empty()) {
    std::lock_guard<std::mutex> g(lock);
    if (auto it = known.find(id); it != known.end()) return it->second;
  }
  ImportStats stats;
  imp::ElleBuilder b(path, stats);
  ElleOps ops(path, f, block);
  imp::Node m;
  while (ops.next(m)) {
    b.op(m);
    if (b.piece_txns() >= 4096) (void)b.take_piece();
  }
  b.queue_open();
  while (b.emit_open())
    if (b.piece_txns() >= 4096) (void)b.take_piece();
  const imp::ElleFacts facts = b.facts();
  if (id.empty()) return facts;
  std::lock_guard<std::mutex> g(lock);
  known[id] = facts;
  return facts;
}

class ElleReader : public ForwardTxnReader {
 public:
  ElleReader(const std::string& path, Format f, size_t block)
      : path_(path), format_(f), block_(block), facts_(elle_facts(path, f, block)) {
    restart();
  }
  History next(uint64_t n) override {
    while (b_->piece_txns() < n) {
      if (!drained_) {
        if (ops_->next(m_)) {
          b_->op(m_);
          continue;
        }
        drained_ = true;
        b_->queue_open();
      }
      if (!b_->emit_open()) {
        if (!finished_) b_->finish_pieces(elle_format_name(format_));
        finished_ = true;
        break;
      }
    }
    return handed_out(b_->take_piece());
  }

 private:
  void restart() override {
    stats_ = ImportStats{};
    b_ = std::make_unique<imp::ElleBuilder>(path_, stats_, &facts_);
    ops_ = std::make_unique<ElleOps>(path_, format_, block_);
    drained_ = finished_ = false;
    pos_ = TxnPosition{};
  }
  std::string path_;
  Format format_;
  size_t block_;
  imp::ElleFacts facts_;
  std::unique_ptr<imp::ElleBuilder> b_;
  std::unique_ptr<ElleOps> ops_;
  imp::Node m_;
  bool drained_ = false, finished_ = false;
};

}  // namespace

std::unique_ptr<TxnReader> open_elle_reader(const std::string& path, Format f, size_t block) {
  if (f != Format::elle_edn && f != Format::elle_json) throw UsageError(path + ": not an Elle format");
  return std::make_unique<ElleReader>(path, f, block);
}

History read_elle_file(const std::string& path, Format f, ImportStats& st, size_t block) {
  ElleOps ops(path, f, block);
  return imp::elle_from_ops([&](imp::Node& n) { return ops.next(n); }, path, st, elle_format_name(f));
}

}  // namespace isocheck
