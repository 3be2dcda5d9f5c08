// JSONL ingestion speed: parse + validate + build the columnar history.
// Usage: jsonl_bench FILE.jsonl   (prints MB/s and transactions/s, CPU time)
#include <sys/resource.h>
#include <sys/stat.h>

#include <cstdio>

#include "io/jsonl.h"

static double cpu_s() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: jsonl_bench FILE.jsonl\n");
    return 2;
  }
  struct stat st;
  if (stat(argv[1], &st) != 0) return 2;
  double c0 = cpu_s();
  isocheck::History h = isocheck::read_jsonl(argv[1]);
  double s = cpu_s() - c0;
  double mb = st.st_size / 1e6;
  std::printf("%s: %.1f MB, %zu txns, %zu ops in %.2f CPU s: %.0f MB/s, %.2f M txn/s\n", argv[1], mb, h.txn_count(),
              h.op_count(), s, mb / s, h.txn_count() / s / 1e6);
}
