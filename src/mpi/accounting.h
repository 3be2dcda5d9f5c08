// Per-rank accounting of the MPI runtime (written by --stage-times).
#pragma once
#include <cstdint>

namespace isocheck::dist {

// Per-rank accounting for --stage-times: the most operations this rank held
// at once. Each stage notes, where its holdings peak, the operations it holds
// then (operation columns of the histories it keeps, and operation records in
// flight between ranks); the figure is the largest noted. Thread-safe.
void note_ops_held(uint64_t ops);
uint64_t ops_held_peak();

// This rank's peak resident set (getrusage), KiB.
long peak_rss_kib();

}  // namespace isocheck::dist
