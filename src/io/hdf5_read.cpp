// The HDF5 reader: whole files, transaction ranges and column subsets, every
// value checked. Layout and rationale: docs/hdf5-format.md.
#include "io/hdf5.h"

#include <fcntl.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "core/errors.h"
#include "core/unique_ids.h"
#include "core/populate.h"
#include "io/hdf5_range.h"
#include "io/sink.h"
#include "io/zlib_chunk.h"
#include "io/hdf5_checked_driver.h"
#include "io/hdf5_handles.h"

namespace isocheck {

using namespace hdf5_detail;

namespace {

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {
    quiet_hdf5();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path_, ec)) throw InputError(path_, "cannot read the file");
    if (H5Fis_hdf5(path_.c_str()) <= 0) throw InputError(path_, "not an HDF5 file");
    file_bytes_ = std::filesystem::file_size(path_, ec);
    Hid fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    if (!fapl.ok() || H5Pset_driver(fapl, checked::driver(), nullptr) < 0)
      throw InputError(path_, "cannot set up the HDF5 library to read the file");
    checked::take_problem();
    file_ = Hid(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, fapl), H5Fclose);
    if (!file_.ok()) throw InputError(path_, "cannot open the HDF5 file" + damage());
    check_version();
  }

  uint64_t txn_count() { return layout_ ? layout_->n : open_int("/txn/id", 8).len; }
  bool has_value_predicates() const { return exists("/op/predicate"); }

  // own_tables: the result takes the name tables (one-shot reads); else its
  // tables stay empty and its symbols are those of keys() / values().
  History read(uint64_t first, uint64_t last, bool whole, bool own_tables, bool release_unused_lists = false);
  void columns(uint64_t first, uint64_t last, unsigned which, Hdf5Columns& out);
  const SymbolTable& keys() { return ensure_tables(true), keys_; }
  const SymbolTable& values() { return ensure_tables(true), values_; }
  void take_tables(SymbolTable& keys, SymbolTable& values) {
    ensure_tables(true);
    keys = std::move(keys_);
    values = std::move(values_);
    keys_ = values_ = SymbolTable{};  // (the caller holds them now: not read again)
  }
  const std::string& time_unit() { return layout(), time_unit_; }
  bool holds_names() const { return names_held_; }

 private:
  struct Ds {
    std::string name;
    Hid ds, space;
    uint64_t len = 0;
    hid_t mem = H5I_INVALID_HID;  // native type with the file's signedness: bits pass unchanged
    // Direct chunk reading (see read_direct): set when the pipeline is one we decode ourselves.
    bool direct = false, shuffle = false, deflate = false;
    hsize_t chunk = 0;
    size_t elem = 0;
    // The inflated chunk a range ended inside (range() only: the next range
    // of consecutive rounds starts in it, so it is not inflated twice).
    uint64_t cached_chunk = ~0ULL;
    std::vector<uint8_t> cached;
  };

  [[noreturn]] void fail(const std::string& ds, const std::string& what) const {
    throw InputError(path_ + ": dataset " + ds, what + damage());
  }
  [[noreturn]] void fail_row(const std::string& ds, uint64_t row, const std::string& what) const {
    throw InputError(path_ + ": dataset " + ds + " row " + std::to_string(row), what + damage());
  }
  // What the checking driver found damaged, if a read failed on it.
  static std::string damage() {
    std::string p = checked::take_problem();
    return p.empty() ? "" : " (damaged file: " + p + ")";
  }

  bool exists(const std::string& name) const {
    // H5Lexists fails on a missing intermediate group, so walk the path.
    size_t pos = 1;
    while (true) {
      size_t slash = name.find('/', pos);
      std::string prefix = name.substr(0, slash);
      if (H5Lexists(file_, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
      if (slash == std::string::npos) return true;
      pos = slash + 1;
    }
  }

  Ds open_any(const std::string& name) {
    Ds d;
    d.name = name;
    if (!exists(name)) fail(name, "missing (every isocheck HDF5 history has it)");
    d.ds = Hid(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!d.ds.ok()) fail(name, "is not a dataset");
    d.space = Hid(H5Dget_space(d.ds), H5Sclose);
    int rank = H5Sget_simple_extent_ndims(d.space);
    if (rank != 1) fail(name, "must be one-dimensional, has rank " + std::to_string(rank));
    hsize_t n = 0;
    H5Sget_simple_extent_dims(d.space, &n, nullptr);
    // Every row is stored (isocheck writes no fill values), and deflate packs
    // at most ~1,032 bytes into one: a row count past that is a damaged
    // dataspace, refused before any buffer is sized by it.
    Hid ft(H5Dget_type(d.ds), H5Tclose);
    const uint64_t row_bytes = std::max<uint64_t>(1, H5Tget_size(ft));
    const uint64_t most = (file_bytes_ + (1 << 20)) / row_bytes * 1100;
    if (n > most)
      fail(name, "has " + std::to_string(n) + " rows, more than a file of " + std::to_string(file_bytes_) +
                     " bytes can hold (damaged file)");
    d.len = n;
    return d;
  }

  Ds open_int(const std::string& name, size_t bytes) {
    Ds d = open_any(name);
    Hid t(H5Dget_type(d.ds), H5Tclose);
    if (H5Tget_class(t) != H5T_INTEGER || H5Tget_size(t) != bytes)
      fail(name, "wrong datatype: expected " +
                     std::string(bytes == 1 ? "an unsigned 8-bit" : bytes == 4 ? "an unsigned 32-bit" : "a 64-bit") +
                     " integer, found " + describe_type(t));
    bool sign = H5Tget_sign(t) != H5T_SGN_NONE;
    d.mem = bytes == 1   ? (sign ? H5T_NATIVE_INT8 : H5T_NATIVE_UINT8)
            : bytes == 4 ? (sign ? H5T_NATIVE_INT32 : H5T_NATIVE_UINT32)
                         : (sign ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64);
    d.elem = bytes;
    bool native_order = bytes == 1 || (std::endian::native == std::endian::little && H5Tget_order(t) == H5T_ORDER_LE);
    // (4-byte columns, /op/predicate alone, go through the library: the
    // direct path unshuffles 8-byte elements only.)
    if (native_order && bytes != 4) probe_direct(d);
    return d;
  }

  // Our own files are chunked with [shuffle, deflate] or no filters; those we
  // decode ourselves, straight into the destination, which saves the
  // library's per-chunk buffers and copies (a quarter of the reading time).
  // Any other layout or pipeline goes through H5Dread.
  void probe_direct(Ds& d) {
    Hid dcpl(H5Dget_create_plist(d.ds), H5Pclose);
    if (H5Pget_layout(dcpl) != H5D_CHUNKED) return;
    hsize_t c = 0;
    if (H5Pget_chunk(dcpl, 1, &c) != 1 || c == 0) return;
    // A chunk larger than the file (a damaged layout) is left to the library:
    // its buffer would be allocated before anything is read.
    if (c > file_bytes_) return;
    int nf = H5Pget_nfilters(dcpl);
    for (int i = 0; i < nf; ++i) {
      unsigned flags = 0, cd[8], conf = 0;
      size_t ncd = 8;
      char name[32];
      H5Z_filter_t f = H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &ncd, cd, sizeof name, name, &conf);
      if (f == H5Z_FILTER_SHUFFLE && i == 0) d.shuffle = true;
      else if (f == H5Z_FILTER_DEFLATE && i == nf - 1) d.deflate = true;
      else return;
    }
    d.chunk = c;
    d.direct = true;
  }

  // Rows [first, first+count) chunk by chunk; false when a chunk is not as
  // expected (unallocated, filters skipped), and the caller falls back.
  // One chunk, compressed and not, and an inflater: per thread, so that
  // several threads can decode chunks at once (columns() on threads).
  struct ChunkScratch {
    std::vector<uint8_t> raw, plain;
    ZlibChunkDecoder inflater;
  };
  bool read_direct(Ds& d, uint64_t first, uint64_t count, void* out, bool cache) {
    static thread_local ChunkScratch scratch;
    std::vector<uint8_t>& raw = scratch.raw;
    const size_t es = d.elem;
    const uint64_t cs = d.chunk, cbytes = cs * es;
    auto* dst = static_cast<uint8_t*>(out);
    for (uint64_t c0 = first / cs * cs; c0 < first + count; c0 += cs) {
      uint64_t lo = std::max(first, c0), hi = std::min(first + count, c0 + cs);
      uint8_t* o = dst + (lo - first) * es;
      if (cache && d.deflate && d.cached_chunk == c0) {
        if (d.shuffle && es == 8) unshuffle8(d.cached.data(), cs, lo - c0, hi - c0, o);
        else std::memcpy(o, d.cached.data() + (lo - c0) * es, (hi - lo) * es);
        continue;
      }
      // The range ends inside this chunk: keep it for the next range.
      const bool keep = cache && d.deflate && c0 + cs > first + count;
      hsize_t off = c0, stored = 0;
      {
        // Only the file access holds the lock; inflating runs in parallel.
        std::lock_guard<std::mutex> lock(lib_);
        if (H5Dget_chunk_storage_size(d.ds, &off, &stored) < 0 || stored == 0) return false;
        if (stored > file_bytes_)
          fail_row(d.name, c0, "chunk stored in " + std::to_string(stored) + " bytes, more than the file's " +
                                   std::to_string(file_bytes_) + " (damaged file)");
        raw.resize(stored);
        uint32_t mask = 0;
        if (H5Dread_chunk(d.ds, H5P_DEFAULT, &off, &mask, raw.data()) < 0 || mask != 0) return false;
      }
      const uint8_t* src = raw.data();
      if (d.deflate) {
        std::vector<uint8_t>& plain = keep ? d.cached : scratch.plain;
        plain.resize(cbytes);
        d.cached_chunk = keep ? ~0ULL : d.cached_chunk;
        if (!scratch.inflater.decode(raw.data(), stored, plain.data(), cbytes))
          fail_row(d.name, c0, "corrupt compressed chunk");
        if (keep) d.cached_chunk = c0;
        src = plain.data();
      } else if (stored != cbytes) {
        return false;
      }
      if (d.shuffle && es == 8) unshuffle8(src, cs, lo - c0, hi - c0, o);
      else std::memcpy(o, src + (lo - c0) * es, (hi - lo) * es);
    }
    return true;
  }

  // Shuffle stored byte j of element i at j*n + i; put rows [lo, hi) back.
  static void unshuffle8(const uint8_t* src, uint64_t n, uint64_t lo, uint64_t hi, uint8_t* out) {
    const uint8_t* b[8];
    for (int j = 0; j < 8; ++j) b[j] = src + j * n;
    uint64_t i = lo;
#ifdef __SSE2__
    // 16 rows at a time: an 8x16 byte transpose in three rounds of unpacks.
    for (; i + 16 <= hi; i += 16) {
      __m128i r[8];
      for (int j = 0; j < 8; ++j) r[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b[j] + i));
      __m128i a0 = _mm_unpacklo_epi8(r[0], r[1]), a1 = _mm_unpackhi_epi8(r[0], r[1]);
      __m128i a2 = _mm_unpacklo_epi8(r[2], r[3]), a3 = _mm_unpackhi_epi8(r[2], r[3]);
      __m128i a4 = _mm_unpacklo_epi8(r[4], r[5]), a5 = _mm_unpackhi_epi8(r[4], r[5]);
      __m128i a6 = _mm_unpacklo_epi8(r[6], r[7]), a7 = _mm_unpackhi_epi8(r[6], r[7]);
      __m128i b0 = _mm_unpacklo_epi16(a0, a2), b1 = _mm_unpackhi_epi16(a0, a2);
      __m128i b2 = _mm_unpacklo_epi16(a1, a3), b3 = _mm_unpackhi_epi16(a1, a3);
      __m128i c0 = _mm_unpacklo_epi16(a4, a6), c1 = _mm_unpackhi_epi16(a4, a6);
      __m128i c2 = _mm_unpacklo_epi16(a5, a7), c3 = _mm_unpackhi_epi16(a5, a7);
      __m128i* o = reinterpret_cast<__m128i*>(out + (i - lo) * 8);
      _mm_storeu_si128(o + 0, _mm_unpacklo_epi32(b0, c0));
      _mm_storeu_si128(o + 1, _mm_unpackhi_epi32(b0, c0));
      _mm_storeu_si128(o + 2, _mm_unpacklo_epi32(b1, c1));
      _mm_storeu_si128(o + 3, _mm_unpackhi_epi32(b1, c1));
      _mm_storeu_si128(o + 4, _mm_unpacklo_epi32(b2, c2));
      _mm_storeu_si128(o + 5, _mm_unpackhi_epi32(b2, c2));
      _mm_storeu_si128(o + 6, _mm_unpacklo_epi32(b3, c3));
      _mm_storeu_si128(o + 7, _mm_unpackhi_epi32(b3, c3));
    }
#endif
    for (; i < hi; ++i) {
      uint64_t v = 0;
      for (int j = 0; j < 8; ++j) v |= static_cast<uint64_t>(b[j][i]) << (8 * j);
      std::memcpy(out + (i - lo) * 8, &v, 8);
    }
  }

  // Reads rows [first, first+count) straight into `out`.
  // cache: keep the inflated chunk the range ends inside (range() only, one
  // thread at a time; columns() runs on several).
  void read_rows(Ds& d, uint64_t first, uint64_t count, void* out, bool cache = false) {
    if (count == 0) return;
    if (d.direct && count > 1 && read_direct(d, first, count, out, cache)) return;
    std::lock_guard<std::mutex> lock(lib_);
    Hid fs(H5Scopy(d.space), H5Sclose);
    hsize_t start = first, cnt = count;
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, nullptr, &cnt, nullptr);
    Hid ms = space_1d(count);
    if (H5Dread(d.ds, d.mem, ms, fs, H5P_DEFAULT, out) < 0)
      fail_row(d.name, first, "cannot read " + std::to_string(count) + " rows (corrupt data or unavailable filter)");
  }

  uint64_t read_one(Ds& d, uint64_t row) {
    uint64_t v = 0;
    read_rows(d, row, 1, &v);
    return v;
  }

  void check_len(const Ds& d, uint64_t expect, const std::string& like, const char* note = "") const {
    if (d.len != expect)
      fail(d.name, "has " + std::to_string(d.len) + " rows but " + like + " needs " + std::to_string(expect) + note);
  }

  void check_version() {
    if (H5Aexists(file_, "format_version") <= 0)
      throw InputError(path_, "missing root attribute format_version (not an isocheck HDF5 history?)");
    Hid a(H5Aopen(file_, "format_version", H5P_DEFAULT), H5Aclose);
    Hid t(H5Aget_type(a), H5Tclose);
    Hid s(H5Aget_space(a), H5Sclose);
    if (H5Tget_class(t) != H5T_INTEGER || H5Sget_simple_extent_npoints(s) != 1)
      throw InputError(path_, "root attribute format_version must be one integer, found " + describe_type(t));
    int64_t v = 0;
    H5Aread(a, H5T_NATIVE_INT64, &v);
    if (v != kHdf5FormatVersion)
      throw InputError(path_, "unsupported format_version " + std::to_string(v) + " (this isocheck reads version " +
                                  std::to_string(kHdf5FormatVersion) + ")");
  }

  std::string read_time_unit() {
    if (H5Aexists(file_, "time_unit") <= 0) return "";  // lenient: hand-made files may omit it
    Hid a(H5Aopen(file_, "time_unit", H5P_DEFAULT), H5Aclose);
    Hid t(H5Aget_type(a), H5Tclose);
    if (H5Tget_class(t) != H5T_STRING)
      throw InputError(path_, "root attribute time_unit must be a string, found " + describe_type(t));
    if (H5Tis_variable_str(t) > 0) {
      if (std::string bad = checked::check_vlen_attribute(file_, "time_unit"); !bad.empty())
        throw InputError(path_, "cannot read root attribute time_unit (damaged file: " + bad + ")");
      Hid mt = vlen_string_type();
      char* p = nullptr;
      if (H5Aread(a, mt, &p) < 0) throw InputError(path_, "cannot read root attribute time_unit" + damage());
      std::string s = p ? p : "";
      H5free_memory(p);
      return s;
    }
    size_t n = H5Tget_size(t);
    std::string s(n, '\0');
    Hid mt(H5Tcopy(t), H5Tclose);
    if (H5Aread(a, mt, s.data()) < 0) throw InputError(path_, "cannot read root attribute time_unit" + damage());
    s.resize(std::strlen(s.c_str()));
    return s;
  }

  // Optional name table; returns false when absent (integer mode).
  bool read_names(const std::string& table, const std::string& flags, SymbolTable* out, size_t& count);

  // Every dataset, opened once; their lengths checked against each other.
  struct Layout {
    Ds id, session, status, begin, end, op_off, kind, key, value, list_off, list;
    Ds scan;                // /op/scan, optional: has_scan
    bool has_scan = false;
    Ds pred;                // /op/predicate, optional: has_pred
    bool has_pred = false;
    std::vector<ValuePredicate> predicates;  // /predicate/{cmp,a,b}, with has_pred
    bool predicates_checked = false;         // their constants (check_value_predicate_constants)
    uint64_t n = 0, m = 0;  // transactions, operations
  };
  // (open_predicate_reads: the rows marked 5, for read_value_predicates.)
  void read_scan_marks(Ds& d, uint64_t o0, const std::vector<OpKind>& kind, History& h,
                       std::vector<uint64_t>& open_predicate_reads);
  void read_value_predicate_table(Layout& L);
  void check_value_predicate_constants(Layout& L);
  void read_value_predicates(Layout& L, uint64_t o0, History& h, std::vector<uint64_t>& open_predicate_reads);
  Layout& layout();
  void ensure_tables(bool names);
  void check_range(uint64_t first, uint64_t last, uint64_t n) const;
  std::vector<uint64_t> read_offsets(Ds& d, uint64_t first, uint64_t cnt, uint64_t limit, bool cache = false) {
    std::vector<uint64_t> o;
    read_offsets(d, first, cnt, limit, o, cache);
    return o;
  }
  void read_offsets(Ds& d, uint64_t first, uint64_t cnt, uint64_t limit, std::vector<uint64_t>& o, bool cache = false);
  void check_sessions(const std::vector<int64_t>& sess, uint64_t first) const;
  void check_status(const std::vector<TxnStatus>& status, uint64_t first) const;
  void check_times(const std::vector<int64_t>& begin, const std::vector<int64_t>& end, uint64_t first) const;
  void check_ops(const OpKind* kind, const Sym* key, const Sym* value, size_t ops, uint64_t o0) const;
  void check_list(const std::vector<Sym>& list, uint64_t l0) const;
  void map_sessions(History& h, const std::vector<int64_t>& sess);
  void check_unique_ids(const History& h, uint64_t first);

  std::string path_;
  uint64_t file_bytes_ = 0;  // its size: no chunk read from it can be larger
  Hid file_;
  std::unique_ptr<Layout> layout_;
  std::string time_unit_;
  // The name tables, read at the first range that needs them.
  // The name tables: checked once (sizes_read_), every name read and
  // checked, but held (names_held_) only when keys(), values(),
  // take_tables() or a one-shot read asks for them: a rank reading a range
  // of a large file needs their sizes alone (symbols are row numbers).
  bool sizes_read_ = false, names_held_ = false, named_keys_ = false, named_values_ = false;
  SymbolTable keys_, values_;
  size_t key_count_ = 0, value_count_ = 0;  // their sizes (validation; kept after take_tables)
  // The HDF5 library may be built without thread safety: every call that
  // reads rows holds lib_ (read_rows, read_direct). init_ guards the lazy
  // layout and tables for concurrent columns() calls.
  std::mutex lib_, init_;
};

