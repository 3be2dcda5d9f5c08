#include "oracle/random_history.h"

#include <algorithm>
#include <map>
#include <random>
#include <sstream>
#include <utility>
#include <vector>

#include "io/jsonl.h"

namespace isocheck {
namespace {

using Seq = std::vector<int64_t>;

struct GOp {
  OpKind kind;
  int key;
  int64_t value = 0;  // write/append/read; read: null when is_null
  bool is_null = false;
  Seq list;           // read_list
};

GOp mk(OpKind kind, int key, int64_t value = 0) {
  GOp op;
  op.kind = kind, op.key = key, op.value = value;
  return op;
}

struct GTxn {
  int session = 0;
  TxnStatus status = TxnStatus::committed;
  bool applied = true;  // its writes took effect (committed, or unknown that committed)
  int64_t begin = 0, end = 0, commit = 0;
  int snap_pos = 0, commit_pos = 0;  // in simulate(): commits it saw, its place in the commit order
  std::vector<GOp> ops;
};

class Gen {
 public:
  Gen(uint64_t seed, const RandomHistoryOptions& o) : rng_(seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL), o_(o) {}

  History run() {
    make_shape();
    simulate();
    // (No draw when run mutations are off: the other options' seeds keep their histories.)
    if (!o_.serial && o_.run_mutation_percent > 0 && pct(o_.run_mutation_percent) && mutate_run()) return build();
    if (!o_.serial && pct(o_.mutation_percent)) mutate();
    return build();
  }

 private:
  std::mt19937_64 rng_;
  const RandomHistoryOptions& o_;
  int n_ = 0, keys_ = 0;
  bool final_reader_ = false, times_ = false;
  std::vector<bool> list_key_;
  std::vector<GTxn> t_;
  int64_t next_value_ = 1;
  // Representation variety: values counted per key (so one value appears on
  // several keys), values as strings, keys as integers.
  bool per_key_values_ = false, string_values_ = false, int_keys_ = false;
  std::vector<int64_t> key_next_;

  int64_t fresh(int k) { return per_key_values_ ? key_next_[k]++ : next_value_++; }

  uint64_t uni(uint64_t n) { return n <= 1 ? 0 : rng_() % n; }
  bool pct(int p) { return static_cast<int>(uni(100)) < p; }
  bool blind() const { return o_.mode == RandomMode::blind_writes; }

  void make_shape() {
    n_ = o_.min_txns + static_cast<int>(uni(static_cast<uint64_t>(o_.max_txns - o_.min_txns + 1)));
    final_reader_ = !blind() && n_ >= 3 && pct(o_.final_reader_percent);
    int most = std::min(o_.max_sessions, n_);  // one session only now and then
    int sessions = most <= 1 || pct(10) ? 1 : 2 + static_cast<int>(uni(static_cast<uint64_t>(most - 1)));
    keys_ = 1 + static_cast<int>(uni(static_cast<uint64_t>(blind() ? std::min(2, o_.max_keys) : o_.max_keys)));
    int style = blind() ? 0 : static_cast<int>(uni(3));  // registers, lists, mixed
    for (int k = 0; k < keys_; ++k) list_key_.push_back(style == 1 || (style == 2 && pct(50)));
    times_ = pct(o_.times_percent);
    per_key_values_ = pct(40);
    string_values_ = pct(15);
    int_keys_ = pct(25);
    key_next_.assign(keys_, 1);

    t_.resize(n_);
    std::vector<int64_t> clock(sessions);
    for (auto& c : clock) c = static_cast<int64_t>(uni(20));
    int64_t last_end = 0;
    for (int i = 0; i < n_; ++i) {
      GTxn& t = t_[i];
      t.session = static_cast<int>(uni(sessions));
      if (final_reader_ && i == n_ - 1) {
        t.begin = last_end + 1 + static_cast<int64_t>(uni(5));
      } else {
        t.begin = clock[t.session] + static_cast<int64_t>(uni(15));
      }
      t.end = t.begin + 1 + static_cast<int64_t>(uni(15));
      t.commit = t.begin + static_cast<int64_t>(uni(static_cast<uint64_t>(t.end - t.begin + 1)));
      clock[t.session] = t.end;
      last_end = std::max(last_end, t.end);
      if (!o_.serial && !(final_reader_ && i == n_ - 1)) {
        if (pct(o_.aborted_percent)) t.status = TxnStatus::aborted, t.applied = false;
        else if (pct(o_.unknown_percent)) t.status = TxnStatus::unknown, t.applied = pct(50);
      }
    }
  }

