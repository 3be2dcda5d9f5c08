// Transaction ids that must be unique across a history read in parts (a
// rank's range, an audit's rounds, a reader's blocks). Two small tools, so
// that every reader says the same thing: whether ids increase through the
// parts (generators and collectors number transactions so, and then none
// repeats), and, when they do not, the first repeat in file order — the row
// where one process reading the whole file in order stops.
#pragma once
#include <cstddef>
#include <cstdint>

namespace isocheck {

// Whether ids increase strictly through consecutive parts of a history.
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
  // The next part, summed up apart.
  void add(const IdsInOrder& next) {
    if (!next.any) return;
    if (!any) any = true, first = next.first;
    else if (next.first <= last) increasing = false;
    increasing = increasing && next.increasing;
    last = next.last;
  }
};

// The first repeat in file order, from (id, row) pairs seen sorted by id, an
// id's rows in increasing order: the second row of each id's group is where
// that id first repeats, and the least such row (b; a: the id's first row)
// is where a reader of the whole file stops.
class FirstRepeat {
 public:
  int64_t id = 0;
  uint64_t a = 0, b = UINT64_MAX;  // b = UINT64_MAX: none
  bool found() const { return b != UINT64_MAX; }
  void see(int64_t i, uint64_t row) {
    if (!have_ || i != cur_) have_ = true, cur_ = i, first_ = row, group_ = 0;
    if (++group_ == 2 && row < b) id = i, a = first_, b = row;
  }
  // Another part's answer (ids that do not meet across the parts).
  void merge(const FirstRepeat& o) {
    if (o.b < b) id = o.id, a = o.a, b = o.b;
  }

 private:
  bool have_ = false;
  int64_t cur_ = 0;
  uint64_t first_ = 0, group_ = 0;
};

}  // namespace isocheck
