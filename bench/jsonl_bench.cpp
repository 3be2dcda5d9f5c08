// JSONL ingestion speed: parse + validate + build the columnar history.
// Usage: jsonl_bench FILE.jsonl [ROUND [whole|rounds|scan]]
// Prints CPU seconds, MB/s and transactions/s of: the whole file read at once
// ("whole", as verify reads it), the file in pieces of ROUND transactions
// ("rounds", the audit's rounds, default 100000) and the same pieces as the
// audit's pass 1 reads them ("scan", next_scan); each with the reader of
// isocheck's own line shape (io/jsonl_fast.h) and with every line through the
// general JSON parser. A third argument runs only that one, fast (profiles).
#include <sys/resource.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <functional>

#include "io/jsonl.h"

static double cpu_s() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: jsonl_bench FILE.jsonl [ROUND [whole|rounds|scan]]\n");
    return 2;
  }
  struct stat st;
  if (stat(argv[1], &st) != 0) return 2;
  const uint64_t round = argc >= 3 ? std::strtoull(argv[2], nullptr, 10) : 100000;
  const std::string only = argc == 4 ? argv[3] : "";  // (one of them, fast reader only: for profiles)
  const double mb = st.st_size / 1e6;
  auto run = [&](const char* what, const std::function<std::pair<size_t, size_t>()>& f) {
    for (bool fast : {true, false}) {
      if (!only.empty() && (!fast || only != what)) continue;
      isocheck::set_jsonl_fast_lines(fast);
      const double c0 = cpu_s();
      auto [txns, ops] = f();
      const double s = cpu_s() - c0;
      std::printf("%-7s %-8s %zu txns, %zu ops in %.2f CPU s: %.0f MB/s, %.2f M txn/s\n", what,
                  fast ? "fast" : "general", txns, ops, s, mb / s, txns / s / 1e6);
    }
  };
  run("whole", [&] {
    isocheck::History h = isocheck::read_jsonl(argv[1]);
    return std::pair<size_t, size_t>(h.txn_count(), h.op_count());
  });
  for (bool scan : {false, true})
    run(scan ? "scan" : "rounds", [&] {
      isocheck::JsonlReader r(argv[1]);
      std::pair<size_t, size_t> n{0, 0};
      const std::string fence = "__fence";
      for (;;) {
        isocheck::History h = scan ? r.next_scan(round, fence) : r.next(round);
        if (h.txn_count() == 0) break;
        n.first += h.txn_count();
        n.second += h.op_count();
      }
      return n;
    });
}