  // Per transaction, per key: what it did to k so far and what it saw.
  struct Local {
    bool overwrite = false, touched = false, seen = false;
    Seq own, ext;
  };

  void simulate() {
    std::vector<int> order(n_);
    for (int i = 0; i < n_; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return t_[a].commit < t_[b].commit; });
    std::vector<std::vector<Seq>> st(n_ + 1, std::vector<Seq>(keys_));  // state after p commits
    std::vector<std::vector<int>> wrote_at(n_);  // keys written by the txn committed at p
    std::map<int, int> session_last;             // session -> position of its last commit
    bool si = !o_.serial && pct(o_.si_engine_percent);
    for (int p = 0; p < n_; ++p) {
      GTxn& t = t_[order[p]];
      bool last = final_reader_ && order[p] == n_ - 1;
      bool stale = !o_.serial && !last && pct(si ? o_.stale_si_percent : o_.stale_percent);
      bool per_key = stale && !si && pct(o_.per_key_snapshot_percent);
      // An SI database's snapshot includes the session's own earlier commits.
      int lowest = 0;
      if (si && session_last.count(t.session)) lowest = session_last[t.session] + 1;
      auto older = [&] {
        int back = std::max(std::min(p - lowest, 3), 0);
        return back == 0 ? p : p - 1 - static_cast<int>(uni(static_cast<uint64_t>(back)));
      };
      int base = stale ? older() : p;
      t.snap_pos = base, t.commit_pos = p;
      std::vector<Local> loc(keys_);
      auto view = [&](int k) {
        Local& l = loc[k];
        if (l.overwrite) return l.own;
        if (!l.seen) l.ext = st[per_key ? older() : base][k], l.seen = true;
        Seq v = l.ext;
        v.insert(v.end(), l.own.begin(), l.own.end());
        return v;
      };
      auto read = [&](int k) {
        Seq v = view(k);
        GOp op = mk(OpKind::read, k);
        if (list_key_[k]) {
          if (v.empty() && pct(30)) op.is_null = true;
          else op.kind = OpKind::read_list, op.list = v;
        } else if (v.empty()) {
          op.is_null = true;
        } else {
          op.value = v.back();
        }
        t.ops.push_back(op);
      };
      auto write = [&](int k) {
        int64_t v = fresh(k);
        t.ops.push_back(mk(OpKind::write, k, v));
        loc[k].overwrite = true, loc[k].touched = true, loc[k].own = {v};
      };
      auto append = [&](int k) {
        int64_t v = fresh(k);
        t.ops.push_back(mk(OpKind::append, k, v));
        loc[k].touched = true, loc[k].own.push_back(v);
      };

      if (last) {
        for (int k = 0; k < keys_; ++k) read(k);
      } else if (pct(40)) {
        // The classic shape: read several keys, then update one of them.
        for (int k = 0; k < keys_; ++k)
          if (pct(70)) read(k);
        int k = static_cast<int>(uni(static_cast<uint64_t>(keys_)));
        if (list_key_[k]) {
          append(k);
        } else {
          if (!blind() && !loc[k].seen) read(k);
          write(k);
        }
      } else {
        int actions = 1 + static_cast<int>(uni(static_cast<uint64_t>(o_.max_actions)));
        for (int a = 0; a < actions; ++a) {
          int k = static_cast<int>(uni(static_cast<uint64_t>(keys_)));
          int c = static_cast<int>(uni(100));
          if (blind()) {
            if (c < 45) read(k);
            else write(k);
          } else if (list_key_[k]) {
            if (c < 55) append(k);
            else read(k);
          } else {
            read(k);  // read-modify-write: every write follows a read of its key
            if (c >= 40) write(k);
            if (c >= 90) write(k);  // an intermediate version
          }
        }
      }
      if (si && t.applied) {
        // First committer wins: a txn that committed after our snapshot wrote
        // one of our keys, so we abort.
        for (int q = base; q < p && t.applied; ++q)
          for (int k : wrote_at[q])
            if (loc[k].touched) t.applied = false;
        if (!t.applied) t.status = TxnStatus::aborted;
      }
      st[p + 1] = st[p];
      if (t.applied) session_last[t.session] = p;
      if (t.applied)
        for (int k = 0; k < keys_; ++k)
          if (loc[k].touched) wrote_at[p].push_back(k);
      if (t.applied)
        for (int k = 0; k < keys_; ++k)
          if (loc[k].touched) {
            if (loc[k].overwrite) st[p + 1][k] = loc[k].own;
            else st[p + 1][k].insert(st[p + 1][k].end(), loc[k].own.begin(), loc[k].own.end());
          }
    }
  }