// Open-addressing map from user session numbers to dense indices, used when
// the numbers are too sparse for a direct table.
class FlatMap {
 public:
  explicit FlatMap(size_t expect) {
    size_t cap = 16;
    while (cap < expect * 2) cap <<= 1;
    keys_.assign(cap, kEmpty);
    vals_.resize(cap);
  }
  // Returns the value for k, inserting `fresh` when absent.
  uint32_t get_or_insert(uint64_t k, uint32_t fresh, bool& inserted) {
    if ((size_ + 1) * 2 > keys_.size()) grow();
    size_t mask = keys_.size() - 1, i = hash(k) & mask;
    while (keys_[i] != kEmpty) {
      if (keys_[i] == k) return inserted = false, vals_[i];
      i = (i + 1) & mask;
    }
    keys_[i] = k, vals_[i] = fresh, ++size_, inserted = true;
    return fresh;
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};  // sessions are < 2^32
  static size_t hash(uint64_t k) { return (k * 0x9E3779B97F4A7C15ULL) >> 17; }
  void grow() {
    std::vector<uint64_t> ok = std::move(keys_);
    std::vector<uint32_t> ov = std::move(vals_);
    keys_.assign(ok.size() * 2, kEmpty);
    vals_.resize(ok.size() * 2);
    size_t mask = keys_.size() - 1;
    for (size_t j = 0; j < ok.size(); ++j) {
      if (ok[j] == kEmpty) continue;
      size_t i = hash(ok[j]) & mask;
      while (keys_[i] != kEmpty) i = (i + 1) & mask;
      keys_[i] = ok[j], vals_[i] = ov[j];
    }
  }
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> vals_;
  size_t size_ = 0;
};

