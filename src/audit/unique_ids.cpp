// Transaction ids repeated across rounds (unique_ids.h): the log's ids read
// once more, sorted on disk with their rows, and the first repeat in file
// order refused with verify's message.
#include "audit/unique_ids.h"

#include <algorithm>
#include <filesystem>

#include "audit/auditor.h"
#include "core/errors.h"
#include "io/hdf5_range.h"

namespace isocheck::audit_detail {

// Only for logs whose ids do not increase (pass 1 said so). Each (id, row)
// goes to an external sorter: runs of a bounded size in the scratch folder
// (or in memory when the log is small), merged; a stable sort keeps an id's
// rows in file order, so the second row of each id's group is where that id
// first repeats, and the least such row is where verify's reader, reading
// the whole log in order, stops. Memory: one run, whatever the log's size.
// JSONL and HDF5; the other formats' readers check ids across the whole log
// themselves, or number transactions themselves (docs/audit.md).
void Auditor::refuse_repeated_ids() {
  if (ids_in_order_.increasing || !(reader_.hdf5() || reader_.jsonl())) return;
  stage("audit pass 1 (transaction ids)");
  say("transaction ids: " + path_ + " does not number its transactions in increasing order; sorting the ids to find "
      "one repeated across rounds");
  struct IdRow {
    uint64_t key, row;
  };
  auto key = [](const IdRow& r) { return r.key; };
  const std::string dir = opt_.scratch_dir.empty() ? opt_.checkpoint_dir : opt_.scratch_dir;
  ScratchDir scratch(dir, std::filesystem::path(path_).filename().string(), ScratchDir::new_token());
  ExternalSorter<IdRow, decltype(key)> sorter(scratch, "ids", opt_.spill_run_records, opt_.spill_fan_in,
                                              opt_.spill_block_records, key);
  auto add = [&](const int64_t* id, size_t n, uint64_t row) {
    for (size_t i = 0; i < n; ++i) sorter.add({static_cast<uint64_t>(id[i]), row + i});
  };
  const uint64_t R = opt_.round_txns;
  std::vector<LogPosition> starts;  // JSONL: where each piece begins (a message names the line)
  if (reader_.hdf5()) {
    Hdf5RangeReader& file = reader_.hdf5_file();
    const uint64_t total = reader_.total(), piece = std::max<uint64_t>(R, 1 << 20);
    Hdf5Columns c;
    for (uint64_t row = 0; row < total; row += piece) {
      file.columns(row, std::min(total, row + piece), Hdf5RangeReader::kIds, c);
      add(c.id.data(), c.id.size(), row);
    }
  } else {
    LogReader r = open_log();
    for (uint64_t row = 0;;) {
      starts.push_back(r.position());
      History h = r.next_hashed(R);
      if (h.txn_count() == 0) break;
      add(h.txn_id.data(), h.txn_count(), row);
      row += h.txn_count();
    }
  }
  bool have = false;
  uint64_t cur = 0, first_row = 0, group = 0;
  uint64_t a = 0, b = UINT64_MAX;
  sorter.merge([&](const IdRow& r) {
    if (!have || r.key != cur) have = true, cur = r.key, first_row = r.row, group = 0;
    if (++group == 2 && r.row < b) a = first_row, b = r.row;
  });
  note_spill_memory(sorter.max_in_memory());
  if (b == UINT64_MAX) return;  // (ids out of order, none repeated)
  // The id, and for JSONL the line: the piece holding b read up to it.
  if (reader_.hdf5()) {
    const int64_t id = reader_.hdf5_file().range(b, b + 1).txn_id[0];
    throw InputError(path_ + ": dataset /txn/id row " + std::to_string(b),
                     "duplicate transaction id " + std::to_string(id) + " (rows " + std::to_string(a) + " and " +
                         std::to_string(b) + ")");
  }
  LogReader r = open_log();
  r.seek(starts.at(b / R));
  if (b % R) r.next_hashed(b % R);
  const int64_t id = r.next_hashed(1).txn_id.at(0);
  throw InputError(path_ + ":" + std::to_string(r.position().line), "duplicate transaction id " + std::to_string(id));
}

}  // namespace isocheck::audit_detail
