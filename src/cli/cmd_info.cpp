#include <algorithm>
#include <cstdio>
#include <memory>

#include "cli/check_options.h"
#include "cli/commands.h"
#include "cli/limit_options.h"
#include "closure/gpu_closure.h"
#include "core/errors.h"
#include "io/load.h"
#include "partition/partition.h"
#include "core/flat_hash.h"

namespace isocheck {

void add_info_command(CLI::App& app, int& exit_code) {
  struct Args { std::string file, format = "auto"; bool components = false, devices = false; LimitArgs limits; };
  auto a = std::make_shared<Args>();
  CLI::App* c = app.add_subcommand("info", "Summarise a history: transactions, sessions, keys, operations, times");
  c->add_option("file", a->file, "History file (not needed with --devices)");
  c->add_flag("--devices", a->devices, "List the CUDA devices this build and machine offer the GPU closure");
  c->add_option("--format", a->format, "Input format: auto (extension, then content) or one of: " + format_names())
      ->check(input_format_check());
  c->add_flag("--components", a->components,
              "Also print the biconnected components of the session communication graph (docs/dist.md)");
  add_limit_options(c, a->limits);
  c->callback([a, &exit_code] {
    apply_limits(a->limits, "info");
    if (a->devices) {
      std::string why;
      const auto devs = gpu_devices(&why);
      std::printf("cuda build:    %s\n", gpu_built() ? "yes" : "no");
      std::printf("devices:       %zu%s%s\n", devs.size(), devs.empty() ? " — " : "", devs.empty() ? why.c_str() : "");
      for (const auto& d : devs)
        std::printf("  [%d] %s, compute capability %d.%d, %d multiprocessors, %.1f GiB (%.1f GiB free)\n", d.index,
                    d.name.c_str(), d.cc_major, d.cc_minor, d.multiprocessors, d.total_memory / 1073741824.0,
                    d.free_memory / 1073741824.0);
      std::printf("--closure gpu: %s\n", devs.empty() ? "unavailable (the CPU engine runs)" : "available");
      exit_code = 0;
      if (a->file.empty()) return;
    }
    if (a->file.empty()) throw UsageError("info: a history FILE is required (or --devices)");
    Format f = input_format(a->format);
    ImportStats st;
    History h = load_history(a->file, f, &st);
    print_import_notes(st);
    size_t status[3] = {0, 0, 0}, kinds[4] = {0, 0, 0, 0}, rmw = 0, blind = 0, list_elems = h.list_value.size();
    for (auto s : h.txn_status) status[static_cast<int>(s)]++;
    for (auto k : h.op_kind) kinds[static_cast<int>(k)]++;
    FlatMap64 keys(0);
    int64_t tmin = INT64_MAX, tmax = INT64_MIN;
    size_t timed = 0;
    for (TxnIdx t = 0; t < h.txn_count(); ++t) {
      if (h.has_times(t)) {
        ++timed;
        tmin = std::min(tmin, h.txn_begin[t]);
        tmax = std::max(tmax, h.txn_end[t]);
      }
      // A write is read-modify-write when the txn read the key before.
      for (OpIdx o = h.op_begin(t); o < h.op_end(t); ++o) {
        bool ins;
        keys.get_or_insert(h.op_key[o], 0, ins);
        if (h.op_kind[o] != OpKind::write) continue;
        bool read_before = false;
        for (OpIdx p = h.op_begin(t); p < o; ++p)
          if (h.op_key[p] == h.op_key[o] && h.op_kind[p] == OpKind::read) read_before = true;
        (read_before ? rmw : blind)++;
      }
    }
    std::printf("file:          %s\n", a->file.c_str());
    std::printf("transactions:  %zu (committed %zu, aborted %zu, unknown %zu)\n", h.txn_count(), status[0], status[1],
                status[2]);
    std::printf("sessions:      %zu\n", h.session_count());
    std::printf("keys:          %zu\n", keys.size());
    std::printf("operations:    %zu (reads %zu, list reads %zu with %zu elements, writes %zu, appends %zu)\n",
                h.op_count(), kinds[0], kinds[3], list_elems, kinds[1], kinds[2]);
    std::printf("write kinds:   %zu read-modify-write, %zu blind, %zu appends\n", rmw, blind, kinds[2]);
    // Range scans and deletes, as the expansion marked them (core/predicates.h).
    size_t insert_open = 0;
    for (OpIdx o : h.absent_choice_ops) insert_open += h.is_insert_choice(o);
    if (!h.scan_ops.empty() || !h.delete_ops.empty())
      std::printf("range scans:   %zu reads (%zu of rows returned, %zu of keys seen absent, %zu of them open: a "
                  "deleted key, the initial state or a tombstone), %zu deletes\n",
                  h.scan_ops.size(), h.scan_ops.size() - h.scan_absent_ops.size(), h.scan_absent_ops.size(),
                  h.absent_choice_ops.size() - insert_open, h.delete_ops.size());
    if (insert_open > 0)
      std::printf("inserts:       %zu of a key another transaction deletes (open: the initial state or a tombstone)\n",
                  insert_open);
    if (!h.value_predicates.empty()) {
      size_t open = 0;
      for (const auto& [o, p] : h.op_value_predicate) open += h.is_absent_choice(o);
      std::printf("value predicates: %zu scans with one; %zu reads of keys they did not return (%zu of them open: "
                  "a version that does not match, which one unknown)\n",
                  h.value_predicates.size(), h.op_value_predicate.size(), open);
    }
    if (timed)
      std::printf("time span:     %lld .. %lld %s (%zu of %zu transactions timed)\n", static_cast<long long>(tmin),
                  static_cast<long long>(tmax), h.time_unit.empty() ? "(unit unknown)" : h.time_unit.c_str(), timed,
                  h.txn_count());
    else
      std::printf("time span:     none (no begin/end times)\n");
    std::printf("memory:        %.1f bytes per operation resident\n",
                h.op_count() ? static_cast<double>(h.resident_bytes()) / h.op_count() : 0.0);
    if (a->components) {
      Partition p = partition_history(h);
      size_t articulation = 0;
      std::vector<uint32_t> count(h.session_count(), 0);
      for (auto& cs : p.comp_sessions) for (uint32_t s : cs) ++count[s];
      for (uint32_t c : count) articulation += c >= 2;
      std::printf("components:    %zu (biconnected, of the session communication graph; %zu articulation sessions)\n",
                  p.comp_sessions.size(), articulation);
      size_t shown = std::min<size_t>(p.comp_sessions.size(), 20);
      for (size_t i = 0; i < shown; ++i)
        std::printf("  component %zu: %zu sessions, %llu transactions, %llu operations\n", i, p.comp_sessions[i].size(),
                    static_cast<unsigned long long>(p.comp_txns[i]), static_cast<unsigned long long>(p.comp_ops[i]));
      if (shown < p.comp_sessions.size())
        std::printf("  ... %zu more (smallest: %llu operations)\n", p.comp_sessions.size() - shown,
                    static_cast<unsigned long long>(p.comp_ops.back()));
    }
    exit_code = 0;
  });
}

}  // namespace isocheck