// Sessions are in range (check_sessions).
void Reader::map_sessions(History& h, const std::vector<int64_t>& sess) {
  size_t n = sess.size();
  h.txn_session.resize(n);
  int64_t hi = 0;
  for (size_t i = 0; i < n; ++i) hi = std::max(hi, sess[i]);
  // Dense indices in order of first appearance, as the JSONL reader assigns them.
  if (static_cast<uint64_t>(hi) <= 4 * static_cast<uint64_t>(n) + 4096) {
    std::vector<uint32_t> direct(static_cast<size_t>(hi) + 1, UINT32_MAX);
    for (size_t i = 0; i < n; ++i) {
      uint32_t& d = direct[sess[i]];
      if (d == UINT32_MAX) {
        d = static_cast<uint32_t>(h.session_name.size());
        h.session_name.push_back(sess[i]);
      }
      h.txn_session[i] = d;
    }
  } else {
    FlatMap map(1024);
    for (size_t i = 0; i < n; ++i) {
      bool ins;
      uint32_t d = map.get_or_insert(static_cast<uint64_t>(sess[i]), static_cast<uint32_t>(h.session_name.size()), ins);
      if (ins) h.session_name.push_back(sess[i]);
      h.txn_session[i] = d;
    }
  }
}

void Reader::check_unique_ids(const History& h, uint64_t first) {
  const auto& id = h.txn_id;
  size_t n = id.size();
  if (n < 2) return;
  // Generators and collectors number transactions in order: one cheap pass.
  bool increasing = true;
  int64_t lo = id[0], hi = id[0];
  for (size_t i = 1; i < n; ++i) {
    increasing &= id[i - 1] < id[i];
    lo = std::min(lo, id[i]), hi = std::max(hi, id[i]);
  }
  if (increasing) return;
  auto report = [&](int64_t dup) {
    size_t a = 0;
    while (id[a] != dup) ++a;
    size_t b = a + 1;
    while (id[b] != dup) ++b;
    throw_hdf5_duplicate_id(path_, dup, first + a, first + b);
  };
  uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span <= 16 * static_cast<uint64_t>(n)) {
    std::vector<uint64_t> bits(span / 64 + 1, 0);
    for (size_t i = 0; i < n; ++i) {
      uint64_t o = static_cast<uint64_t>(id[i]) - static_cast<uint64_t>(lo);
      uint64_t m = uint64_t{1} << (o & 63);
      if (bits[o >> 6] & m) report(id[i]);
      bits[o >> 6] |= m;
    }
    return;
  }
  // Sparse ids: the first repeat in row order, as the dense pass above (and
  // every other reader) reports it — not the smallest repeated id.
  std::vector<std::pair<int64_t, size_t>> sorted(n);
  for (size_t i = 0; i < n; ++i) sorted[i] = {id[i], i};
  std::sort(sorted.begin(), sorted.end());
  FirstRepeat rep;
  for (const auto& [v, row] : sorted) rep.see(v, row);
  if (rep.found()) throw_hdf5_duplicate_id(path_, rep.id, first + rep.a, first + rep.b);
}

