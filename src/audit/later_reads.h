// Which (key, value) pairs the reads of later rounds saw: forget's answer to
// "may a transaction of a later round still read this version?" for blind
// keys (docs/audit.md, "Ambiguous frontiers" and "Kept writers and the
// frontier"). One scan of the log collects every register read's 64-bit
// fingerprint with its round; each piece of consecutive rounds keeps a
// sorted array of (fingerprint, last round read), 12 bytes an entry. A
// collision can only answer "read later" for a version nobody reads (forget
// then keeps its writers, as without this index), never the reverse; with
// 64 bits it is about one in 5·10^10 per question at 3·10^8 pairs (40-bit
// fingerprints, one in 3,000, kept a fenced 10^8 blind-write log's
// writers for good).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace isocheck {

class LaterReads {
 public:
#pragma pack(push, 4)
  struct Entry {
    uint64_t fp;
    uint32_t round;
  };
#pragma pack(pop)
  static_assert(sizeof(Entry) == 12);
  static constexpr uint64_t kMaxRounds = uint64_t{1} << 32;

  // The reads of rounds [first_round, end_round) (any order, repeats
  // allowed); pieces are added in round order.
  void add_piece(uint64_t first_round, uint64_t end_round, std::vector<Entry> entries);
  // True when a read in a round after `round` may have seen the pair with
  // fingerprint fp.
  bool read_after(uint64_t fp, uint64_t round) const;
  // Rounds up to `round` are done: pieces that hold only them are freed.
  void drop_through(uint64_t round);
  bool built() const { return built_; }
  void set_built() { built_ = true; }
  uint64_t entries() const;
  uint64_t bytes() const;  // in memory

  // On disk (docs/audit.md, "Soundness state on disk"): one sorted file of
  // (fingerprint, last round read), one entry per fingerprint, written in
  // fingerprint order through write_file(); an index file holds every
  // kBlock-th fingerprint, and memory every kIndexBlock-th of those, so a
  // question reads one index block and one data block (pread: thread-safe).
  static constexpr size_t kBlock = 512, kIndexBlock = 1024;
  class FileWriter {
   public:
    FileWriter(const std::string& data, const std::string& index);
    ~FileWriter();
    void add(const Entry& e);  // fingerprints ascending, each once
    void finish();
    uint64_t entries() const { return n_; }

   private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    uint64_t n_ = 0;
  };
  // Answers from the files (false: absent, or not of `entries` entries).
  bool open_file(const std::string& data, const std::string& index, uint64_t entries);
  bool spilled() const { return fd_data_ >= 0; }
  ~LaterReads();
  LaterReads() = default;
  LaterReads(const LaterReads&) = delete;
  LaterReads& operator=(const LaterReads&) = delete;

 private:
  bool file_read_after(uint64_t fp, uint64_t round) const;
  int fd_data_ = -1, fd_index_ = -1;
  uint64_t file_entries_ = 0, index_entries_ = 0;
  std::vector<uint64_t> top_;  // every kIndexBlock-th index entry
  struct Piece {
    uint64_t first, end;
    std::vector<Entry> e;  // by fingerprint, one entry per fingerprint (its last round)
  };
  std::vector<Piece> pieces_;
  bool built_ = false;
};

}  // namespace isocheck
