// Checkpoints with Boost.Serialization (binary archive, class-versioned);
// written to a temporary file and renamed, so a kill never leaves half a one.
#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/utility.hpp>
#include <boost/serialization/vector.hpp>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "audit/state.h"
#include "io/errors.h"
#include "util/serial_bool.h"

namespace boost::serialization {

template <class A> void serialize(A& a, isocheck::LogPosition& p, unsigned) { a & p.txn & p.byte & p.line; }

template <class A> void serialize(A& a, isocheck::RoundStat& r, unsigned) {
  a & r.round & r.first_txn & r.txns & r.checked & r.kept & r.forgotten & r.pending & r.frontier & r.peak_rss &
      r.seconds & r.run;
  isocheck::serialize_bool(a, r.deferred);
}

template <class A> void serialize(A& a, isocheck::AuditLevel& l, unsigned) {
  uint8_t lv = static_cast<uint8_t>(l.level);
  a & lv;
  l.level = static_cast<isocheck::Level>(lv);
  a & l.verdict & l.round & l.anomaly & l.explanation;
}

template <class A> void serialize(A& a, isocheck::AuditResult& r, unsigned) {
  uint8_t rule = static_cast<uint8_t>(r.rule);
  a & r.log & r.txns & r.rounds & r.resumptions & rule & r.rule_reason & r.warnings & r.levels & r.anomalies &
      r.max_kept & r.final_kept & r.forgotten & r.max_checked & r.peak_rss & r.seconds;
  isocheck::serialize_bool(a, r.complete);
  a & r.round_stats;
  isocheck::serialize_bool(a, r.duplicate_check);
  a & r.fingerprints & r.fingerprint_bytes & r.duplicate_rereads;
  isocheck::serialize_bool(a, r.later_reads);
  a & r.later_read_pairs & r.later_read_bytes & r.settled_frontiers & r.unsettled_checks;
  r.rule = static_cast<isocheck::ForgetRule>(rule);
}

template <class A> void save_symbols(A& a, const isocheck::SymbolTable& t) {
  bool named = t.named();
  std::vector<std::string> names = t.names();
  std::vector<uint8_t> flags = t.int_flags();
  isocheck::serialize_bool(a, named);
  a << names << flags;
}
template <class A> void load_symbols(A& a, isocheck::SymbolTable& t) {
  bool named = false;
  std::vector<std::string> names;
  std::vector<uint8_t> flags;
  isocheck::serialize_bool(a, named);
  a >> names >> flags;
  t = isocheck::SymbolTable{};
  if (named) t.set_named(std::move(names), std::move(flags));
}

template <class A> void save(A& a, const isocheck::History& h, unsigned) {
  std::vector<uint8_t> st(h.txn_status.size()), kind(h.op_kind.size());
  for (size_t i = 0; i < st.size(); ++i) st[i] = static_cast<uint8_t>(h.txn_status[i]);
  for (size_t i = 0; i < kind.size(); ++i) kind[i] = static_cast<uint8_t>(h.op_kind[i]);
  a << h.txn_id << h.txn_session << st << h.txn_begin << h.txn_end << h.txn_op_offset << kind << h.op_key
    << h.op_value << h.op_list_offset << h.list_value << h.session_name << h.time_unit;
  save_symbols(a, h.keys);
  save_symbols(a, h.values);
}
template <class A> void load(A& a, isocheck::History& h, unsigned) {
  std::vector<uint8_t> st, kind;
  a >> h.txn_id >> h.txn_session >> st >> h.txn_begin >> h.txn_end >> h.txn_op_offset >> kind >> h.op_key >>
      h.op_value >> h.op_list_offset >> h.list_value >> h.session_name >> h.time_unit;
  h.txn_status.resize(st.size());
  h.op_kind.resize(kind.size());
  for (size_t i = 0; i < st.size(); ++i) h.txn_status[i] = static_cast<isocheck::TxnStatus>(st[i]);
  for (size_t i = 0; i < kind.size(); ++i) h.op_kind[i] = static_cast<isocheck::OpKind>(kind[i]);
  load_symbols(a, h.keys);
  load_symbols(a, h.values);
}
template <class A> void serialize(A& a, isocheck::History& h, unsigned v) { split_free(a, h, v); }

template <class A> void serialize(A& a, isocheck::AuditState& s, unsigned) {
  uint8_t rule = static_cast<uint8_t>(s.rule);
  a & s.fingerprint & s.round_min_pf & s.round_min_begin;
  isocheck::serialize_bool(a, s.fence_ok), isocheck::serialize_bool(a, s.times_ok);
  a & s.fence_problem & s.times_problem & s.total_txns & rule & s.pos & s.next_round & s.carry & s.pf & s.nf &
      s.pending & s.checked_op;
  isocheck::serialize_bool(a, s.has_summary);
  a & s.summary_txns & s.last_fence & s.result & s.summary_rest & s.defer_until;
  s.rule = static_cast<isocheck::ForgetRule>(rule);
}

}  // namespace boost::serialization

BOOST_CLASS_VERSION(isocheck::AuditState, 5)
BOOST_CLASS_VERSION(isocheck::AuditResult, 4)
BOOST_CLASS_VERSION(isocheck::History, 1)

namespace isocheck {

namespace {
constexpr const char* kMagic = "isocheck-audit-checkpoint";
}

void save_checkpoint(const AuditState& s, const std::string& path) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw UsageError("--checkpoint-dir: cannot write " + tmp);
    boost::archive::binary_oarchive ar(out);
    std::string magic = kMagic;
    uint32_t version = AuditState::kVersion;
    ar << magic << version << s;
    out.flush();
    if (!out) throw UsageError("--checkpoint-dir: cannot write " + tmp + " (disk full?)");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw UsageError("--checkpoint-dir: cannot rename " + tmp);
}

bool load_checkpoint(AuditState& s, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  try {
    boost::archive::binary_iarchive ar(in);
    std::string magic;
    uint32_t version = 0;
    ar >> magic >> version;
    if (magic != kMagic) throw InputError(path, "not an isocheck audit checkpoint");
    if (version != AuditState::kVersion)
      throw InputError(path, "checkpoint format version " + std::to_string(version) + ", this isocheck reads " +
                                 std::to_string(AuditState::kVersion));
    ar >> s;
  } catch (const boost::archive::archive_exception& e) {
    throw InputError(path, std::string("unreadable checkpoint: ") + e.what());
  } catch (const std::length_error& e) {  // a damaged length: more than any string or vector holds
    throw InputError(path, std::string("unreadable checkpoint: a length past any size (") + e.what() + ")");
  }
  return true;
}

}  // namespace isocheck