// A name table checked (its type, its flags, every name flagged as an
// integer) a block at a time; into `out` when given (else nothing is kept:
// memory one block). `count`: its rows.
bool Reader::read_names(const std::string& table, const std::string& flags, SymbolTable* out, size_t& count) {
  count = 0;
  if (!exists(table)) {
    if (exists(flags)) fail(flags, "present without " + table);
    return false;
  }
  Ds d = open_any(table);
  Hid ft(H5Dget_type(d.ds), H5Tclose);
  if (H5Tget_class(ft) != H5T_STRING) fail(table, "wrong datatype: expected a string, found " + describe_type(ft));
  count = d.len;
  std::optional<Ds> f;
  if (exists(flags)) {
    f.emplace(open_int(flags, 1));
    check_len(*f, d.len, table);
  }
  std::vector<std::string> names(out ? d.len : 0), block_names;
  std::vector<uint8_t> is_int(out ? d.len : 0, 0), block_flags;
  // Blocks bound the library's temporary allocations for huge tables.
  const uint64_t block = 1 << 16;
  bool vlen = H5Tis_variable_str(ft) > 0;
  Hid mt = vlen ? vlen_string_type() : Hid(H5Tcopy(ft), H5Tclose);
  size_t fixed = vlen ? 0 : H5Tget_size(ft);
  std::vector<char*> ptrs;
  std::vector<char> buf;
  for (uint64_t s = 0; s < d.len; s += block) {
    uint64_t c = std::min(block, d.len - s);
    // (Held: the rows of the whole table; checked only: this block's.)
    std::string* nm = out ? names.data() + s : (block_names.resize(c), block_names.data());
    Hid fs(H5Scopy(d.space), H5Sclose);
    hsize_t start = s, cnt = c;
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, nullptr, &cnt, nullptr);
    Hid ms = space_1d(c);
    if (vlen) {
      ptrs.assign(c, nullptr);
      if (H5Dread(d.ds, mt, ms, fs, H5P_DEFAULT, ptrs.data()) < 0) fail_row(table, s, "cannot read the names");
      for (uint64_t i = 0; i < c; ++i) nm[i] = ptrs[i] ? ptrs[i] : "";
      H5Dvlen_reclaim(mt, ms, H5P_DEFAULT, ptrs.data());
    } else {
      buf.assign(c * fixed, '\0');
      if (H5Dread(d.ds, mt, ms, fs, H5P_DEFAULT, buf.data()) < 0) fail_row(table, s, "cannot read the names");
      for (uint64_t i = 0; i < c; ++i) {
        const char* p = buf.data() + i * fixed;
        nm[i].assign(p, strnlen(p, fixed));
      }
    }
    if (!f) continue;
    uint8_t* fl = out ? is_int.data() + s : (block_flags.resize(c), block_flags.data());
    read_rows(*f, s, c, fl);
    for (uint64_t i = 0; i < c; ++i) {
      if (fl[i] > 1) fail_row(flags, s + i, "must be 0 or 1, is " + std::to_string(fl[i]));
      if (fl[i]) {
        int64_t v;
        const std::string& name = nm[i];
        auto [p, ec] = std::from_chars(name.data(), name.data() + name.size(), v);
        if (ec != std::errc() || p != name.data() + name.size() || name.empty())
          fail_row(table, s + i, "name \"" + name + "\" is flagged as an integer in " + flags + " but is not one");
      }
    }
  }
  if (!out) return true;
  out->set_named(std::move(names), std::move(is_int));
  return true;
}

