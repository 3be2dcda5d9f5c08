#include "solver/open_reads.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "core/predicates.h"
#include "core/text_escape.h"
#include "graph/known_graph.h"

namespace isocheck {
namespace {

constexpr TxnIdx kNone = ~TxnIdx{0};

// The open reads of one transaction on one key (its scans of the key before
// it writes the key: they saw one version).
struct Group {
  TxnIdx txn = kNone;
  Sym key = 0;
  std::vector<OpIdx> ops;
};

// A version a group may have seen: the initial absence (writer kNone) or
// the final write of the key by `writer` (a delete's tombstone when
// `tombstone`).
struct Version {
  TxnIdx writer = kNone;
  Sym value = kNullValue;
  bool tombstone = false;
};

// The check budget ran out (CheckOptions::open_read_cases).
struct CasesExhausted : ResourceError {
  using ResourceError::ResourceError;
};

std::string exhausted_text(uint64_t cap) {
  return "not decided: the open reads (which version of a key a range scan that did not return it saw, or which "
         "absent version an insert required) need "
         "more than " + std::to_string(cap) + " checks by cases: raise --open-read-cases";
}

std::string txn_text(const History& h, TxnIdx t) { return "transaction " + std::to_string(h.txn_id[t]); }

std::string version_text(const History& h, const Version& v) {
  if (v.writer == kNone) return "its initial absence";
  if (v.tombstone) return txn_text(h, v.writer) + "'s delete (tombstone " + value_text(h, v.value) + ")";
  return value_text(h, v.value) + " (" + txn_text(h, v.writer) + ")";
}

bool same_anomaly(const Anomaly& a, const Anomaly& b) {
  return a.kind == b.kind && a.txn == b.txn && a.other == b.other && a.op == b.op && a.key == b.key && a.value == b.value;
}

class CaseSplitter {
 public:
  using CheckOne = std::function<CheckResult(const History&, const CheckOptions&)>;
  CaseSplitter(History& h, const CheckOptions& opt, const CheckOne& check_one)
      : h_(h), opt_(opt), check_one_(check_one) {}

  uint64_t checks = 0;

  // Every open read, grouped by (transaction, key) — and by predicate when
  // `per_predicate` — in file order.
  std::vector<Group> all_groups(bool per_predicate) const {
    std::vector<Group> groups;
    // (A transaction's reads come together: its groups are looked up among
    // those made since its first read.)
    size_t txn_first = 0;
    for (OpIdx o : h_.absent_choice_ops) {
      const TxnIdx t = h_.txn_of_op(o);
      if (groups.empty() || groups.back().txn != t) txn_first = groups.size();
      auto it = std::find_if(groups.begin() + static_cast<std::ptrdiff_t>(txn_first), groups.end(), [&](const Group& g) {
        return g.key == h_.op_key[o] &&
               (!per_predicate || h_.value_predicate_of(g.ops.front()) == h_.value_predicate_of(o));
      });
      if (it == groups.end()) groups.push_back({t, h_.op_key[o], {o}});
      else it->ops.push_back(o);
    }
    std::reverse(groups.begin(), groups.end());  // (taken from the back)
    return groups;
  }

  // The levels `levels` of the history with the groups `pending` still to
  // split (and whatever the check cannot place).
  CheckResult decide(const std::vector<Level>& levels, std::vector<Group> pending, const std::string& why = "") {
    if (!pending.empty()) {
      Group g = std::move(pending.back());
      pending.pop_back();
      return split(g, levels, std::move(pending), why);
    }
    if (++checks > opt_.open_read_cases)
      throw CasesExhausted(exhausted_text(opt_.open_read_cases) + (why.empty() ? "" : " (" + why + ")"));
    CheckOptions o = opt_;
    o.levels = levels;
    try {
      return check_one_(h_, o);
    } catch (const OpenReadUndecided& e) {
      return split_undecided(e, levels, why);
    }
  }

  // Splits the reads the check could not place (e: its refusal).
  CheckResult split_undecided(const OpenReadUndecided& e, const std::vector<Level>& levels, const std::string& why = "") {
    Group g = group_of_key(e.key);
    if (g.ops.empty()) throw e;
    return split(g, levels, {}, why.empty() ? e.what() : why);
  }

