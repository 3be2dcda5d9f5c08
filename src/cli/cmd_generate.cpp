#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/limit_options.h"
#include "gen/gen.h"
#include "core/errors.h"
#include "io/output_file.h"
#include "io/sink.h"

namespace isocheck {

void add_generate_command(CLI::App& app, int& exit_code) {
  struct Args {
    GenOptions g;
    std::string out, to = "auto";
    bool quiet = false;
    int extra_reads = -1;  // -1: the default (rmw under si: 1, else 0)
    std::string scan_width = "10:100";
    LimitArgs limits;
  };
  auto a = std::make_shared<Args>();
  std::string workloads, plants;
  for (auto& w : workload_names()) workloads += (workloads.empty() ? "" : "|") + w;
  for (auto& p : plant_names()) plants += (plants.empty() ? "" : "|") + p;
  CLI::App* c = app.add_subcommand(
      "generate", "Write a valid history of a workload (serial, snapshot-isolation or read-committed execution), optionally with planted anomalies");
  std::string workload_table = "Workload: " + workloads;
  for (auto& w : workload_names()) workload_table += "\n  " + w + ": " + workload_help(w);
  c->add_option("--workload", a->g.workload, workload_table)->required();
  c->add_option("--isolation", a->g.isolation,
                "ser: a serial execution (default); si: a simulated snapshot-isolation database "
                "(rmw, mt, blindw-*; aborted attempts recorded and retried); rc: a simulated read-committed "
                "database (the same workloads; each read sees what is committed when it runs, every writer commits)");
  c->add_option("--extra-reads", a->extra_reads,
                "rmw: pure reads of other keys per txn (default 0; 1 with --isolation si or rc, so write skews can arise)")
      ->check(CLI::Range(0, 64));
  c->add_option("--txns", a->g.txns, "Transactions to generate");
  c->add_option("--sessions", a->g.sessions, "Client sessions");
  c->add_option("--keys", a->g.keys, "Keys (0: the workload's default)");
  c->add_option("--dist", a->g.dist, "Key distribution: uniform or zipf");
  c->add_option("--zipf", a->g.zipf_s, "Zipf exponent (with --dist zipf)");
  c->add_option("--ops", a->g.ops, "Operations per transaction (0: the workload's default)");
  c->add_option("--plant", a->g.plant, "Plant one anomaly of this kind on fresh keys (repeatable): " + plants);
  c->add_option("--scans", a->g.scans,
                 "rmw, mt (--isolation ser): percentage of transactions that also scan a key range, "
                 "seeing exactly the rows present (JSONL scan operations; default 0)")
      ->check(CLI::Range(0, 100));
  c->add_option("--scan-width", a->scan_width, "Width of a scan's key range, uniform in LO:HI (default 10:100)");
  c->add_option("--scan-predicates", a->g.scan_predicates,
                "Percentage of those scans with a value predicate v > c (c a value written lately; default 0)")
      ->check(CLI::Range(0, 100));
  c->add_option("--scans-as", a->g.scans_as,
                "scan: JSONL scan operations (default); reads: the point reads of every key in the range instead");
  c->add_option("--seed", a->g.seed, "Random seed");
  c->add_option("--out", a->out, "Output file (.jsonl or .h5)")->required();
  c->add_option("--to", a->to, "Output format: auto (by extension), jsonl, hdf5");
  c->add_flag("-q,--quiet", a->quiet, "Print nothing on success");
  add_limit_options(c, a->limits);
  c->callback([a, &exit_code] {
    apply_limits(a->limits, "generate");
    {
      const std::string& w = a->scan_width;
      const size_t colon = w.find(':');
      size_t end1 = 0, end2 = 0;
      try {
        if (colon == std::string::npos || w.find_first_not_of("0123456789:") != std::string::npos) throw 0;
        a->g.scan_width_lo = std::stoull(w.substr(0, colon), &end1);
        a->g.scan_width_hi = std::stoull(w.substr(colon + 1), &end2);
      } catch (...) {
        throw UsageError("--scan-width must be LO:HI (two integers), got '" + w + "'");
      }
    }
    if (a->extra_reads >= 0) a->g.extra_reads = static_cast<uint32_t>(a->extra_reads);
    else a->g.extra_reads = a->g.isolation != "ser" && a->g.workload == "rmw" ? 1 : 0;
    Format f = a->to == "auto" ? format_from_extension(a->out) : (a->to == "hdf5" ? Format::hdf5 : a->to == "jsonl" ? Format::jsonl : Format::unknown);
    if (f != Format::jsonl && f != Format::hdf5)
      throw UsageError("cannot tell the output format of " + a->out + " (use --to jsonl or --to hdf5)");
    check_output_file(a->out, "--out");
    if (writes_scans(a->g) && f != Format::jsonl)
      throw UsageError("--out " + a->out + ": range scans, inserts and deletes (--scans, --workload rows, --plant phantom "
                       "and predicate-*) are written as JSONL only (HDF5 keeps "
                       "the point reads and writes they expand to: write .jsonl and `isocheck convert` it to .h5, or "
                       "use --scans-as reads)");
    std::unique_ptr<HistorySink> sink;
    if (writes_scans(a->g)) sink = open_scan_jsonl_sink(a->out);
    else sink = open_sink(a->out, f, kGenTimeUnit);
    GenSummary s = generate(a->g, *sink);
    if (!a->quiet) {
      std::fprintf(stderr, "isocheck: wrote %llu transactions, %llu operations to %s\n",
                   static_cast<unsigned long long>(s.txns), static_cast<unsigned long long>(s.ops), a->out.c_str());
      if (s.scans)
        std::fprintf(stderr, "isocheck: %llu of the operations are range scans\n", static_cast<unsigned long long>(s.scans));
      if (s.inserts || s.deletes)
        std::fprintf(stderr, "isocheck: %llu are inserts, %llu deletes\n", static_cast<unsigned long long>(s.inserts),
                     static_cast<unsigned long long>(s.deletes));
      if (a->g.isolation == "si")
        std::fprintf(stderr, "isocheck: %llu attempts aborted by first committer wins (recorded aborted, retried)\n",
                     static_cast<unsigned long long>(s.aborted));
      for (auto& p : s.plants) {
        std::fprintf(stderr, "isocheck: planted %s in transactions", p.name.c_str());
        for (auto id : p.txn_ids) std::fprintf(stderr, " %lld", static_cast<long long>(id));
        std::fprintf(stderr, " (violates%s%s%s)\n", p.violates.ser ? " ser" : "", p.violates.si ? " si" : "",
                     p.violates.sser ? " sser" : "");
      }
    }
    exit_code = 0;
  });
}

}  // namespace isocheck