// Datasets opened, their lengths and end offsets checked: once per Reader.
Reader::Layout& Reader::layout() {
  if (layout_) return *layout_;
  time_unit_ = read_time_unit();
  auto L = std::make_unique<Layout>();
  L->id = open_int("/txn/id", 8), L->session = open_int("/txn/session", 8), L->status = open_int("/txn/status", 1),
  L->begin = open_int("/txn/begin", 8), L->end = open_int("/txn/end", 8), L->op_off = open_int("/txn/op_offset", 8);
  uint64_t n = L->n = L->id.len;
  for (Ds* d : {&L->session, &L->status, &L->begin, &L->end}) check_len(*d, n, "/txn/id");
  check_len(L->op_off, n + 1, "/txn/id", " (one more than the transactions)");
  L->kind = open_int("/op/kind", 1), L->key = open_int("/op/key", 8), L->value = open_int("/op/value", 8),
  L->list_off = open_int("/op/list_offset", 8);
  uint64_t m = L->m = L->kind.len;
  for (Ds* d : {&L->key, &L->value}) check_len(*d, m, "/op/kind");
  check_len(L->list_off, m + 1, "/op/kind", " (one more than the operations)");
  L->list = open_int("/list/value", 8);
  // Written only for histories with range scans; older files have none.
  if (exists("/op/scan")) {
    L->scan = open_int("/op/scan", 1);
    check_len(L->scan, m, "/op/kind");
    L->has_scan = true;
  }
  if (exists("/op/predicate")) {
    L->pred = open_int("/op/predicate", 4);
    check_len(L->pred, m, "/op/kind");
    L->has_pred = true;
    read_value_predicate_table(*L);
  }
  if (read_one(L->op_off, 0) != 0) fail_row("/txn/op_offset", 0, "must start at 0");
  if (uint64_t e = read_one(L->op_off, n); e != m)
    fail_row("/txn/op_offset", n, "must end at the operation count " + std::to_string(m) + ", is " + std::to_string(e));
  if (read_one(L->list_off, 0) != 0) fail_row("/op/list_offset", 0, "must start at 0");
  if (uint64_t e = read_one(L->list_off, m); e != L->list.len)
    fail_row("/op/list_offset", m,
             "must end at the row count of /list/value " + std::to_string(L->list.len) + ", is " + std::to_string(e));
  layout_ = std::move(L);
  return *layout_;
}

void Reader::ensure_tables(bool names) {
  if (names ? names_held_ : sizes_read_) return;
  // (Names asked for after a check without them: the tables are read again.)
  named_keys_ = read_names("/key_names", "/key_name_is_int", names ? &keys_ : nullptr, key_count_);
  named_values_ = read_names("/value_names", "/value_name_is_int", names ? &values_ : nullptr, value_count_);
  sizes_read_ = true;
  names_held_ = names;
}

void Reader::check_range(uint64_t first, uint64_t last, uint64_t n) const {
  if (first > last || last > n)
    throw UsageError(path_ + ": transaction range [" + std::to_string(first) + ", " + std::to_string(last) +
                     ") is outside [0, " + std::to_string(n) + ")");
}

// Rows [first, first+cnt] of an offset column, checked non-decreasing and at most `limit`.
void Reader::read_offsets(Ds& d, uint64_t first, uint64_t cnt, uint64_t limit, std::vector<uint64_t>& o, bool cache) {
  resize_populated(o, cnt + 1);
  read_rows(d, first, cnt + 1, o.data(), cache);
  bool bad = false;
  for (size_t i = 0; i < cnt; ++i) bad |= o[i] > o[i + 1];
  if (bad || o[cnt] > limit)
    for (size_t i = 0; i < cnt; ++i)
      if (o[i] > o[i + 1] || o[i + 1] > limit)
        fail_row(d.name, first + i + 1,
                 "offsets must be non-decreasing and at most " + std::to_string(limit) + ": " + std::to_string(o[i]) +
                     " then " + std::to_string(o[i + 1]));
}

void Reader::check_sessions(const std::vector<int64_t>& sess, uint64_t first) const {
  int64_t lo = 0, hi = 0;
  for (int64_t s : sess) lo = std::min(lo, s), hi = std::max(hi, s);
  if (lo < 0 || hi > int64_t{UINT32_MAX}) {
    for (size_t i = 0; i < sess.size(); ++i)
      if (sess[i] < 0 || sess[i] > int64_t{UINT32_MAX})
        fail_row("/txn/session", first + i,
                 "session " + std::to_string(sess[i]) + " is out of range (0 to 4294967295)");
  }
}

void Reader::check_status(const std::vector<TxnStatus>& status, uint64_t first) const {
  const uint8_t* st = reinterpret_cast<const uint8_t*>(status.data());
  size_t cnt = status.size();
  uint8_t worst = 0;
  for (size_t i = 0; i < cnt; ++i) worst = std::max(worst, st[i]);
  if (worst > 2)
    for (size_t i = 0; i < cnt; ++i)
      if (st[i] > 2)
        fail_row("/txn/status", first + i,
                 "status " + std::to_string(st[i]) + " is out of range (0 committed, 1 aborted, 2 unknown)");
}