  // How many leaves splitting every group in `groups` makes (saturating at
  // `cap` + 1).
  uint64_t product(const std::vector<Group>& groups, uint64_t cap) {
    uint64_t n = 1;
    for (const Group& g : groups) {
      n *= candidates(g).size();
      if (n > cap) return cap + 1;
    }
    return n;
  }

 private:
  History& h_;
  const CheckOptions& opt_;
  const CheckOne& check_one_;

  // The open reads of the first transaction with one on key k.
  Group group_of_key(Sym k) const {
    Group g;
    for (OpIdx o : h_.absent_choice_ops) {
      if (h_.op_key[o] != k) continue;
      const TxnIdx t = h_.txn_of_op(o);
      if (g.txn == kNone) g.txn = t, g.key = k;
      if (t == g.txn) g.ops.push_back(o);
    }
    return g;
  }

  // The versions g's reads may have seen: the initial absence, and the final
  // write of the key by every other transaction not aborted that each read's
  // predicate excludes (a tombstone always; a present value only under a
  // value predicate it does not satisfy).
  std::vector<Version> candidates(const Group& g) {
    std::vector<Version> out{Version{}};
    for (const auto& [u, w] : final_writes(g.key)) {
      if (u == g.txn || h_.txn_status[u] == TxnStatus::aborted) continue;
      const bool tombstone = h_.is_delete(w);
      bool excluded = true;
      for (OpIdx o : g.ops) {
        const ValuePredicate* p = h_.value_predicate_of(o);
        excluded &= tombstone || (p && !predicate_matches(h_.values, *p, h_.op_value[w]));
      }
      if (excluded) out.push_back({u, h_.op_value[w], tombstone});
    }
    return out;
  }

  // Per key with open reads: each transaction's final write of it, in
  // transaction order (one pass over the operations, made at the first ask;
  // cases change reads only).
  std::unordered_map<Sym, std::vector<std::pair<TxnIdx, OpIdx>>> final_writes_;
  bool final_writes_made_ = false;
  const std::vector<std::pair<TxnIdx, OpIdx>>& final_writes(Sym k) {
    if (!final_writes_made_) {
      final_writes_made_ = true;
      for (OpIdx o : h_.absent_choice_ops) final_writes_.try_emplace(h_.op_key[o]);
      for (TxnIdx t = 0; t < h_.txn_count(); ++t)
        for (OpIdx x = h_.op_begin(t); x < h_.op_end(t); ++x) {
          if (h_.op_kind[x] != OpKind::write) continue;
          auto it = final_writes_.find(h_.op_key[x]);
          if (it == final_writes_.end()) continue;
          if (!it->second.empty() && it->second.back().first == t) it->second.back().second = x;
          else it->second.push_back({t, x});
        }
    }
    return final_writes_.at(k);
  }

  // A group of an insert's open read only (none of a scan's).
  bool is_insert(const Group& g) const {
    return std::all_of(g.ops.begin(), g.ops.end(), [&](OpIdx o) { return h_.is_insert_choice(o); });
  }

  std::string group_text(const Group& g) const {
    const ValuePredicate* p = h_.value_predicate_of(g.ops.front());
    const std::string key = printable(h_.keys.text(g.key));
    if (is_insert(g))
      return txn_text(h_, g.txn) + " inserted " + key + ", so it saw one of " + key + "'s versions that are absent";
    return txn_text(h_, g.txn) + "'s range scan" + (p ? " (" + predicate_text(h_, *p) + ")" : "") + " did not return " +
           key + ", so it saw one of " + key + "'s versions " + (p ? "that do not match" : "that are absent");
  }

