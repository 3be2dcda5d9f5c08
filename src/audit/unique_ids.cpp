// Transaction ids repeated across rounds. A round's reader refuses an id
// repeated inside the round, as verify's reader does inside the whole log;
// one that comes back in a later round needs the whole log's ids. Pass 1
// notes whether the ids increase through the log (ids_in_order_: then none
// repeats and nothing more is read); otherwise the log's ids are read once
// more, sorted on disk with their rows, and the first repeat in file order
// refused with verify's message.
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
  FirstRepeat rep;
  sorter.merge([&](const IdRow& r) { rep.see(static_cast<int64_t>(r.key), r.row); });
  note_spill_memory(sorter.max_in_memory());
  if (!rep.found()) return;  // (ids out of order, none repeated)
  if (reader_.hdf5()) throw_hdf5_duplicate_id(path_, rep.id, rep.a, rep.b);
  // JSONL: the line of row b, the piece holding it read up to it.
  LogReader r = open_log();
  r.seek(starts.at(rep.b / R));
  if (rep.b % R) r.next_hashed(rep.b % R);
  r.next_hashed(1);
  throw InputError(path_ + ":" + std::to_string(r.position().line), "duplicate transaction id " + std::to_string(rep.id));
}

}  // namespace isocheck::audit_detail