void Reader::check_times(const std::vector<int64_t>& begin, const std::vector<int64_t>& end, uint64_t first) const {
  const int64_t *b = begin.data(), *e = end.data();
  size_t cnt = begin.size();
  bool bad = false;
  for (size_t i = 0; i < cnt; ++i) bad |= ((b[i] == kNoTime) != (e[i] == kNoTime)) | (b[i] > e[i]);
  if (bad)
    for (size_t i = 0; i < cnt; ++i) {
      if ((b[i] == kNoTime) != (e[i] == kNoTime))
        fail_row(b[i] == kNoTime ? "/txn/begin" : "/txn/end", first + i,
                 "begin and end must be given together (the other is present; INT64_MIN means absent)");
      if (b[i] > e[i])
        fail_row("/txn/begin", first + i, "begin (" + std::to_string(b[i]) + ") is after end (" + std::to_string(e[i]) + ")");
    }
}

// Kinds, null writes and symbol ranges of operations [o0, o0 + ops) (tables read).
void Reader::check_ops(const OpKind* kind, const Sym* key, const Sym* v, size_t ops, uint64_t o0) const {
  const uint8_t* k = reinterpret_cast<const uint8_t*>(kind);
  {
    // One branch-free pass finds whether anything is wrong; the slow pass names the row.
    Sym vsize = named_values_ ? value_count_ : 0;
    bool bad = false;
    for (size_t i = 0; i < ops; ++i) {
      bool rw = k[i] == 1 || k[i] == 2;
      bad |= k[i] > 3;
      bad |= rw & (v[i] == kNullValue);
      if (named_values_) bad |= ((k[i] == 0) & (v[i] != kNullValue) & (v[i] >= vsize)) | (rw & (v[i] >= vsize));
    }
    if (bad)
      for (size_t i = 0; i < ops; ++i) {
        if (k[i] > 3)
          fail_row("/op/kind", o0 + i,
                   "kind " + std::to_string(k[i]) + " is out of range (0 read, 1 write, 2 append, 3 list read)");
        bool rw = k[i] == 1 || k[i] == 2;
        if (rw && v[i] == kNullValue)
          fail_row("/op/value", o0 + i,
                   std::string("a ") + (k[i] == 1 ? "write" : "append") +
                       " cannot write null (0x8000000000000000 is reserved for reads of the initial state)");
        if (named_values_ && (rw || (k[i] == 0 && v[i] != kNullValue)) && v[i] >= vsize)
          fail_row("/op/value", o0 + i,
                   "value symbol " + std::to_string(v[i]) + " is out of range of /value_names (" +
                       std::to_string(vsize) + " names)");
      }
  }
  if (named_keys_) {
    Sym ksize = key_count_;
    Sym worst = 0;
    for (size_t i = 0; i < ops; ++i) worst = std::max(worst, key[i]);
    if (ops && worst >= ksize)
      for (size_t i = 0; i < ops; ++i)
        if (key[i] >= ksize)
          fail_row("/op/key", o0 + i,
                   "key symbol " + std::to_string(key[i]) + " is out of range of /key_names (" +
                       std::to_string(ksize) + " names)");
  }
}

void Reader::check_list(const std::vector<Sym>& list, uint64_t l0) const {
  Sym limit = named_values_ ? value_count_ : kNullValue;  // integer mode: only null is invalid
  const Sym* lv = list.data();
  size_t ln = list.size();
  bool bad = false;
  for (size_t i = 0; i < ln; ++i) bad |= (lv[i] >= limit) & (named_values_ | (lv[i] == kNullValue));
  if (bad)
    for (size_t i = 0; i < ln; ++i) {
      if (lv[i] == kNullValue) fail_row("/list/value", l0 + i, "a list read cannot contain null");
      if (named_values_ && lv[i] >= limit)
        fail_row("/list/value", l0 + i,
                 "value symbol " + std::to_string(lv[i]) + " is out of range of /value_names (" +
                     std::to_string(limit) + " names)");
    }
}

// The scans' value predicates, /predicate/{cmp,a,b} (hdf5_write.cpp), read
// whole: one row per scan that has one.
void Reader::read_value_predicate_table(Layout& L) {
  // (Without /op/scan every row of /op/predicate must be 0, checked row by
  // row: earlier releases wrote the two columns for a scan that read no key.)
  Ds cmp = open_int("/predicate/cmp", 1), a = open_int("/predicate/a", 8), b = open_int("/predicate/b", 8);
  check_len(a, cmp.len, "/predicate/cmp");
  check_len(b, cmp.len, "/predicate/cmp");
  std::vector<uint8_t> c(cmp.len);
  std::vector<uint64_t> va(cmp.len), vb(cmp.len);
  read_rows(cmp, 0, cmp.len, c.data());
  read_rows(a, 0, a.len, va.data());
  read_rows(b, 0, b.len, vb.data());
  L.predicates.resize(cmp.len);
  for (uint64_t i = 0; i < cmp.len; ++i) {
    if (c[i] > ValuePredicate::between)
      fail_row("/predicate/cmp", i, "comparison " + std::to_string(c[i]) + " is out of range (0 =, 1 !=, 2 <, 3 <=, 4 >, 5 >=, 6 between)");
    L.predicates[i] = {static_cast<ValuePredicate::Cmp>(c[i]), va[i], vb[i]};
  }
}

// Rows [o0, o0 + ops) of /op/predicate into h: the table, and which
// predicate each read of a key a scan did not return stands for.
void Reader::read_value_predicates(Layout& L, uint64_t o0, History& h, std::vector<uint64_t>& open_predicate_reads) {
  std::vector<uint32_t> which(h.op_count());
  read_rows(L.pred, o0, which.size(), which.data(), true);
  std::vector<uint8_t> marked5(which.size(), 0);
  for (OpIdx o : open_predicate_reads) marked5[o - o0] = 1;
  open_predicate_reads.clear();
  // The slice's table: the predicates its reads name, in table order
  // (not the whole table: a round of an audit names a few of many).
  std::vector<uint32_t> used;
  for (uint32_t w : which)
    if (w != 0 && w <= L.predicates.size()) used.push_back(w - 1);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  auto local = [&](uint32_t row) {
    return static_cast<uint32_t>(std::lower_bound(used.begin(), used.end(), row) - used.begin());
  };
  for (size_t i = 0; i < which.size(); ++i) {
    if (which[i] == 0) continue;
    if (which[i] > L.predicates.size())
      fail_row("/op/predicate", o0 + i, "predicate " + std::to_string(which[i]) + " is past /predicate/cmp's " +
                                            std::to_string(L.predicates.size()) + " rows (0: none, else 1 + a row)");
    const uint8_t m = h.predicate_mark(i);
    if (m != 2 && m != 4)
      fail_row("/op/predicate", o0 + i, "names a value predicate, but /op/scan does not mark the operation a read of "
                                        "a key a scan did not return (mark 2 or 4)");
    if (m == 4 && !marked5[i])
      fail_row("/op/scan", o0 + i, "marks an open absence (mark 4), but /op/predicate names a value predicate for it "
                                "(a value predicate's open read is mark 5)");
    marked5[i] = 0;
    h.op_value_predicate.push_back({i, local(which[i] - 1)});
  }
  for (size_t i = 0; i < marked5.size(); ++i)
    if (marked5[i]) fail_row("/op/scan", o0 + i, "mark 5 (a value predicate's open read), but /op/predicate names no predicate for it");
  for (uint32_t row : used) h.value_predicates.push_back(L.predicates[row]);
}

