// The soundness state on disk (docs/audit.md, "Soundness state on disk"):
// the duplicate-write fingerprints and the later-reads index sorted in runs
// in a scratch folder and merged, so that the audit's memory does not grow
// with the log. Same answers as in memory: a duplicate write is a suspect
// exactly when its fingerprint an earlier round wrote (the merge of every
// write's (fingerprint, position) finds those), and the index answers
// read_after() from one sorted file.
#include <algorithm>
#include <filesystem>

#include "audit/auditor.h"
#include "core/errors.h"
#include "io/hdf5_range.h"

namespace isocheck::audit_detail {

namespace fs = std::filesystem;

void Auditor::open_scratch() {
  if (scratch_) return;
  const std::string dir = opt_.scratch_dir.empty() ? opt_.checkpoint_dir : opt_.scratch_dir;
  scratch_ = std::make_unique<ScratchDir>(dir, fs::path(path_).filename().string(), s_.scratch_token);
}

void Auditor::decide_spill(bool later_reads_wanted) {
  uint64_t bytes = 0;
  // (sizes as in memory: ~11 bytes a write; 12 bytes a read pair, estimated
  // from the reads of the log's first transactions)
  if (dup_check()) bytes += 11 * log_writes_;
  if (later_reads_wanted && probe_txns_ > 0)
    bytes += 12 * static_cast<uint64_t>(static_cast<double>(probe_reads_) * s_.total_txns / probe_txns_);
  s_.spilled = (dup_check() || later_reads_wanted) && bytes >= opt_.spill_above;
  s_.result.spilled = s_.spilled;
  if (!s_.spilled) return;
  s_.scratch_token = ScratchDir::new_token();
  open_scratch();
  say("soundness state on disk in " + scratch_->dir() + " (about " + std::to_string(bytes >> 20) +
      " MiB in memory otherwise)");
}

namespace {
struct WriteRec {
  uint64_t key;  // FingerprintSet::same_as(fingerprint)
  uint64_t write;  // the write's position among the log's writes
};
}  // namespace

// Every write's fingerprint with its position, sorted by fingerprint: in a
// group of equal fingerprints, the writes of a round after the round of the
// group's first write are the hits (what the in-memory set reports as
// "present before this round"). The hits, sorted by position, are the file
// read round by round (fingerprint_round).
void Auditor::build_spilled_fingerprints() {
  const uint64_t R = opt_.round_txns, total = s_.total_txns, rounds = (total + R - 1) / R;
  auto key = [](const WriteRec& r) { return r.key; };
  ExternalSorter<WriteRec, decltype(key)> sorter(*scratch_, "fps", opt_.spill_run_records, opt_.spill_fan_in,
                                                 opt_.spill_block_records, key);
  std::vector<uint64_t> per_round(rounds + 1, 0);  // writes per round, then before each round
  uint64_t g = 0;
  if (reader_.hdf5()) {
    Hdf5RangeReader& file = reader_.hdf5_file();
    const unsigned threads = audit_threads();
    const uint64_t piece_rounds = std::max<uint64_t>(1, 1000000 / R), piece_rows = piece_rounds * R;
    const uint64_t n_pieces = (total + piece_rows - 1) / piece_rows;
    // A batch of pieces on threads, fed to the sorter in file order.
    for (uint64_t b = 0; b < n_pieces; b += threads) {
      const uint64_t k = std::min<uint64_t>(threads, n_pieces - b);
      std::vector<std::vector<uint64_t>> fps(k);
      std::vector<std::vector<uint64_t>> counts(k, std::vector<uint64_t>(piece_rounds, 0));
      parallel_pieces(k, threads, [&](uint64_t i) {
        const uint64_t row = (b + i) * piece_rows, last = std::min(total, row + piece_rows);
        Hdf5Columns c;
        file.columns(row, last, Hdf5RangeReader::kOps, c);
        for (size_t t = 0; t + 1 < c.op_offset.size(); ++t)
          for (uint64_t o = c.op_offset[t]; o < c.op_offset[t + 1]; ++o)
            if (c.op_kind[o] == OpKind::write || c.op_kind[o] == OpKind::append) {
              fps[i].push_back(pair_fingerprint(file_key_hashes_.get(c.op_key[o]), file_value_hashes_.get(c.op_value[o]),
                                                opt_.fingerprint_mask));
              ++counts[i][t / R];
            }
      });
      for (uint64_t i = 0; i < k; ++i) {
        for (uint64_t fp : fps[i]) sorter.add({FingerprintSet::same_as(fp), g++});
        for (uint64_t r = 0; r < piece_rounds && (b + i) * piece_rounds + r < rounds; ++r)
          per_round[(b + i) * piece_rounds + r] = counts[i][r];
      }
    }
  } else {
    LogReader r = open_log();
    uint64_t round = 0;
    while (true) {
      History h = r.next_hashed(R);  // (its symbols are their hashes)
      if (h.txn_count() == 0) break;
      for (OpIdx o = 0; o < h.op_count(); ++o)
        if (h.op_kind[o] == OpKind::write || h.op_kind[o] == OpKind::append) {
          const uint64_t fp = pair_fingerprint(h.op_key[o], h.op_value[o], opt_.fingerprint_mask);
          sorter.add({FingerprintSet::same_as(fp), g++});
          if (round < rounds) ++per_round[round];
        }
      ++round;
    }
  }
  // Writes before each round.
  uint64_t before = 0;
  for (uint64_t& c : per_round) {
    const uint64_t here = c;
    c = before;
    before += here;
  }
  s_.round_write_base = std::move(per_round);
  const std::vector<uint64_t>& base = s_.round_write_base;
  auto round_of = [&](uint64_t w) {
    return static_cast<uint64_t>(std::upper_bound(base.begin(), base.end(), w) - base.begin()) - 1;
  };
  auto id = [](const uint64_t& w) { return w; };
  ExternalSorter<uint64_t, decltype(id)> hits(*scratch_, "hits", opt_.spill_run_records, opt_.spill_fan_in,
                                              opt_.spill_block_records, id);
  bool have = false;
  uint64_t cur = 0, first_round = 0;
  sorter.merge([&](const WriteRec& w) {
    if (!have || w.key != cur) {
      have = true, cur = w.key, first_round = round_of(w.write);
    } else if (round_of(w.write) > first_round) {
      hits.add(w.write);
    }
  });
  note_spill_memory(sorter.max_in_memory());
  auto f = RecordFile::create(scratch_->path("dups"));
  uint64_t n = 0;
  hits.merge([&](const uint64_t& w) {
    f->write(&w, sizeof w);
    ++n;
  });
  f->finish(true);
  note_spill_memory(hits.max_in_memory());
  s_.dup_hits = n;
}

// The hits file, positioned at the first hit at or after write `from_write`
// (false: absent or not what the checkpoint says).
bool Auditor::open_hits(uint64_t from_write) {
  const std::string p = scratch_->path("dups");
  std::error_code ec;
  if (fs::file_size(p, ec) != s_.dup_hits * sizeof(uint64_t) || ec) return false;
  hits_ = RecordFile::open(p);
  if (!hits_) return false;
  do read_next_hit();
  while (next_hit_ < from_write);
  spill_write_ = from_write;
  return true;
}

void Auditor::read_next_hit() {
  uint64_t w = 0;
  next_hit_ = hits_->read(&w, sizeof w) == sizeof w ? w : ~0ULL;
}

// The later-reads index as one sorted file (later_reads.h): every register
// read of a value from file row `from` on, (fingerprint, round), sorted in
// runs and merged, one entry per fingerprint with its last round.
void Auditor::build_later_reads_spilled(uint64_t from) {
  const uint64_t R = opt_.round_txns, total = s_.total_txns;
  using Entry = LaterReads::Entry;
  auto key = [](const Entry& e) { return e.fp; };
  ExternalSorter<Entry, decltype(key)> sorter(*scratch_, "reads-runs", opt_.spill_run_records, opt_.spill_fan_in,
                                              opt_.spill_block_records, key);
  if (reader_.hdf5()) {
    Hdf5RangeReader& file = reader_.hdf5_file();
    const unsigned threads = audit_threads();
    const uint64_t piece_rows = std::max<uint64_t>(1, 1000000 / R) * R;
    const uint64_t first_piece = from / piece_rows, n_pieces = (total + piece_rows - 1) / piece_rows;
    for (uint64_t b = first_piece; b < n_pieces; b += threads) {
      const uint64_t k = std::min<uint64_t>(threads, n_pieces - b);
      std::vector<std::vector<Entry>> e(k);
      parallel_pieces(k, threads, [&](uint64_t i) {
        const uint64_t row = std::max(from, (b + i) * piece_rows), last = std::min(total, (b + i + 1) * piece_rows);
        Hdf5Columns c;
        file.columns(row, last, Hdf5RangeReader::kOps, c);
        later_reads_of(c, row, R, e[i]);
      });
      for (auto& piece : e)
        for (const Entry& x : piece) sorter.add(x);
    }
  } else {
    LogReader r = open_log();
    if (from > 0) r.seek(reader_.position());
    uint64_t row = from;
    std::vector<Entry> reads;
    while (true) {
      History h = r.next_hashed(R);
      if (h.txn_count() == 0) break;
      reads.clear();
      later_reads_of(h, row, R, reads);
      for (const Entry& x : reads) sorter.add(x);
      row += h.txn_count();
    }
  }
  LaterReads::FileWriter w(scratch_->path("reads"), scratch_->path("reads.idx"));
  bool have = false;
  Entry cur{};
  sorter.merge([&](const Entry& e) {
    if (have && e.fp == cur.fp) {
      cur.round = std::max(cur.round, e.round);
      return;
    }
    if (have) w.add(cur);
    cur = e, have = true;
  });
  if (have) w.add(cur);
  w.finish();
  note_spill_memory(sorter.max_in_memory());
  s_.later_reads_entries = w.entries();
  s_.later_reads_on_file = true;
  if (!open_later_reads_file())
    throw InputError(scratch_->path("reads"), "the later-reads index just written cannot be read back");
}

bool Auditor::open_later_reads_file() {
  if (!s_.later_reads_on_file) return false;
  if (!later_reads_.open_file(scratch_->path("reads"), scratch_->path("reads.idx"), s_.later_reads_entries))
    return false;
  set_later_reads_built();
  return true;
}

void Auditor::update_scratch_bytes() {
  uint64_t bytes = 0;
  for (const char* x : {"dups", "reads", "reads.idx"}) {
    std::error_code ec;
    const uintmax_t n = fs::file_size(scratch_->path(x), ec);
    if (!ec) bytes += n;
  }
  s_.result.scratch_bytes = bytes;
}

// (Open files stay readable: a read-ahead thread may still read the hits.)
void Auditor::remove_scratch_files() {
  if (!scratch_ || scratch_->temporary()) return;  // (a temporary folder goes as a whole)
  for (const char* s : {"dups", "reads", "reads.idx"}) std::remove(scratch_->path(s).c_str());
}

}  // namespace isocheck::audit_detail