  // --- mutations -----------------------------------------------------------
  std::vector<std::pair<int, size_t>> reads(bool external_only = false) {
    std::vector<std::pair<int, size_t>> r;
    for (int i = 0; i < n_; ++i) {
      std::vector<bool> wrote(keys_, false);
      for (size_t j = 0; j < t_[i].ops.size(); ++j) {
        const GOp& op = t_[i].ops[j];
        if (op.kind == OpKind::write || op.kind == OpKind::append) wrote[op.key] = true;
        else if (!external_only || !wrote[op.key]) r.emplace_back(i, j);
      }
    }
    return r;
  }
  std::vector<std::pair<int, size_t>> writes() {
    std::vector<std::pair<int, size_t>> r;
    for (int i = 0; i < n_; ++i)
      for (size_t j = 0; j < t_[i].ops.size(); ++j)
        if (t_[i].ops[j].kind == OpKind::write || t_[i].ops[j].kind == OpKind::append) r.emplace_back(i, j);
    return r;
  }
  template <class V>
  auto pick(const V& v) { return v[uni(v.size())]; }

  // Make read op `r` observe register value v (or null), or list `l`.
  static void set_read(GOp& r, bool is_null, int64_t v) {
    r.kind = OpKind::read, r.is_null = is_null, r.value = v, r.list.clear();
  }
  static void set_list(GOp& r, Seq l) {
    r.kind = OpKind::read_list, r.is_null = false, r.list = std::move(l);
  }
  static Seq seen_list(const GOp& r) { return r.kind == OpKind::read_list ? r.list : Seq{}; }

  void random_read_from() {
    auto rs = reads();
    if (rs.empty()) return;
    auto [i, j] = pick(rs);
    GOp& r = t_[i].ops[j];
    std::vector<int64_t> vals;
    for (auto [a, b] : writes())
      if (t_[a].ops[b].key == r.key) vals.push_back(t_[a].ops[b].value);
    if (list_key_[r.key]) {
      // A random subsequence-prefix of the values appended to this key.
      size_t len = uni(vals.size() + 1);
      std::vector<int64_t> l(vals.begin(), vals.begin() + static_cast<ptrdiff_t>(len));
      set_list(r, l);
    } else if (vals.empty() || pct(25)) {
      set_read(r, true, 0);
    } else {
      set_read(r, false, pick(vals));
    }
  }

  // A list read that breaks a writer's run of appends (its appends to the
  // key, one atomic step): without the run's first element, cut after a
  // non-last element, two neighbours swapped, or an element repeated. Prefers
  // elements of runs of two or more. False when no list read shows anything.
  bool mutate_run() {
    std::vector<std::pair<int, size_t>> rs;
    for (auto [i, j] : reads())
      if (t_[i].ops[j].kind == OpKind::read_list && !t_[i].ops[j].list.empty()) rs.emplace_back(i, j);
    if (rs.empty()) return false;
    auto [i, j] = pick(rs);
    GOp& r = t_[i].ops[j];
    Seq l = r.list;
    // Each element's writer (values are unique per key) and its run's length.
    std::map<int64_t, int> owner;
    std::map<int, int> run_len;
    for (auto [a, b] : writes())
      if (t_[a].ops[b].key == r.key) owner[t_[a].ops[b].value] = a, ++run_len[a];
    auto in_run = [&](size_t p) {
      auto it = owner.find(l[p]);
      return it != owner.end() && run_len[it->second] >= 2;
    };
    // Positions of elements that are first (or not last) in a long run, when any.
    std::vector<size_t> firsts, not_lasts, any(l.size());
    for (size_t p = 0; p < l.size(); ++p) {
      any[p] = p;
      if (!in_run(p)) continue;
      if (p == 0 || owner.count(l[p - 1]) == 0 || owner[l[p - 1]] != owner[l[p]]) firsts.push_back(p);
      if (p + 1 < l.size() && owner.count(l[p + 1]) && owner[l[p + 1]] == owner[l[p]]) not_lasts.push_back(p);
    }
    switch (uni(4)) {
      case 0: {  // the run without its first append
        size_t p = pick(firsts.empty() ? any : firsts);
        l.erase(l.begin() + static_cast<ptrdiff_t>(p));
        break;
      }
      case 1: {  // the run cut after a non-last append (what follows stays)
        if (not_lasts.empty()) return false;
        size_t p = pick(not_lasts) + 1;
        l.erase(l.begin() + static_cast<ptrdiff_t>(p));
        break;
      }
      case 2: {  // two neighbours swapped
        if (l.size() < 2) return false;
        size_t p = uni(l.size() - 1);
        std::swap(l[p], l[p + 1]);
        break;
      }
      default: {  // an element repeated somewhere
        int64_t v = pick(l);
        l.insert(l.begin() + static_cast<ptrdiff_t>(uni(l.size() + 1)), v);
        break;
      }
    }
    set_list(r, l);
    return true;
  }

