// A sorted set of operation indices held as runs of consecutive operations.
// A range scan stands for one read per key of its range, and those reads are
// consecutive operations of its transaction: 10^7 scan reads are about 2 *
// 10^5 runs (3 MB) rather than an 80 MB list, which the expansion wrote and
// faulted in page by page (a tenth of the scan benchmark's extra time).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <vector>

namespace isocheck {

class OpRuns {
 public:
  using Op = uint64_t;  // (OpIdx, which core/history.h defines after this header)

  OpRuns() = default;
  OpRuns(std::initializer_list<Op> ops) {
    for (Op o : ops) push_back(o);
  }
  explicit OpRuns(const std::vector<Op>& ops) {
    for (Op o : ops) push_back(o);
  }

  // Adds o, which must exceed every operation held.
  void push_back(Op o) {
    if (!bounds_.empty() && bounds_.back() == o) ++bounds_.back();
    else bounds_.push_back(o), bounds_.push_back(o + 1);
    ++count_;
  }
  // Adds the operations [first, end), which must follow every one held.
  void push_run(Op first, Op end) {
    if (first >= end) return;
    if (!bounds_.empty() && bounds_.back() == first) bounds_.back() = end;
    else bounds_.push_back(first), bounds_.push_back(end);
    count_ += end - first;
  }
  // Adds every operation of `other` shifted by `by` (each one past those held).
  void append_shifted(const OpRuns& other, Op by) {
    for (size_t i = 0; i < other.bounds_.size(); i += 2) push_run(other.bounds_[i] + by, other.bounds_[i + 1] + by);
  }
  void reserve_runs(size_t runs) { bounds_.reserve(2 * runs); }
  void clear() { bounds_.clear(), count_ = 0; }

  bool contains(Op o) const {
    // The first bound above o: an odd position (a run's end) means o is inside.
    const size_t i = static_cast<size_t>(std::upper_bound(bounds_.begin(), bounds_.end(), o) - bounds_.begin());
    return (i & 1) != 0;
  }
  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  size_t runs() const { return bounds_.size() / 2; }
  // The runs as [first0, end0, first1, end1, ...] (what travels between ranks).
  const std::vector<Op>& bounds() const { return bounds_; }
  static OpRuns from_bounds(const std::vector<Op>& bounds) {
    OpRuns r;
    for (size_t i = 0; i + 1 < bounds.size(); i += 2) r.push_run(bounds[i], bounds[i + 1]);
    return r;
  }
  // Every operation, in order.
  std::vector<Op> ops() const {
    std::vector<Op> out;
    out.reserve(count_);
    for (Op o : *this) out.push_back(o);
    return out;
  }
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Op;
    using difference_type = std::ptrdiff_t;
    using pointer = const Op*;
    using reference = Op;
    const_iterator() = default;
    const_iterator(const std::vector<Op>* b, size_t run) : b_(b), run_(run), op_(run < b->size() ? (*b)[run] : 0) {}
    Op operator*() const { return op_; }
    const_iterator& operator++() {
      if (++op_ == (*b_)[run_ + 1]) {
        run_ += 2;
        op_ = run_ < b_->size() ? (*b_)[run_] : 0;
      }
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator was = *this;
      ++*this;
      return was;
    }
    bool operator==(const const_iterator& o) const { return run_ == o.run_ && op_ == o.op_; }

   private:
    const std::vector<Op>* b_ = nullptr;
    size_t run_ = 0;
    Op op_ = 0;
  };
  const_iterator begin() const { return {&bounds_, 0}; }
  const_iterator end() const { return {&bounds_, bounds_.size()}; }

  bool operator==(const OpRuns& o) const { return count_ == o.count_ && bounds_ == o.bounds_; }
  bool operator==(const std::vector<Op>& ops) const {
    if (ops.size() != count_) return false;
    size_t i = 0;
    for (Op o : *this)
      if (ops[i++] != o) return false;
    return true;
  }

 private:
  std::vector<Op> bounds_;  // sorted; runs neither overlap nor touch
  size_t count_ = 0;
};

}  // namespace isocheck
