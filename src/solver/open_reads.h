// Scans' open reads decided by cases.
//
// A range scan that did not return a key saw one of the key's versions that
// its predicate excludes (core/predicates.h): the initial absence, a
// tombstone, or, under a value predicate, a present version that does not
// match. The history does not say which. The known graph places such a read
// where the key's version order is known (graph/known_graph.h
// AbsentChoice); elsewhere — blind writes of the key (Vbox's Figure 1), the
// scan's transaction writing the key without reading it, an unread writer of
// unknown status — and for the weak levels and linearizability, whose
// engines need every read to name its version, it is decided here by cases.
//
// A case names, for the open reads of one transaction on one key (they
// precede its own write of the key, so from read atomic up they saw one
// version; under read committed the reads of each predicate), the version
// they saw: the initial absence or the final write (or delete) of the key by
// one other transaction that is not aborted and that every one of the reads'
// predicates excludes. (Aborted and intermediate versions are left out: a
// read of one fails every level from read committed up, and read
// uncommitted, no G0, does not depend on what reads saw.) The history is
// allowed at a level exactly when some
// case is (a level's commit order and the versions reads saw are both
// existential): the level holds with the first case that holds, is violated
// when every case is (shown with the case whose cycle is shortest, the others
// named in the reason), and is undecided otherwise.
//
// Cases are made lazily for SER, SI and SSER — only the reads the build
// cannot place are split, the others are left to the general engine — and
// for every open read when a weak level or lin is asked. The checks run are
// bounded by CheckOptions::open_read_cases: past it the run is not decided
// (exit 3), saying to raise --open-read-cases.
#pragma once
#include <functional>

#include "solver/check.h"

namespace isocheck {

// check() of a history with open reads; `check_one` is check() of a history
// in which every read the caller cares about is settled (it may throw
// OpenReadUndecided for a read it cannot place, which is then split).
CheckResult check_open_reads_by_cases(const History& h, const CheckOptions& opt,
                                      const std::function<CheckResult(const History&, const CheckOptions&)>& check_one);

}  // namespace isocheck