  void mutate() {
    switch (uni(7)) {
      case 0: random_read_from(); return;
      case 1: {  // read of an aborted transaction's write
        std::vector<std::pair<int, size_t>> ws;
        for (auto [a, b] : writes())
          if (t_[a].status == TxnStatus::aborted) ws.emplace_back(a, b);
        if (ws.empty()) return random_read_from();
        auto [a, b] = pick(ws);
        const GOp& w = t_[a].ops[b];
        std::vector<std::pair<int, size_t>> rs;
        for (auto [i, j] : reads())
          if (i != a && t_[i].ops[j].key == w.key) rs.emplace_back(i, j);
        if (rs.empty()) return random_read_from();
        auto [i, j] = pick(rs);
        GOp& r = t_[i].ops[j];
        if (list_key_[w.key]) {
          Seq l = seen_list(r);
          l.push_back(w.value);
          set_list(r, l);
        } else {
          set_read(r, false, w.value);
        }
        return;
      }
      case 2: {  // thin air
        auto rs = reads();
        if (rs.empty()) return;
        auto [i, j] = pick(rs);
        GOp& r = t_[i].ops[j];
        int64_t v = fresh(r.key);
        if (list_key_[r.key]) {
          Seq l = seen_list(r);
          l.insert(l.begin() + static_cast<ptrdiff_t>(uni(l.size() + 1)), v);
          set_list(r, l);
        } else {
          set_read(r, false, v);
        }
        return;
      }
      case 3: {  // intermediate read: a value its writer overwrote
        std::vector<std::pair<int, size_t>> ws;
        for (auto [a, b] : writes())
          for (size_t c = b + 1; c < t_[a].ops.size(); ++c)
            if (t_[a].ops[c].key == t_[a].ops[b].key && t_[a].ops[c].kind == OpKind::write) {
              ws.emplace_back(a, b);
              break;
            }
        if (ws.empty()) return random_read_from();
        auto [a, b] = pick(ws);
        std::vector<std::pair<int, size_t>> rs;
        for (auto [i, j] : reads())
          if (i != a && t_[i].ops[j].key == t_[a].ops[b].key) rs.emplace_back(i, j);
        if (rs.empty()) return random_read_from();
        auto [i, j] = pick(rs);
        set_read(t_[i].ops[j], false, t_[a].ops[b].value);
        return;
      }
      case 4: {  // internal: a read after the txn's own write that ignores it
        auto all = reads(), ext = reads(true);
        std::vector<std::pair<int, size_t>> rs;
        for (auto x : all)
          if (std::find(ext.begin(), ext.end(), x) == ext.end()) rs.push_back(x);
        if (rs.empty()) return random_read_from();
        auto [i, j] = pick(rs);
        GOp& r = t_[i].ops[j];
        if (r.kind == OpKind::read_list && !r.list.empty()) {
          Seq l = r.list;
          l.pop_back();
          set_list(r, l);
        } else if (list_key_[r.key]) {
          set_list(r, {});
        } else {
          set_read(r, true, 0);
        }
        return;
      }
      case 5: {  // duplicate write
        auto ws = writes();
        std::vector<std::pair<size_t, size_t>> pairs;
        for (size_t x = 0; x < ws.size(); ++x)
          for (size_t y = x + 1; y < ws.size(); ++y)
            if (t_[ws[x].first].ops[ws[x].second].key == t_[ws[y].first].ops[ws[y].second].key)
              pairs.emplace_back(x, y);
        if (pairs.empty()) return random_read_from();
        auto [x, y] = pick(pairs);
        t_[ws[y].first].ops[ws[y].second].value = t_[ws[x].first].ops[ws[x].second].value;
        return;
      }
      default: {  // non-repeatable read: a second external read seeing something else
        auto rs = reads(true);
        if (rs.empty()) return random_read_from();
        auto [i, j] = pick(rs);
        GOp again = t_[i].ops[j];
        std::vector<int64_t> vals;
        for (auto [a, b] : writes())
          if (t_[a].ops[b].key == again.key && a != i) vals.push_back(t_[a].ops[b].value);
        if (list_key_[again.key]) {
          Seq l = seen_list(again);
          if (!l.empty()) l.pop_back();
          else if (!vals.empty()) l.push_back(pick(vals));
          else return random_read_from();
          set_list(again, l);
        } else if (!again.is_null) {
          set_read(again, true, 0);
        } else if (!vals.empty()) {
          set_read(again, false, pick(vals));
        } else {
          return random_read_from();
        }
        t_[i].ops.insert(t_[i].ops.begin() + static_cast<ptrdiff_t>(j) + 1, again);
        return;
      }
    }
  }

