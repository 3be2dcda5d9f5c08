// Distributed equivalence test, run under mpiexec with 1, 2 and 4 ranks:
// every examples/*.jsonl, 200 oracle random histories and 100 glued
// many-block histories (some as HDF5, read by hyperslab per rank) are checked
// by the distributed driver and by one-process check():
//  - verdicts (holds, decided) per level are identical;
//  - with --all-violations the anomaly sets are identical;
//  - with one block the whole report (minus timing and stats) is identical;
//  - every witness is a closed cycle;
// and a canonical line per history goes to OUT/results.txt, which the
// dist.equiv.same_for_every_rank_count test diffs across rank counts.
#include <mpi.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "mpi/driver.h"
#include "dist/glue.h"
#include "mpi/mpi_env.h"
#include "io/hdf5.h"
#include "io/jsonl.h"
#include "io/load.h"
#include "oracle/random_history.h"
#include "partition/partition.h"
#include "report/report.h"

using namespace isocheck;
namespace fs = std::filesystem;

namespace {

std::string canonical(const std::string& name, const CheckResult& r) {
  std::ostringstream o;
  o << name;
  for (auto& l : r.levels) {
    o << " | " << to_string(l.level) << " holds=" << l.holds << " decided=" << l.decided;
    if (l.witness) {
      o << " " << l.witness->anomaly << " [";
      for (size_t i = 0; i < l.witness->cycle.size(); ++i)
        o << l.witness->cycle.src[i] << ">" << l.witness->cycle.dst[i] << ":" << to_string(l.witness->cycle.kind[i]) << ":"
          << l.witness->cycle.why[i] << " ";
      o << "]";
    }
  }
  o << " | anomalies";
  for (auto& a : r.anomalies) o << " " << static_cast<int>(a.kind) << "@" << a.txn << "/" << a.op;
  return o.str();
}

std::vector<std::tuple<int, uint32_t, uint32_t, uint32_t, Sym, Sym>> anomaly_set(const CheckResult& r) {
  std::vector<std::tuple<int, uint32_t, uint32_t, uint32_t, Sym, Sym>> v;
  for (auto& a : r.anomalies) v.push_back({static_cast<int>(a.kind), a.txn, a.other, a.op, a.key, a.value});
  std::sort(v.begin(), v.end());
  return v;
}

std::string report_json(const History& h, const CheckResult& r, const std::string& file) {
  std::ostringstream o;
  write_json(o, h, r, ReportContext{file, 0.0});
  std::string s = o.str();
  return s.substr(0, s.find("\"stats\""));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  dist::init();
  std::string src = argv[1], out = argv[2];
  int me = dist::rank();
  std::vector<std::string> files;
  if (me == 0) {
    fs::create_directories(out + "/hist");
    for (auto& e : fs::directory_iterator(src + "/examples"))
      if (e.path().extension() == ".jsonl") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    for (uint64_t seed = 1; seed <= 200; ++seed) {
      RandomHistoryOptions ro;
      ro.mode = seed % 3 == 0 ? RandomMode::blind_writes : RandomMode::known_order;
      std::string p = out + "/hist/random_" + std::to_string(seed) + ".jsonl";
      write_jsonl(random_history(seed, ro), p);
      files.push_back(p);
    }
    for (uint64_t seed = 1; seed <= 100; ++seed) {
      std::vector<History> parts;
      RandomHistoryOptions ro;
      for (uint64_t i = 0; i < 2 + seed % 5; ++i) {
        ro.mode = (seed + i) % 3 == 0 ? RandomMode::blind_writes : RandomMode::known_order;
        parts.push_back(random_history(seed * 100 + i, ro));
      }
      History g = testing_glue::glue(parts, seed % 2 == 0);
      std::string p = out + "/hist/glued_" + std::to_string(seed) + (seed % 5 == 0 ? ".h5" : ".jsonl");
      if (seed % 5 == 0) write_hdf5(g, p);
      else write_jsonl(g, p);
      files.push_back(p);
    }
  }
  // Everyone gets the list.
  std::string joined;
  for (auto& f : files) joined += f + "\n";
  uint64_t n = joined.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  joined.resize(n);
  MPI_Bcast(joined.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD);
  files.clear();
  std::istringstream js(joined);
  for (std::string l; std::getline(js, l);) files.push_back(l);

  int failures = 0, multi_block = 0, violations = 0;
  std::ofstream results;
  if (me == 0) results.open(out + "/results.txt");
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string& f = files[i];
    std::string name = fs::path(f).filename().string();
    CheckOptions opt;
    opt.levels = i % 2 ? std::vector<Level>{Level::ser, Level::si, Level::sser} : std::vector<Level>{Level::ser, Level::si};
    for (bool all : {true, false}) {
      dist::DistOptions d;
      d.quiet = true;
      d.all_violations = all;
      dist::DistRun run = dist::run_distributed(f, Format::unknown, opt, d);
      if (me != 0) continue;
      History h = load_history(f);
      CheckResult want = check(h, opt);
      const CheckResult& got = run.r;
      auto fail = [&](const std::string& what) {
        ++failures;
        std::fprintf(stderr, "FAIL %s (all-violations=%d): %s\n  want %s\n  got  %s\n", name.c_str(), all, what.c_str(),
                     canonical(name, want).c_str(), canonical(name, got).c_str());
      };
      for (size_t l = 0; l < want.levels.size(); ++l)
        if (want.levels[l].holds != got.levels[l].holds || want.levels[l].decided != got.levels[l].decided)
          fail(std::string("verdict of ") + to_string(want.levels[l].level));
      if (all && anomaly_set(want) != anomaly_set(got)) fail("anomalies");
      // Without --all-violations pieces after the deciding one are skipped,
      // so anomalies of later blocks may be missing (docs/dist.md).
      if (!all && want.anomalies.empty() && !got.anomalies.empty()) fail("anomalies present");
      if (run.exit_code != exit_code(want)) fail("exit code");
      for (auto& l : got.levels)
        if (l.witness) {
          auto& c = l.witness->cycle;
          for (size_t e = 0; e < c.size(); ++e)
            if (c.dst[e] != c.src[(e + 1) % c.size()]) fail("witness is not a closed cycle");
        }
      bool one = partition_history(h).comp_sessions.size() <= 1;
      multi_block += all && !one;
      violations += all && !want.all_hold();
      if (one && all && report_json(h, want, f) != report_json(h, got, f)) fail("report differs (one block)");
      results << canonical(name + (all ? " all" : " first"), got) << "\n";
    }
  }
  if (me == 0) {
    std::fprintf(stderr, "%zu histories, %d with several blocks, %d violating: %d failures\n", files.size(), multi_block,
                 violations, failures);
    if (multi_block < 50 || violations < 30) ++failures;  // the corpus must exercise what it claims
  }
  MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
  dist::finalize();
  return failures ? 1 : 0;
}
