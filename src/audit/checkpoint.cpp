// Checkpoints with Boost.Serialization (binary archive, class-versioned) in
// the checksummed container of io/checkpoint_file.h, written to a temporary
// file and renamed, so a kill never leaves half a one.
#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/utility.hpp>
#include <boost/serialization/vector.hpp>
#include <cstdio>
#include <optional>
#include <sstream>

#include "audit/state.h"
#include "io/checkpoint_file.h"
#include "core/errors.h"
#include "core/serial_bool.h"

namespace boost::serialization {

template <class A> void serialize(A& a, isocheck::LogPosition& p, unsigned) { a & p.txn & p.byte & p.line; }

// The statistics tables (audit/audit.h), member rows in table order.
template <class A, class T> void stat_field(A& a, T& v) { a & v; }
template <class A> void stat_field(A& a, bool& v) { isocheck::serialize_bool(a, v); }
template <class A> void stat_field(A& a, isocheck::ForgetRule& v) {
  uint8_t b = static_cast<uint8_t>(v);
  a & b;
  v = static_cast<isocheck::ForgetRule>(b);
}
#define ISOCHECK_STAT_SERIALIZE(type, member, key, init) stat_field(a, r.member);

template <class A> void serialize(A& a, isocheck::RoundStat& r, unsigned) {
  ISOCHECK_ROUND_STAT_FIELDS(ISOCHECK_STAT_SERIALIZE)
}

template <class A> void serialize(A& a, isocheck::AuditLevel& l, unsigned) {
  uint8_t lv = static_cast<uint8_t>(l.level);
  a & lv;
  l.level = static_cast<isocheck::Level>(lv);
  a & l.verdict & l.round & l.anomaly & l.explanation;
}

template <class A> void serialize(A& a, isocheck::AuditResult& r, unsigned) {
  ISOCHECK_AUDIT_RESULT_FIELDS(ISOCHECK_STAT_SERIALIZE, ISOCHECK_STAT_NO_MEMBER)
}
#undef ISOCHECK_STAT_SERIALIZE

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
  const std::vector<isocheck::OpIdx> scan_ops = h.scan_ops.ops();  // (the format lists them)
  a << scan_ops << h.scan_absent_ops << h.delete_ops;
  save_symbols(a, h.keys);
  save_symbols(a, h.values);
}
template <class A> void load(A& a, isocheck::History& h, unsigned) {
  std::vector<uint8_t> st, kind;
  a >> h.txn_id >> h.txn_session >> st >> h.txn_begin >> h.txn_end >> h.txn_op_offset >> kind >> h.op_key >>
      h.op_value >> h.op_list_offset >> h.list_value >> h.session_name >> h.time_unit;
  std::vector<isocheck::OpIdx> scan_ops;
  a >> scan_ops >> h.scan_absent_ops >> h.delete_ops;
  h.scan_ops = isocheck::OpRuns(scan_ops);
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
  a & s.summary_txns & s.last_fence & s.result & s.summary_rest & s.defer_until & s.round_min_write_end;
  isocheck::serialize_bool(a, s.spilled), isocheck::serialize_bool(a, s.later_reads_on_file);
  a & s.scratch_token & s.later_reads_entries & s.dup_hits & s.round_write_base;
  s.rule = static_cast<isocheck::ForgetRule>(rule);
}

}  // namespace boost::serialization

BOOST_CLASS_VERSION(isocheck::AuditState, 6)
BOOST_CLASS_VERSION(isocheck::AuditResult, 5)
BOOST_CLASS_VERSION(isocheck::History, 1)

namespace isocheck {

namespace {
constexpr const char* kMagic = "isocheck-audit-checkpoint";
}

// The archive goes into the checksummed container (io/checkpoint_file.h),
// which is verified before the archive is decoded.
void save_checkpoint(const AuditState& s, const std::string& path) {
  std::ostringstream out(std::ios::binary);
  {
    boost::archive::binary_oarchive ar(out);
    std::string magic = kMagic;
    uint32_t version = AuditState::kVersion;
    ar << magic << version << s;
  }
  write_checkpoint_file(path, "audit", out.str(), "--checkpoint-dir");
}

bool load_checkpoint(AuditState& s, const std::string& path) {
  const char* hint = "start without --requeue";
  std::optional<std::string> payload = read_checkpoint_file(path, "audit", hint);
  if (!payload) return false;
  std::istringstream in(std::move(*payload), std::ios::binary);
  std::string problem;
  try {
    boost::archive::binary_iarchive ar(in);
    std::string magic;
    uint32_t version = 0;
    ar >> magic >> version;
    if (magic != kMagic) problem = "not an isocheck audit checkpoint";
    else if (version != AuditState::kVersion)
      problem = "checkpoint format version " + std::to_string(version) + ", this isocheck reads " +
                std::to_string(AuditState::kVersion);
    else ar >> s;
  } catch (const std::exception& e) {  // the checksum held: written by another build
    problem = std::string("undecodable state (") + e.what() + ")";
  }
  if (!problem.empty()) throw DamagedCheckpoint(damaged_checkpoint_message(path, problem, hint));
  return true;
}

}  // namespace isocheck