  History build() {
    std::vector<int> file(n_);
    for (int i = 0; i < n_; ++i) file[i] = i;
    std::stable_sort(file.begin(), file.end(), [&](int a, int b) { return t_[a].begin < t_[b].begin; });
    History h;
    static const char* names[] = {"x", "y", "z", "w", "v", "u", "s", "r"};
    std::vector<Sym> key_sym;
    for (int k = 0; k < keys_; ++k)
      key_sym.push_back(int_keys_ ? h.keys.intern_int(k + o_.int_key_offset) : h.keys.intern_string(names[k % 8]));
    h.keys.take_switch();  // nothing stored yet, nothing to remap
    auto value = [&](int64_t v) {
      if (!string_values_) return h.values.intern_int(v + o_.value_offset);
      Sym s = h.values.intern_string("v" + std::to_string(v));
      h.values.take_switch();  // the first string comes before any value is stored
      return s;
    };
    if (times_) h.time_unit = "ms";
    // (no draw at all when the option is off: the same seed, the same history)
    std::vector<std::pair<int64_t, int64_t>> shown(n_);
    for (int i = 0; i < n_; ++i) shown[i] = {t_[i].begin, t_[i].end};
    if (o_.snapshot_times_percent > 0 && times_ && pct(o_.snapshot_times_percent))
      for (int i = 0; i < n_; ++i) shown[i] = {10 * int64_t{t_[i].snap_pos} + 5, 10 * int64_t{t_[i].commit_pos} + 10};
    if (o_.time_swap_percent > 0 && times_ && n_ >= 2 && pct(o_.time_swap_percent)) {
      const int swaps = 1 + static_cast<int>(uni(2));
      for (int s = 0; s < swaps; ++s) {
        const int a = static_cast<int>(uni(static_cast<uint64_t>(n_)));
        const int b = static_cast<int>(uni(static_cast<uint64_t>(n_)));
        std::swap(shown[a], shown[b]);
      }
    }
    std::vector<bool> untimed(n_, false);
    if (o_.untimed_txn_percent > 0 && times_)
      for (int i = 0; i < n_; ++i) untimed[i] = pct(o_.untimed_txn_percent);
    std::map<int, uint32_t> dense_session;
    int64_t id = 1;
    for (int i : file) {
      const GTxn& t = t_[i];
      auto [it, fresh] = dense_session.try_emplace(t.session, static_cast<uint32_t>(h.session_name.size()));
      if (fresh) h.session_name.push_back(t.session + 1);
      const bool timed = times_ && !untimed[i];
      h.begin_txn(id++, it->second, t.status, timed ? shown[i].first : kNoTime, timed ? shown[i].second : kNoTime);
      for (const GOp& op : t.ops) {
        Sym k = key_sym[op.key];
        if (op.kind == OpKind::read_list) {
          std::vector<Sym> l;
          for (int64_t v : op.list) l.push_back(value(v));
          h.add_list_read(k, l);
        } else if (op.kind == OpKind::read && op.is_null) {
          h.add_op(OpKind::read, k, kNullValue);
        } else {
          h.add_op(op.kind, k, value(op.value));
        }
      }
      h.end_txn();
    }
    return h;
  }
};

}  // namespace

History random_history(uint64_t seed, const RandomHistoryOptions& opt) {
  return Gen(seed, opt).run();
}

std::string history_jsonl(const History& h) {
  std::ostringstream s;
  write_jsonl(h, s);
  return s.str();
}

}  // namespace isocheck
