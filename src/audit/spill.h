// The audit's soundness state on disk (docs/audit.md, "Soundness state on
// disk"): records sorted in runs of a bounded size in a scratch folder and
// merged, so that memory does not grow with the log. Used for the
// duplicate-write fingerprints (duplicates.cpp) and the later-reads index
// (later_reads.h).
#pragma once
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "core/radix_order.h"

namespace isocheck {

// The scratch folder: its files are named after the log and a token of the
// run (kept in the checkpoint, so that --requeue finds them). Errors: the
// folder unusable (exit 2, UsageError), the disk full (exit 3, ResourceError),
// both naming the file.
class ScratchDir {
 public:
  // `dir` empty: a fresh folder in the system's temporary folder, removed
  // with this object. Otherwise created when missing and tried with a file.
  ScratchDir(const std::string& dir, const std::string& base, const std::string& token);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string path(const std::string& suffix) const;
  const std::string& dir() const { return dir_; }
  const std::string& token() const { return token_; }
  bool temporary() const { return temporary_; }
  // A new token (a fresh run's).
  static std::string new_token();

 private:
  std::string dir_, base_, token_;
  bool temporary_ = false;
};

// Raises the error for a failed write to `file` (errno): exit 3 when the disk
// is full, exit 2 otherwise.
[[noreturn]] void scratch_write_failed(const std::string& file, int err);

// A file of records written and read in order through a buffer.
class RecordFile {
 public:
  static std::unique_ptr<RecordFile> create(const std::string& path);
  static std::unique_ptr<RecordFile> open(const std::string& path);  // null when absent
  ~RecordFile();
  void write(const void* p, size_t bytes);
  // Bytes read (less than asked at the end of the file).
  size_t read(void* p, size_t bytes);
  // Flush and close (errors raised); durable: on disk before it returns
  // (files a checkpoint names).
  void finish(bool durable = false);
  const std::string& path() const { return path_; }

 private:
  RecordFile(std::FILE* f, std::string path) : f_(f), path_(std::move(path)) {}
  std::FILE* f_;
  std::string path_;
};

// Records sorted by a 64-bit key (stable: equal keys keep the order they
// were added in) with at most `run_records` in memory: full buffers are
// sorted and written as runs; merge() merges at most `fan_in` runs at a
// time (more: earlier passes merge consecutive groups into longer runs), each
// read through a buffer of `block_records`.
template <class Rec, class KeyOf>
class ExternalSorter {
 public:
  ExternalSorter(const ScratchDir& dir, std::string name, size_t run_records, size_t fan_in, size_t block_records,
                 KeyOf key)
      : dir_(dir), name_(std::move(name)), run_records_(std::max<size_t>(1, run_records)),
        fan_in_(std::max<size_t>(2, fan_in)), block_(std::max<size_t>(1, block_records)), key_(key) {}
  ~ExternalSorter() {
    for (auto& r : runs_) std::remove(r.c_str());
  }
  void add(const Rec& r) {
    if (buf_.empty()) buf_.reserve(run_records_);
    buf_.push_back(r);
    ++added_;
    if (buf_.size() >= run_records_) spill();
  }
  uint64_t added() const { return added_; }
  // The most records held in memory at once (buffer or merge blocks).
  uint64_t max_in_memory() const { return max_in_memory_; }
  // Bytes of runs written (every pass).
  uint64_t bytes_written() const { return bytes_written_; }
  // Calls emit(rec) for every record in order; the runs are removed after.
  template <class F>
  void merge(F&& emit) {
    if (runs_.empty()) {  // everything fits the buffer: no file
      radix_sort(buf_, key_);
      note(buf_.size());
      for (const Rec& r : buf_) emit(r);
      buf_ = {};
      return;
    }
    spill();
    buf_ = {};
    while (runs_.size() > fan_in_) {
      std::vector<std::string> next;
      for (size_t i = 0; i < runs_.size(); i += fan_in_) {
        std::vector<std::string> group(runs_.begin() + i, runs_.begin() + std::min(runs_.size(), i + fan_in_));
        if (group.size() == 1) {
          next.push_back(group[0]);
          continue;
        }
        std::string out = dir_.path(name_ + ".run" + std::to_string(serial_++));
        auto f = RecordFile::create(out);
        merge_runs(group, [&](const Rec& r) {
          f->write(&r, sizeof r);
          bytes_written_ += sizeof r;
        });
        f->finish();
        for (auto& g : group) std::remove(g.c_str());
        next.push_back(out);
      }
      runs_ = std::move(next);
    }
    std::vector<std::string> last = std::move(runs_);
    runs_.clear();
    merge_runs(last, emit);
    for (auto& g : last) std::remove(g.c_str());
  }

 private:
  void note(uint64_t n) { max_in_memory_ = std::max(max_in_memory_, n); }
  void spill() {
    if (buf_.empty()) return;
    radix_sort(buf_, key_);
    note(buf_.size());
    std::string out = dir_.path(name_ + ".run" + std::to_string(serial_++));
    auto f = RecordFile::create(out);
    f->write(buf_.data(), buf_.size() * sizeof(Rec));
    f->finish();
    bytes_written_ += buf_.size() * sizeof(Rec);
    runs_.push_back(out);
    buf_.clear();
  }
  // Merges runs (consecutive, in order: ties go to the earlier run).
  template <class F>
  void merge_runs(const std::vector<std::string>& names, F&& emit) {
    struct Src {
      std::unique_ptr<RecordFile> f;
      std::vector<Rec> b;
      size_t at = 0;
    };
    std::vector<Src> src(names.size());
    note(names.size() * block_);
    auto refill = [&](Src& s) {
      s.b.resize(block_);
      size_t got = s.f->read(s.b.data(), block_ * sizeof(Rec)) / sizeof(Rec);
      s.b.resize(got);
      s.at = 0;
      return got > 0;
    };
    using Item = std::pair<uint64_t, size_t>;  // (key, source): ties by source
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    for (size_t i = 0; i < names.size(); ++i) {
      src[i].f = RecordFile::open(names[i]);
      if (!src[i].f) scratch_write_failed(names[i], ENOENT);
      if (refill(src[i])) heap.push({key_(src[i].b[0]), i});
    }
    while (!heap.empty()) {
      const size_t i = heap.top().second;
      heap.pop();
      Src& s = src[i];
      emit(s.b[s.at]);
      if (++s.at < s.b.size() || refill(s)) heap.push({key_(s.b[s.at]), i});
    }
  }

  const ScratchDir& dir_;
  std::string name_;
  size_t run_records_, fan_in_, block_;
  KeyOf key_;
  std::vector<Rec> buf_;
  std::vector<std::string> runs_;
  uint64_t serial_ = 0, added_ = 0, max_in_memory_ = 0, bytes_written_ = 0;
};

// Tuning of the spilled structures (AuditOptions; tests make them small).
struct SpillSizes {
  size_t run_records = size_t{1} << 22;  // records sorted in memory per run
  size_t fan_in = 64;                    // runs merged at once
  size_t block_records = size_t{1} << 14;  // read buffer per merged run
};

}  // namespace isocheck