// The predicates' constants are values of the history's value table: checked
// once per reader, when the table is known (read() holds init_).
void Reader::check_value_predicate_constants(Layout& L) {
  if (!L.has_pred || L.predicates_checked) return;
  auto valid = [&](Sym v) { return v != kNullValue && (!named_values_ || v < value_count_); };
  for (size_t i = 0; i < L.predicates.size(); ++i) {
    const ValuePredicate& p = L.predicates[i];
    if (!valid(p.a) || (p.cmp == ValuePredicate::between && !valid(p.b)))
      fail_row("/predicate/a", i, "a constant is not a value of the history's value table");
  }
  L.predicates_checked = true;
}

// Rows [o0, o0 + kind.size()) of /op/scan into h's predicate marks (indices
// in h; History::predicate_mark): 1 marks a read standing for a row a scan
// returned, 2 one standing for a key a scan saw absent, 3 a write standing
// for a delete, 4 a key a scan saw absent in an open absent version (a
// null read: the initial state or a tombstone), 6 an insert's read of the
// open absent version it required (likewise null; not a scan's read).
void Reader::read_scan_marks(Ds& d, uint64_t o0, const std::vector<OpKind>& kind, History& h,
                             std::vector<uint64_t>& open_predicate_reads) {
  std::vector<uint8_t> mark(kind.size());
  read_rows(d, o0, mark.size(), mark.data(), true);
  // Mark 5: mark 4 of a scan with a value predicate (open among the versions
  // that do not match it, /op/predicate names which): an open absence here,
  // and read_value_predicates() checks that it has its predicate.
  size_t absent = 0, deletes = 0, open = 0;
  for (uint8_t& m : mark) {
    if (m == 5) m = 4, open_predicate_reads.push_back(o0 + (&m - mark.data()));
    absent += m == 2 || m == 4, deletes += m == 3, open += m == 4 || m == 6;
  }
  h.scan_absent_ops.reserve(absent);
  h.delete_ops.reserve(deletes);
  h.absent_choice_ops.reserve(open);
  static const char* const kKindNames[] = {"read", "write", "append", "list read"};
  for (size_t i = 0; i < mark.size(); ++i) {
    if (mark[i] == 0) continue;
    if (mark[i] > 6 || mark[i] == 5)  // (a 5 became a 4 above)
      fail_row(d.name, o0 + i,
               "mark " + std::to_string(mark[i]) +
                   " is out of range (0 no scan, 1 a row a scan returned, 2 a key a scan saw absent, 3 a delete, "
                   "4 a key a scan saw absent in an open absent version, 5 a key a scan with a value predicate did "
                   "not return, open among its versions that do not match, 6 an insert's read of the open absent "
                   "version it required)");
    const OpKind want = mark[i] == 3 ? OpKind::write : OpKind::read;
    if (kind[i] != want)
      fail_row(d.name, o0 + i,
               std::string(mark[i] == 3   ? "marks a delete's write (mark 3)"
                           : mark[i] == 6 ? "marks an insert's read (mark 6)"
                                          : "marks a scan's read") +
                   ", but the operation is a " + kKindNames[static_cast<uint8_t>(kind[i])] + " (kind " +
                   std::to_string(static_cast<int>(kind[i])) +
                   (mark[i] == 3 ? "; a delete is a write of its tombstone, kind 1)"
                                 : "; a scan's observations are reads, kind 0)"));
    if ((mark[i] == 4 || mark[i] == 6) && h.op_value[i] != kNullValue)
      fail_row(d.name, o0 + i, "marks an open read (mark 4, 5 or 6), but the read's value is not null");
    h.mark_predicate(i, mark[i]);
  }
}

History Reader::read(uint64_t first, uint64_t last, bool whole, bool own_tables, bool release_unused_lists) {
  {
    std::lock_guard<std::mutex> lock(init_);  // (columns() may run meanwhile)
    layout();
    ensure_tables(own_tables);
    check_value_predicate_constants(*layout_);
  }
  Layout& L = *layout_;
  History h;
  h.time_unit = time_unit_;
  uint64_t n = L.n, m = L.m;
  if (whole) first = 0, last = n;
  check_range(first, last, n);
  size_t cnt = last - first;

  // Offsets first: they say which operations and list values belong to the range.
  h.txn_op_offset = read_offsets(L.op_off, first, cnt, m, true);
  uint64_t o0 = h.txn_op_offset[0], o1 = h.txn_op_offset[cnt], ops = o1 - o0;
  // Without list values every offset must be 0: checked a block at a time
  // when the caller would release them anyway (set again below if some
  // operation reads a list, all empty).
  const bool skip_list_offsets = release_unused_lists && L.list.len == 0;
  if (skip_list_offsets) {
    constexpr uint64_t kBlock = uint64_t{1} << 20;
    std::vector<uint64_t> block;
    uint64_t at = 0;
    do read_offsets(L.list_off, o0 + at, std::min(kBlock, ops - at), 0, block, true);
    while ((at += kBlock) < ops);
    h.op_list_offset.clear();
  } else {
    h.op_list_offset = read_offsets(L.list_off, o0, ops, L.list.len, true);
  }
  uint64_t l0 = skip_list_offsets ? 0 : h.op_list_offset[0], l1 = skip_list_offsets ? 0 : h.op_list_offset[ops];

  // A column's rows [at, at + n) into v.
  auto column = [&](auto& dataset, uint64_t at, uint64_t n, auto& v) {
    resize_populated(v, n);
    read_rows(dataset, at, n, v.data(), true);
  };
  // Transactions.
  column(L.id, first, cnt, h.txn_id);
  column(L.status, first, cnt, h.txn_status);
  column(L.begin, first, cnt, h.txn_begin);
  column(L.end, first, cnt, h.txn_end);
  {
    std::vector<int64_t> sess(cnt);
    read_rows(L.session, first, cnt, sess.data(), true);
    check_sessions(sess, first);
    map_sessions(h, sess);
  }
  check_status(h.txn_status, first);
  check_times(h.txn_begin, h.txn_end, first);
  check_unique_ids(h, first);
  for (auto& o : h.txn_op_offset) o -= o0;

  // Operations.
  column(L.kind, o0, ops, h.op_kind);
  column(L.key, o0, ops, h.op_key);
  column(L.value, o0, ops, h.op_value);
  column(L.list, l0, l1 - l0, h.list_value);
  for (auto& o : h.op_list_offset) o -= l0;

  ensure_tables(own_tables);
  check_ops(h.op_kind.data(), h.op_key.data(), h.op_value.data(), ops, o0);
  if (skip_list_offsets && std::find(h.op_kind.begin(), h.op_kind.end(), OpKind::read_list) != h.op_kind.end())
    h.op_list_offset.assign(ops + 1, 0);
  check_list(h.list_value, l0);
  std::vector<uint64_t> open_predicate_reads;
  if (L.has_scan) read_scan_marks(L.scan, o0, h.op_kind, h, open_predicate_reads);  // (kinds checked)
  if (L.has_pred) read_value_predicates(L, o0, h, open_predicate_reads);             // (marks read)
  else if (!open_predicate_reads.empty()) {
    const uint64_t o = open_predicate_reads.front();
    open_predicate_reads.clear();
    fail_row("/op/scan", o, "mark 5 (a value predicate's open read), but the file has no /op/predicate");
  }
  if (own_tables) {  // one-shot reads: the tables go with the history
    h.keys = std::move(keys_);
    h.values = std::move(values_);
    keys_ = values_ = SymbolTable{};
    names_held_ = false;
  }
  return h;
}