  CheckResult split(const Group& g, const std::vector<Level>& levels, std::vector<Group> pending, const std::string& why) {
    const std::vector<Version> cands = candidates(g);
    struct PerLevel {
      std::optional<LevelResult> holds, undecided, violated;
      size_t violated_case = 0, undecided_case = 0;
    };
    std::vector<PerLevel> per(levels.size());
    std::optional<std::vector<Anomaly>> common;
    CheckResult out;
    bool first = true;
    const std::vector<OpIdx> saved_choices = h_.absent_choice_ops;
    std::vector<Sym> saved_values;
    for (OpIdx o : g.ops) saved_values.push_back(h_.op_value[o]);
    auto restore = [&] {
      h_.absent_choice_ops = saved_choices;
      for (size_t i = 0; i < g.ops.size(); ++i) h_.op_value[g.ops[i]] = saved_values[i];
    };
    for (size_t c = 0; c < cands.size(); ++c) {
      std::vector<Level> remaining;
      for (size_t i = 0; i < levels.size(); ++i)
        if (!per[i].holds) remaining.push_back(levels[i]);
      if (remaining.empty()) break;
      // The case: each of g's reads is a plain read of the version (still a
      // scan's read of a key it did not return, for the report's words).
      for (OpIdx o : g.ops) h_.op_value[o] = cands[c].value;
      std::erase_if(h_.absent_choice_ops,
                    [&](OpIdx o) { return std::binary_search(g.ops.begin(), g.ops.end(), o); });
      CheckResult r;
      try {
        r = decide(remaining, pending, why);
      } catch (...) {
        restore();
        throw;
      }
      restore();
      if (first) out.stats = r.stats, first = false;
      if (!common) {
        common = std::move(r.anomalies);
      } else {
        std::erase_if(*common, [&](const Anomaly& a) {
          return std::none_of(r.anomalies.begin(), r.anomalies.end(), [&](const Anomaly& b) { return same_anomaly(a, b); });
        });
      }
      for (LevelResult& lr : r.levels) {
        const size_t i = std::find(levels.begin(), levels.end(), lr.level) - levels.begin();
        if (i == levels.size()) continue;
        PerLevel& p = per[i];
        if (!lr.decided) {
          if (!p.undecided) p.undecided = std::move(lr), p.undecided_case = c;
        } else if (lr.holds) {
          p.holds = std::move(lr);
        } else {
          auto length = [](const LevelResult& x) { return x.witness ? x.witness->cycle.size() : SIZE_MAX; };
          if (!p.violated || length(lr) < length(*p.violated)) p.violated = std::move(lr), p.violated_case = c;
        }
      }
    }
    if (common) out.anomalies = std::move(*common);
    const std::string seen = group_text(g);
    std::string all;
    for (size_t c = 0; c < cands.size(); ++c)
      all += (c == 0 ? "" : c + 1 == cands.size() ? " or " : ", ") + version_text(h_, cands[c]);
    for (size_t i = 0; i < levels.size(); ++i) {
      PerLevel& p = per[i];
      LevelResult lr{levels[i]};
      if (p.holds) {
        lr = std::move(*p.holds);
      } else if (p.undecided) {
        lr = std::move(*p.undecided);
        lr.reason = "with " + txn_text(h_, g.txn) + (is_insert(g) ? "'s insert" : "'s scan") + " having seen " +
                    version_text(h_, cands[p.undecided_case]) + " of " + printable(h_.keys.text(g.key)) + ": " +
                    lr.reason;
      } else {
        lr = std::move(*p.violated);
        lr.by_cases = true;
        const std::string each = cands.size() == 1 ? "that one" : cands.size() == 2 ? "either" : "each of them";
        lr.reason = seen + " (" + all + "); with " + each + " " + level_short(levels[i]) + " is violated; shown: " +
                    version_text(h_, cands[p.violated_case]) + (lr.reason.empty() ? "" : "; " + lr.reason);
      }
      out.levels.push_back(std::move(lr));
    }
    return out;
  }
};

}  // namespace

namespace {

// SER, SI and SSER: the build places what it can; only what it cannot is
// split (on a copy of the history, made then).
CheckResult placed_or_split(const History& h, const CheckOptions& opt, const CaseSplitter::CheckOne& check_one) {
  try {
    return check_one(h, opt);
  } catch (const OpenReadUndecided& e) {
    History copy = h;
    CaseSplitter s(copy, opt, check_one);
    s.checks = 1;
    CheckResult r = s.split_undecided(e, opt.levels);
    r.stats.open_read_checks = s.checks;
    return r;
  }
}

// The weak levels and lin: every open read split, or (past the budget) not
// decided.
CheckResult every_read_split(const History& h, const CheckOptions& opt, const CaseSplitter::CheckOne& check_one) {
  History copy = h;
  CaseSplitter s(copy, opt, check_one);
  // Read committed (and read uncommitted) let two reads of one transaction
  // see different versions of a key: there the reads of each predicate are
  // a case of their own. (Reads of one predicate still see one version in
  // some allowed completion, if any: a later read that sees the version an
  // earlier one saw adds no order the earlier read did not.)
  const bool per_predicate = std::any_of(opt.levels.begin(), opt.levels.end(),
                                         [](Level l) { return l == Level::ru || l == Level::rc; });
  const std::vector<Group> groups = s.all_groups(per_predicate);
  try {
    if (s.product(groups, opt.open_read_cases) > opt.open_read_cases)
      throw CasesExhausted(exhausted_text(opt.open_read_cases));
    CheckResult r = s.decide(opt.levels, groups);
    r.stats.open_read_checks = s.checks;
    return r;
  } catch (const CasesExhausted& e) {
    CheckResult r;
    for (Level l : opt.levels) {
      LevelResult lr{l};
      lr.decided = false;
      lr.reason = std::string(e.what()) + "; " + (l == Level::lin ? "linearizability is" : "the weak levels are") +
                  " decided only where every read names its version";
      r.levels.push_back(std::move(lr));
    }
    return r;
  }
}

}  // namespace

CheckResult check_open_reads_by_cases(const History& h, const CheckOptions& opt,
                                      const std::function<CheckResult(const History&, const CheckOptions&)>& check_one) {
  CheckOptions graph = opt, concrete = opt;
  graph.levels.clear(), concrete.levels.clear();
  for (Level l : opt.levels) (is_weak(l) || l == Level::lin ? concrete : graph).levels.push_back(l);
  if (concrete.levels.empty()) return placed_or_split(h, opt, check_one);
  CheckResult r;
  if (!graph.levels.empty()) r = placed_or_split(h, graph, check_one);
  // A stronger level that holds proves the weak ones (the lattice) without
  // their cases.
  std::vector<LevelResult> proved;
  if (opt.lattice_shortcuts)
    std::erase_if(concrete.levels, [&](Level l) {
      if (!is_weak(l)) return false;
      for (const LevelResult& g : r.levels)
        if (g.decided && g.holds && lattice_rank(g.level) > lattice_rank(l)) return proved.push_back(LevelResult{l}), true;
      return false;
    });
  CheckResult c;
  if (!concrete.levels.empty()) c = every_read_split(h, concrete, check_one);
  // Too many cases for the weak levels: SER, whose engine places most open
  // reads itself, proves them when it holds (the lattice).
  const bool weak_undecided = std::any_of(c.levels.begin(), c.levels.end(),
                                          [](const LevelResult& x) { return is_weak(x.level) && !x.decided; });
  if (weak_undecided && opt.lattice_shortcuts && std::none_of(r.levels.begin(), r.levels.end(), [](const LevelResult& x) {
        return x.level == Level::ser;
      })) {
    CheckOptions ser = opt;
    ser.levels = {Level::ser};
    try {
      const CheckResult s = placed_or_split(h, ser, check_one);
      c.stats.open_read_checks += s.stats.open_read_checks;
      if (s.levels[0].decided && s.levels[0].holds)
        for (LevelResult& x : c.levels)
          if (is_weak(x.level) && !x.decided) x = LevelResult{x.level};
    } catch (const ResourceError&) {
      // (SER not decided either: the weak levels stay undecided, saying why.)
    }
  }
  if (graph.levels.empty()) r.stats = c.stats;
  else r.stats.open_read_checks += c.stats.open_read_checks;
  for (const Anomaly& a : c.anomalies)
    if (std::none_of(r.anomalies.begin(), r.anomalies.end(), [&](const Anomaly& b) { return same_anomaly(a, b); }))
      r.anomalies.push_back(a);
  std::vector<LevelResult> levels;
  for (Level l : opt.levels)
    for (std::vector<LevelResult>* from : {&r.levels, &c.levels, &proved})
      for (LevelResult& x : *from)
        if (x.level == l) levels.push_back(std::move(x));
  r.levels = std::move(levels);
  if (r.stats.txns == 0 && h.txn_count() > 0) {
    // No case was checked (too many of them, the levels proved by SER or
    // left undecided): the counts are the history's own. (They said 0
    // transactions, 0 committed.)
    r.stats.txns = h.txn_count();
    const std::vector<uint8_t> inc = included_transactions(h);
    r.stats.committed = static_cast<size_t>(std::count(inc.begin(), inc.end(), 1));
  }
  return r;
}

}  // namespace isocheck
