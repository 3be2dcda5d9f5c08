// Duplicate writes across rounds (docs/audit.md, "Duplicate writes").
#include <algorithm>
#include <unordered_map>

#include "audit/auditor.h"

namespace isocheck::audit_detail {

// ------------------------------------------------------- duplicate writes
// A value written twice to one key makes every level fail (check() reports
// it when both writers are in one sub-history). Across rounds the first
// writer may be forgotten, so every write's (key, value) fingerprint is kept
// (docs/audit.md, "Duplicate writes"). A write of this round whose
// fingerprint an earlier round wrote is a suspect: when a transaction still
// in memory wrote exactly that (key, value), check() sees both and reports
// it; otherwise the log before this round is re-read and keys and values are
// compared exactly. Only an exact match is reported: a fingerprint collision
// costs a re-read, never a false violation.
// Step 1, on the read-ahead thread (or before the first round): the round's
// write fingerprints, those an earlier round wrote (hits), then the round's
// own join the set. Touches only written_, the hash caches and the chunk
// (HDF5: hashes of the file's fixed tables, computed once in run(), so the
// carry's tables, which the main thread moves, are never read here).
Auditor::RoundFingerprints Auditor::fingerprint_round(const History& chunk) {
  RoundFingerprints f;
  f.fps.reserve(chunk.op_count());
  f.wops.reserve(chunk.op_count());
  if (reader_.hdf5()) {
    for (OpIdx o = 0; o < chunk.op_count(); ++o)
      if (chunk.op_kind[o] == OpKind::write || chunk.op_kind[o] == OpKind::append) {
        f.fps.push_back(pair_fingerprint(file_key_hashes_.get(chunk.op_key[o]), file_value_hashes_.get(chunk.op_value[o]),
                                         opt_.fingerprint_mask));
        f.wops.push_back(o);
      }
  } else {  // the chunk's own tables: new hashes per round
    SymHashCache key_hashes, value_hashes;
    for (OpIdx o = 0; o < chunk.op_count(); ++o)
      if (chunk.op_kind[o] == OpKind::write || chunk.op_kind[o] == OpKind::append) {
        f.fps.push_back(pair_fingerprint(key_hashes.get(chunk.keys, chunk.op_key[o]),
                                         value_hashes.get(chunk.values, chunk.op_value[o]), opt_.fingerprint_mask));
        f.wops.push_back(o);
      }
  }
  // On disk (soundness.cpp): the hits were found when the fingerprints were
  // sorted; this round's are the next in the hits file.
  if (s_.spilled) {
    const uint64_t base = spill_write_, end = base + f.fps.size();
    for (; next_hit_ < end; read_next_hit())
      if (next_hit_ >= base) f.hits.push_back(static_cast<size_t>(next_hit_ - base));
    spill_write_ = end;
    f.set_size = end;
    f.set_bytes = 0;
    return f;
  }
  // Hits: fingerprints the set held before this round. Tested and inserted
  // in one probe (the set is gigabytes at 10^8 writes: every probe misses
  // the cache and the TLB). (Inserting before the suspects are settled
  // changes nothing: settling them reads the log and the carry, not the set.)
  constexpr size_t kAhead = 8;  // prefetch distance
  const std::vector<uint64_t>& fps = f.fps;
  std::vector<size_t> present;  // indices whose fingerprint the set held when inserted
  for (size_t i = 0; i < fps.size(); ++i) {
    if (i + kAhead < fps.size()) written_.prefetch(fps[i + kAhead]);
    if (written_.insert_was_present(fps[i])) present.push_back(i);
  }
  // A fingerprint present only because this round wrote it earlier (a
  // repeat within the round, which the round's check() reports) is a hit
  // exactly when its first occurrence in the round was. Rare: looked up
  // only when something was present.
  if (!present.empty()) {
    FlatMap64 first(fps.size());  // same_as(fp) -> first index in the round
    for (size_t i = 0; i < fps.size(); ++i) {
      bool ins;
      first.get_or_insert(FingerprintSet::same_as(fps[i]), i, ins);
    }
    std::vector<uint8_t> was(fps.size(), 0);
    for (size_t i : present) was[i] = 1;
    for (size_t i : present)
      if (was[*first.find(FingerprintSet::same_as(fps[i]))]) f.hits.push_back(i);
  }
  f.set_size = written_.size();
  f.set_bytes = written_.bytes();
  return f;
}

// Step 2, on the main thread when the round is checked: suspects settled.
void Auditor::check_duplicates(const History& chunk, const RoundFingerprints& f, uint64_t first_row, uint64_t round) {
  const std::vector<uint64_t>& fps = f.fps;
  const std::vector<OpIdx>& wops = f.wops;
  const std::vector<size_t>& hits = f.hits;
  const SymbolTable& ckeys = reader_.hdf5() ? s_.carry.keys : chunk.keys;
  const SymbolTable& cvalues = reader_.hdf5() ? s_.carry.values : chunk.values;
  if (!hits.empty() && !open_levels().empty()) {
    struct Suspect {
      uint64_t fp;
      OpIdx op;
      CanonSym key, value;
      bool in_memory = false, found = false;
      int64_t first_id = 0;
      uint64_t first_row = 0;
      TxnStatus first_status = TxnStatus::committed;
    };
    std::vector<Suspect> sus;
    std::unordered_map<uint64_t, std::vector<size_t>> by_fp;
    for (size_t i : hits) {
      OpIdx o = wops[i];
      sus.push_back({fps[i], o, canon_sym(ckeys, chunk.op_key[o]), canon_sym(cvalues, chunk.op_value[o])});
      by_fp[fps[i]].push_back(sus.size() - 1);
    }
    auto scan = [&](const History& h, const SymbolTable& keys, const SymbolTable& values, TxnIdx from,
                    auto&& on_match) {
      for (TxnIdx t = from; t < h.txn_count(); ++t)
        for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
          if (h.op_kind[o] != OpKind::write && h.op_kind[o] != OpKind::append) continue;
          auto it = by_fp.find(write_fingerprint(keys, values, h.op_key[o], h.op_value[o], opt_.fingerprint_mask));
          if (it == by_fp.end()) continue;
          CanonSym k = canon_sym(keys, h.op_key[o]), v = canon_sym(values, h.op_value[o]);
          for (size_t i : it->second)
            if (sus[i].key == k && sus[i].value == v) on_match(sus[i], h, t);
        }
    };
    // In memory (not the summary, whose writes are copies): check() will see both writers.
    scan(s_.carry, s_.carry.keys, s_.carry.values, s_.has_summary ? s_.summary_txns : 0,
         [](Suspect& x, const History&, TxnIdx) { x.in_memory = true; });
    bool reread = false;
    for (auto& x : sus) reread |= !x.in_memory;
    if (reread) {
      ++s_.result.duplicate_rereads;
      say("round " + std::to_string(round) + ": " + std::to_string(sus.size()) +
          " written (key, value) fingerprint(s) seen before; re-reading the log to compare exactly");
      LogReader rr = open_log();
      uint64_t row = 0;
      while (row < first_row) {
        History h = rr.next(std::min<uint64_t>(opt_.round_txns, first_row - row));
        if (h.txn_count() == 0) break;
        scan(h, rr.key_table(h), rr.value_table(h), 0, [&](Suspect& x, const History& hh, TxnIdx t) {
          if (x.in_memory || x.found) return;
          x.found = true;
          x.first_id = hh.txn_id[t];
          x.first_row = row + t;
          x.first_status = hh.txn_status[t];
        });
        row += h.txn_count();
      }
    }
    std::vector<std::string> lines;
    uint64_t confirmed = 0;
    for (auto& x : sus) {
      if (!x.found) continue;
      ++confirmed;
      if (lines.size() >= 5) continue;
      TxnIdx t = static_cast<TxnIdx>(std::upper_bound(chunk.txn_op_offset.begin(), chunk.txn_op_offset.end(), x.op) -
                                     chunk.txn_op_offset.begin() - 1);
      auto status = [](TxnStatus st) {
        return st == TxnStatus::aborted ? " (aborted)" : st == TxnStatus::unknown ? " (unknown status)" : "";
      };
      lines.push_back("T" + std::to_string(chunk.txn_id[t]) + status(chunk.txn_status[t]) + " (transaction " +
                      std::to_string(first_row + t + 1) + " of the log) wrote " + canon_text(x.key) + "=" +
                      canon_text(x.value) + ", a value T" + std::to_string(x.first_id) + status(x.first_status) +
                      " (transaction " + std::to_string(x.first_row + 1) +
                      ", no longer in memory) also wrote: written values must be unique per key");
    }
    if (confirmed) {
      auto& res = s_.result;
      res.anomalies += confirmed;
      for (auto& l : res.levels)
        if (l.verdict != "violated") {
          l.verdict = "violated";
          l.round = round;
          l.anomaly = "duplicate write";
          l.explanation = lines;
        }
    }
  }
  s_.result.fingerprints = f.set_size;
  s_.result.fingerprint_bytes = f.set_bytes;
}

// After a resumption: the fingerprints of every write before the checkpoint
// (not in the checkpoint, which would then grow with the log; one re-read).
void Auditor::rebuild_fingerprints(uint64_t rows) {
  written_.clear();
  LogReader rr = open_log();
  uint64_t row = 0;
  while (row < rows) {
    History h = rr.next(std::min<uint64_t>(opt_.round_txns, rows - row));
    if (h.txn_count() == 0) break;
    const SymbolTable &keys = rr.key_table(h), &values = rr.value_table(h);
    for (OpIdx o = 0; o < h.op_count(); ++o)
      if (h.op_kind[o] == OpKind::write || h.op_kind[o] == OpKind::append)
        written_.insert(write_fingerprint(keys, values, h.op_key[o], h.op_value[o], opt_.fingerprint_mask));
    row += h.txn_count();
  }
  // The rest of the log at the same rate (the checkpoint does not hold pass
  // 1's count): room for it now, as a run from the start has.
  if (row > 0 && s_.total_txns > row)
    written_.reserve(static_cast<uint64_t>(static_cast<double>(written_.size()) * s_.total_txns / row));
}

}  // namespace isocheck::audit_detail
