#include "audit/later_reads.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "audit/spill.h"
#include "core/errors.h"
#include "core/radix_order.h"

namespace isocheck {

void LaterReads::add_piece(uint64_t first_round, uint64_t end_round, std::vector<Entry> e) {
  // By fingerprint, then one entry per fingerprint with its largest round.
  radix_sort(e, [](const Entry& x) { return x.fp; });
  size_t out = 0;
  for (size_t i = 0; i < e.size();) {
    Entry best = e[i];
    size_t j = i + 1;
    for (; j < e.size() && e[j].fp == e[i].fp; ++j) best.round = std::max(best.round, e[j].round);
    e[out++] = best;
    i = j;
  }
  e.resize(out);
  e.shrink_to_fit();
  pieces_.push_back(Piece{first_round, end_round, std::move(e)});
}

bool LaterReads::read_after(uint64_t fp, uint64_t round) const {
  if (fd_data_ >= 0) return file_read_after(fp, round);
  for (const Piece& p : pieces_) {
    if (p.end <= round + 1) continue;  // every read in it is of a round <= `round`
    auto it = std::lower_bound(p.e.begin(), p.e.end(), fp, [](const Entry& x, uint64_t f) { return x.fp < f; });
    if (it != p.e.end() && it->fp == fp && it->round > round) return true;
  }
  return false;
}

void LaterReads::drop_through(uint64_t round) {
  std::erase_if(pieces_, [&](const Piece& p) { return p.end <= round + 1; });
}

uint64_t LaterReads::entries() const {
  if (fd_data_ >= 0) return file_entries_;
  uint64_t n = 0;
  for (const Piece& p : pieces_) n += p.e.size();
  return n;
}

uint64_t LaterReads::bytes() const {
  if (fd_data_ >= 0) return top_.capacity() * sizeof(uint64_t);
  return entries() * sizeof(Entry);
}

struct LaterReads::FileWriter::Impl {
  std::unique_ptr<RecordFile> data, index;
};

LaterReads::FileWriter::FileWriter(const std::string& data, const std::string& index) : impl_(new Impl) {
  impl_->data = RecordFile::create(data);
  impl_->index = RecordFile::create(index);
}

LaterReads::FileWriter::~FileWriter() = default;

void LaterReads::FileWriter::add(const Entry& e) {
  if (n_ % kBlock == 0) impl_->index->write(&e.fp, sizeof e.fp);
  impl_->data->write(&e, sizeof e);
  ++n_;
}

void LaterReads::FileWriter::finish() {
  impl_->data->finish(true);
  impl_->index->finish(true);
}

LaterReads::~LaterReads() {
  if (fd_data_ >= 0) ::close(fd_data_);
  if (fd_index_ >= 0) ::close(fd_index_);
}

namespace {
// Reads exactly `bytes` at `offset` (false: short).
bool pread_all(int fd, void* p, size_t bytes, uint64_t offset) {
  char* c = static_cast<char*>(p);
  while (bytes > 0) {
    ssize_t got = ::pread(fd, c, bytes, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    c += got, bytes -= static_cast<size_t>(got), offset += static_cast<uint64_t>(got);
  }
  return true;
}
}  // namespace

bool LaterReads::open_file(const std::string& data, const std::string& index, uint64_t entries) {
  const int d = ::open(data.c_str(), O_RDONLY | O_CLOEXEC), x = ::open(index.c_str(), O_RDONLY | O_CLOEXEC);
  const uint64_t n_index = (entries + kBlock - 1) / kBlock;
  auto size_of = [](int fd) { return fd < 0 ? off_t{-1} : ::lseek(fd, 0, SEEK_END); };
  if (d < 0 || x < 0 || size_of(d) != static_cast<off_t>(entries * sizeof(Entry)) ||
      size_of(x) != static_cast<off_t>(n_index * sizeof(uint64_t))) {
    if (d >= 0) ::close(d);
    if (x >= 0) ::close(x);
    return false;
  }
  std::vector<uint64_t> top;
  std::vector<uint64_t> block(kIndexBlock);
  for (uint64_t i = 0; i < n_index; i += kIndexBlock) {
    uint64_t first = 0;
    if (!pread_all(x, &first, sizeof first, i * sizeof(uint64_t))) {
      ::close(d), ::close(x);
      return false;
    }
    top.push_back(first);
  }
  pieces_.clear();
  fd_data_ = d, fd_index_ = x;
  file_entries_ = entries, index_entries_ = n_index;
  top.shrink_to_fit();
  top_ = std::move(top);
  return true;
}

bool LaterReads::file_read_after(uint64_t fp, uint64_t round) const {
  // The last index block whose first fingerprint is <= fp, then the last
  // data block of it, then the entry.
  auto t = std::upper_bound(top_.begin(), top_.end(), fp);
  if (t == top_.begin()) return false;
  const uint64_t ib = static_cast<uint64_t>(t - top_.begin() - 1);
  const uint64_t i0 = ib * kIndexBlock, ni = std::min<uint64_t>(kIndexBlock, index_entries_ - i0);
  uint64_t idx[kIndexBlock];
  if (!pread_all(fd_index_, idx, ni * sizeof(uint64_t), i0 * sizeof(uint64_t)))
    throw InputError("the later-reads index", "cannot read its index file (removed or cut short during the audit?)");
  const uint64_t db = i0 + static_cast<uint64_t>(std::upper_bound(idx, idx + ni, fp) - idx - 1);
  const uint64_t e0 = db * kBlock, ne = std::min<uint64_t>(kBlock, file_entries_ - e0);
  Entry e[kBlock];
  if (!pread_all(fd_data_, e, ne * sizeof(Entry), e0 * sizeof(Entry)))
    throw InputError("the later-reads index", "cannot read its data file (removed or cut short during the audit?)");
  const Entry* it = std::lower_bound(e, e + ne, fp, [](const Entry& x, uint64_t f) { return x.fp < f; });
  return it != e + ne && it->fp == fp && it->round > round;
}

}  // namespace isocheck