// Into `c`, whose vectors keep their capacity: a caller that reads piece
// after piece into one Hdf5Columns does not fault in fresh pages each time.
void Reader::columns(uint64_t first, uint64_t last, unsigned which, Hdf5Columns& c) {
  {
    std::lock_guard<std::mutex> lock(init_);
    layout();
    if (which & Hdf5RangeReader::kOps) ensure_tables(false);
  }
  Layout& L = *layout_;
  check_range(first, last, L.n);
  size_t cnt = last - first;
  c.id.clear(), c.session.clear(), c.status.clear(), c.begin.clear(), c.end.clear();
  c.op_offset.clear(), c.op_kind.clear(), c.op_key.clear(), c.op_value.clear();
  if (which & Hdf5RangeReader::kIds) {  // (unchecked: a caller that asks checks them across ranges)
    c.id.resize(cnt);
    read_rows(L.id, first, cnt, c.id.data());
  }
  if (which & Hdf5RangeReader::kOps) {
    read_offsets(L.op_off, first, cnt, L.m, c.op_offset);
    uint64_t o0 = c.op_offset[0], ops = c.op_offset[cnt] - o0;
    for (auto& o : c.op_offset) o -= o0;
    c.op_kind.resize(ops);
    read_rows(L.kind, o0, ops, c.op_kind.data());
    c.op_key.resize(ops);
    read_rows(L.key, o0, ops, c.op_key.data());
    c.op_value.resize(ops);
    read_rows(L.value, o0, ops, c.op_value.data());
    check_ops(c.op_kind.data(), c.op_key.data(), c.op_value.data(), ops, o0);
  } else if (which & Hdf5RangeReader::kOpKinds) {
    read_offsets(L.op_off, first, cnt, L.m, c.op_offset);
    uint64_t o0 = c.op_offset[0], ops = c.op_offset[cnt] - o0;
    for (auto& o : c.op_offset) o -= o0;
    c.op_kind.resize(ops);
    read_rows(L.kind, o0, ops, c.op_kind.data());
  }
  if (which & Hdf5RangeReader::kSession) {
    c.session.resize(cnt);
    read_rows(L.session, first, cnt, c.session.data());
    check_sessions(c.session, first);
  }
  if (which & Hdf5RangeReader::kStatus) {
    c.status.resize(cnt);
    read_rows(L.status, first, cnt, c.status.data());
    check_status(c.status, first);
  }
  if (which & Hdf5RangeReader::kTimes) {
    c.begin.resize(cnt);
    read_rows(L.begin, first, cnt, c.begin.data());
    c.end.resize(cnt);
    read_rows(L.end, first, cnt, c.end.data());
    check_times(c.begin, c.end, first);
  }
}

}  // namespace

History read_hdf5(const std::string& path, bool release_unused_lists) {
  return Reader(path).read(0, 0, true, true, release_unused_lists);
}

History read_hdf5_range(const std::string& path, uint64_t txn_first, uint64_t txn_last) {
  return Reader(path).read(txn_first, txn_last, false, true);
}

struct Hdf5RangeReader::Impl {
  explicit Impl(const std::string& path) : reader(path) {}
  Reader reader;
};

Hdf5RangeReader::Hdf5RangeReader(const std::string& path) : impl_(std::make_unique<Impl>(path)) {}
Hdf5RangeReader::~Hdf5RangeReader() = default;
Hdf5RangeReader::Hdf5RangeReader(Hdf5RangeReader&&) noexcept = default;
Hdf5RangeReader& Hdf5RangeReader::operator=(Hdf5RangeReader&&) noexcept = default;
uint64_t Hdf5RangeReader::txn_count() { return impl_->reader.txn_count(); }
const SymbolTable& Hdf5RangeReader::keys() { return impl_->reader.keys(); }
const SymbolTable& Hdf5RangeReader::values() { return impl_->reader.values(); }
void throw_hdf5_duplicate_id(const std::string& file, int64_t id, uint64_t a, uint64_t b) {
  throw InputError(file + ": dataset /txn/id row " + std::to_string(b),
                   "duplicate transaction id " + std::to_string(id) + " (rows " + std::to_string(a) + " and " +
                       std::to_string(b) + ")");
}

void Hdf5RangeReader::take_tables(SymbolTable& keys, SymbolTable& values) { impl_->reader.take_tables(keys, values); }
bool Hdf5RangeReader::holds_names() const { return impl_->reader.holds_names(); }
const std::string& Hdf5RangeReader::time_unit() { return impl_->reader.time_unit(); }
History Hdf5RangeReader::range(uint64_t first, uint64_t last) { return impl_->reader.read(first, last, false, false); }
Hdf5Columns Hdf5RangeReader::columns(uint64_t first, uint64_t last, unsigned which) {
  Hdf5Columns c;
  impl_->reader.columns(first, last, which, c);
  return c;
}

void Hdf5RangeReader::columns(uint64_t first, uint64_t last, unsigned which, Hdf5Columns& out) {
  impl_->reader.columns(first, last, which, out);
}

uint64_t hdf5_txn_count(const std::string& path) { return Reader(path).txn_count(); }

bool hdf5_has_value_predicates(const std::string& path) { return Reader(path).has_value_predicates(); }

}  // namespace isocheck
