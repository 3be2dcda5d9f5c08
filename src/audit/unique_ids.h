// Transaction ids repeated across rounds. A round's reader refuses an id
// repeated inside the round, as verify's reader does inside the whole log;
// one that comes back in a later round needs the whole log's ids. Pass 1
// notes whether the ids increase through the log (generators and
// collectors number transactions so: then none repeats and nothing more is
// read); otherwise Auditor::refuse_repeated_ids (unique_ids.cpp) reads them
// once more.
#pragma once
#include <cstddef>
#include <cstdint>

namespace isocheck {

// Whether ids increase strictly through consecutive pieces of a log.
struct IdsInOrder {
  bool any = false, increasing = true;
  int64_t first = 0, last = 0;
  void add(const int64_t* id, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      if (!any) any = true, first = id[i];
      else if (id[i] <= last) increasing = false;
      last = id[i];
    }
  }
  // The next piece of the log, summed up apart.
  void add(const IdsInOrder& next) {
    if (!next.any) return;
    if (!any) any = true, first = next.first;
    else if (next.first <= last) increasing = false;
    increasing = increasing && next.increasing;
    last = next.last;
  }
};

}  // namespace isocheck
