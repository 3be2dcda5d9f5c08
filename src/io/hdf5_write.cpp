// The streaming HDF5 writer (a HistorySink): chunked, compressed columns and
// name tables written as they grow. Layout and rationale: docs/hdf5-format.md.
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
#include <unordered_map>

#include "core/errors.h"
#include "io/hdf5_range.h"
#include "io/sink.h"
#include "io/hdf5_handles.h"

namespace isocheck {

using namespace hdf5_detail;

namespace {

// ---------------------------------------------------------------- writer

// One extendible dataset written in whole chunks: appends are buffered up to
// a chunk boundary, so the library never re-reads and re-compresses a partial
// chunk, and memory stays at one chunk per column.
template <class T>
class Column {
 public:
  Column() = default;
  Column(const std::string& path, hid_t loc, const char* name, hid_t file_type, hid_t mem_type, size_t chunk,
         int level)
      : path_(path), name_(name), mem_(mem_type), chunk_(chunk) {
    ds_ = create(path, loc, name, file_type, chunk, level);
    buf_.reserve(chunk);
  }

  // level: deflate level, 0 for no filters.
  static Hid create(const std::string& path, hid_t loc, const char* name, hid_t file_type, size_t chunk, int level) {
    hsize_t zero = 0, unlimited = H5S_UNLIMITED, c = chunk;
    Hid space(H5Screate_simple(1, &zero, &unlimited), H5Sclose);
    Hid dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_chunk(dcpl, 1, &c);
    // Columns are written before they are read, so fill values are wasted
    // work (the library refuses NEVER for variable-length strings).
    if (H5Tis_variable_str(file_type) <= 0) H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    if (level > 0) {
      // Shuffle groups the bytes of each significance together: ids, offsets
      // and small symbols then have long runs of zero bytes. Default level 1:
      // higher levels cost 1.4-2x the CPU for 2-4% smaller files, and reading
      // is no faster (docs/hdf5-format.md has the figures).
      H5Pset_shuffle(dcpl);
      H5Pset_deflate(dcpl, static_cast<unsigned>(std::min(level, 9)));
    }
    // Whole-chunk writes need no chunk cache.
    Hid dapl(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose);
    H5Pset_chunk_cache(dapl, 0, 0, 1.0);
    Hid ds(H5Dcreate2(loc, name, file_type, space, H5P_DEFAULT, dcpl, dapl), H5Dclose);
    if (!ds.ok()) throw InputError(path, std::string("cannot create dataset ") + name);
    return ds;
  }

  uint64_t size() const { return on_disk_ + buf_.size(); }

  void append(const T* p, size_t n) {
    if (!buf_.empty()) {
      size_t take = std::min(n, chunk_ - buf_.size());
      buf_.insert(buf_.end(), p, p + take);
      p += take, n -= take;
      if (buf_.size() == chunk_) write(buf_.data(), chunk_), buf_.clear();
    }
    if (n >= chunk_) {
      size_t whole = n / chunk_ * chunk_;
      write(p, whole);
      p += whole, n -= whole;
    }
    buf_.insert(buf_.end(), p, p + n);
  }
  void push(T v) { append(&v, 1); }

  void flush() {
    if (!buf_.empty()) write(buf_.data(), buf_.size()), buf_.clear();
  }

  // Rewrites every element in place, in blocks: fn(T* block, size_t n, uint64_t first_row).
  // Used once, when a symbol table switches from integer to named mode.
  template <class Fn>
  void rewrite(Fn&& fn) {
    std::vector<T> tmp;
    for (uint64_t s = 0; s < on_disk_; s += chunk_) {
      size_t c = static_cast<size_t>(std::min<uint64_t>(chunk_, on_disk_ - s));
      tmp.resize(c);
      read(s, c, tmp.data());
      fn(tmp.data(), c, s);
      write_at(s, tmp.data(), c);
    }
    if (!buf_.empty()) fn(buf_.data(), buf_.size(), on_disk_);
  }

  // Rows [s, s+c), wherever they are (on disk, buffered, or both).
  void read(uint64_t s, size_t c, T* out) {
    if (s + c > on_disk_) {
      uint64_t from = std::max(s, on_disk_);
      std::copy_n(buf_.data() + (from - on_disk_), s + c - from, out + (from - s));
      c = from - s;
    }
    if (c == 0) return;
    Hid fs(H5Dget_space(ds_), H5Sclose);
    hsize_t start = s, cnt = c;
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, nullptr, &cnt, nullptr);
    Hid ms = space_1d(c);
    if (H5Dread(ds_, mem_, ms, fs, H5P_DEFAULT, out) < 0) throw InputError(path_, "cannot read back " + name_);
  }

  void close() { ds_.reset(); }

 private:
  void write(const T* p, size_t n) {
    hsize_t size = on_disk_ + n;
    if (H5Dset_extent(ds_, &size) < 0) throw InputError(path_, "cannot extend dataset " + name_);
    write_at(on_disk_, p, n);
    on_disk_ += n;
  }
  void write_at(uint64_t at, const T* p, size_t n) {
    Hid fs(H5Dget_space(ds_), H5Sclose);
    hsize_t start = at, cnt = n;
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, nullptr, &cnt, nullptr);
    Hid ms = space_1d(n);
    if (H5Dwrite(ds_, mem_, ms, fs, H5P_DEFAULT, p) < 0)
      throw InputError(path_, "cannot write dataset " + name_ + " (disk full?)");
  }

  std::string path_, name_;
  Hid ds_;
  hid_t mem_ = H5I_INVALID_HID;
  size_t chunk_ = 1;
  uint64_t on_disk_ = 0;
  std::vector<T> buf_;
};

// The sink's running name table for keys or values. Integer mode until a
// chunk brings a named table; from then on every symbol is an index here.
struct RunningNames {
  bool named = false;
  std::vector<std::string> names;
  std::vector<uint8_t> is_int;
  std::unordered_map<std::string, Sym> index;  // 'i'/'s' + name, as SymbolTable keys it
  bool indexed = true;                         // false after adopting a table wholesale

  Sym intern(std::string_view s, bool as_int) {
    if (!indexed) build_index();
    std::string k;
    k.reserve(s.size() + 1);
    k.push_back(as_int ? 'i' : 's');
    k.append(s);
    auto [it, fresh] = index.try_emplace(std::move(k), names.size());
    if (fresh) names.emplace_back(s), is_int.push_back(as_int);
    return it->second;
  }
  Sym intern_int(int64_t v) {
    char b[24];
    auto [p, ec] = std::to_chars(b, b + sizeof b, v);
    return intern(std::string_view(b, p - b), true);
  }
  void adopt(const SymbolTable& t) {
    named = true;
    names = t.names();
    is_int = t.int_flags();
    is_int.resize(names.size(), 0);
    indexed = false;
  }
  void build_index() {
    index.clear();
    index.reserve(names.size() * 2);
    for (size_t i = 0; i < names.size(); ++i) {
      std::string k;
      k.push_back(is_int[i] ? 'i' : 's');
      k.append(names[i]);
      index.emplace(std::move(k), i);
    }
    indexed = true;
  }
};

// Maps a chunk's symbols to the running table's, lazily (a chunk usually uses
// a small part of a generator's cumulative table).
class SymMapper {
 public:
  SymMapper(RunningNames& run, const SymbolTable& t, bool identity) : run_(run), t_(t), identity_(identity) {
    if (!identity_ && t_.named()) map_.assign(t_.size(), kUnset);
  }
  bool identity() const { return identity_; }
  Sym operator()(Sym s) {
    if (identity_) return s;
    if (!t_.named()) return run_.intern_int(SymbolTable::as_int(s));
    if (s >= map_.size()) return s;  // reader-validated data never gets here
    Sym& m = map_[s];
    if (m == kUnset) m = run_.intern(t_.name(s), t_.is_int(s));
    return m;
  }

 private:
  static constexpr Sym kUnset = ~Sym{0};
  RunningNames& run_;
  const SymbolTable& t_;
  bool identity_;
  std::vector<Sym> map_;
};

// With size hints (one-shot writes) small columns get small chunks: a
// filtered chunk is always stored whole, so a 10-row column in a 256Ki-row
// chunk would cost a 2 MiB compression.
struct Hints {
  uint64_t txns = UINT64_MAX, ops = UINT64_MAX, lists = UINT64_MAX;
};

class Hdf5Sink final : public HistorySink {
 public:
  Hdf5Sink(const std::string& path, const std::string& time_unit, const Hdf5Options& opt, Hints hint = Hints())
      : path_(path), level_(opt.deflate_level) {
    quiet_hdf5();
    chunk_ = std::max<size_t>(1, opt.chunk_elems);
    auto fit = [&](uint64_t rows) { return static_cast<size_t>(std::clamp<uint64_t>(rows, 1, chunk_)); };
    auto plus1 = [](uint64_t rows) { return rows == UINT64_MAX ? rows : rows + 1; };
    size_t c_txn = fit(hint.txns), c_op = fit(hint.ops), c_list = fit(hint.lists);
    file_ = Hid(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!file_.ok()) throw InputError(path, "cannot create the HDF5 file");
    {
      Hid s(H5Screate(H5S_SCALAR), H5Sclose);
      Hid a(H5Acreate2(file_, "format_version", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      int v = kHdf5FormatVersion;
      H5Awrite(a, H5T_NATIVE_INT, &v);
      Hid t = vlen_string_type();
      Hid u(H5Acreate2(file_, "time_unit", t, s, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      const char* p = time_unit.c_str();
      H5Awrite(u, t, &p);
    }
    Hid g_txn(H5Gcreate2(file_, "txn", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    g_op_ = Hid(H5Gcreate2(file_, "op", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    hid_t g_op = g_op_;
    c_op_ = c_op;
    Hid g_list(H5Gcreate2(file_, "list", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    auto i64 = [&](hid_t g, const char* n, size_t c) {
      return Column<int64_t>(path, g, n, H5T_STD_I64LE, H5T_NATIVE_INT64, c, level_);
    };
    auto u64 = [&](hid_t g, const char* n, size_t c) {
      return Column<uint64_t>(path, g, n, H5T_STD_U64LE, H5T_NATIVE_UINT64, c, level_);
    };
    auto u8 = [&](hid_t g, const char* n, size_t c) {
      return Column<uint8_t>(path, g, n, H5T_STD_U8LE, H5T_NATIVE_UINT8, c, level_);
    };
    id_ = i64(g_txn, "id", c_txn);
    session_ = i64(g_txn, "session", c_txn);
    status_ = u8(g_txn, "status", c_txn);
    begin_ = i64(g_txn, "begin", c_txn);
    end_ = i64(g_txn, "end", c_txn);
    op_offset_ = u64(g_txn, "op_offset", fit(plus1(hint.txns)));
    kind_ = u8(g_op, "kind", c_op);
    key_ = u64(g_op, "key", c_op);
    value_ = u64(g_op, "value", c_op);
    list_offset_ = u64(g_op, "list_offset", fit(plus1(hint.ops)));
    list_ = u64(g_list, "value", c_list);
    op_offset_.push(0);
    list_offset_.push(0);
  }

  ~Hdf5Sink() override = default;  // unfinished: handles close, the file stays incomplete

  void append(const History& c) override {
    size_t n = c.txn_count(), m = c.op_count();
    id_.append(c.txn_id.data(), n);
    status_.append(reinterpret_cast<const uint8_t*>(c.txn_status.data()), n);
    begin_.append(c.txn_begin.data(), n);
    end_.append(c.txn_end.data(), n);
    uint64_t ops_before = kind_.size(), lists_before = list_.size();
    blocks<int64_t>(session_, n, [&](size_t i) { return c.session_name[c.txn_session[i]]; });
    uint64_t o_base = c.txn_op_offset.empty() ? 0 : c.txn_op_offset[0];
    blocks<uint64_t>(op_offset_, n, [&](size_t i) { return c.txn_op_offset[i + 1] - o_base + ops_before; });
    kind_.append(reinterpret_cast<const uint8_t*>(c.op_kind.data()), m);
    uint64_t l_base = c.op_list_offset.empty() ? 0 : c.op_list_offset[0];
    blocks<uint64_t>(list_offset_, m, [&](size_t i) { return c.op_list_offset[i + 1] - l_base + lists_before; });

    SymMapper km = mapper(keys_, c.keys, ops_before, /*keys=*/true);
    if (km.identity()) key_.append(c.op_key.data(), m);
    else blocks<uint64_t>(key_, m, [&](size_t i) { return km(c.op_key[i]); });

    SymMapper vm = mapper(values_, c.values, ops_before, /*keys=*/false);
    blocks<uint64_t>(value_, m, [&](size_t i) -> Sym {
      Sym v = c.op_value[i];
      if (c.op_kind[i] == OpKind::read_list) return 0;
      return v == kNullValue ? v : vm(v);
    });
    if (vm.identity()) list_.append(c.list_value.data(), c.list_value.size());
    else blocks<uint64_t>(list_, c.list_value.size(), [&](size_t i) { return vm(c.list_value[i]); });
    append_scan_marks(c, ops_before);
    append_value_predicates(c, ops_before, vm);
  }

  void finish() override {
    for (auto* col : {&id_, &session_, &begin_, &end_}) col->flush();
    for (auto* col : {&op_offset_, &key_, &value_, &list_offset_, &list_}) col->flush();
    status_.flush();
    kind_.flush();
    if (has_scan_) scan_.flush(), scan_.close();
    if (has_pred_) write_value_predicates();
    write_names(keys_, "key_names", "key_name_is_int");
    write_names(values_, "value_names", "value_name_is_int");
    for (auto* col : {&id_, &session_, &begin_, &end_}) col->close();
    for (auto* col : {&op_offset_, &key_, &value_, &list_offset_, &list_}) col->close();
    status_.close();
    kind_.close();
    g_op_.reset();
    if (H5Fflush(file_, H5F_SCOPE_GLOBAL) < 0) throw InputError(path_, "cannot flush the HDF5 file (disk full?)");
    file_.reset();
  }

 private:
  // Scans' value predicates (History::value_predicates): /op/predicate, one
  // per operation, 0 or 1 + the index of the predicate of the scan a read
  // stands for, and the table /predicate/{cmp,a,b} (cmp ValuePredicate::Cmp;
  // a, b value symbols as /op/value's), written at finish(). Made at the
  // first chunk where an operation stands for one (zeros for the operations
  // before); a history without such operations has neither.
  template <class Mapper> void append_value_predicates(const History& c, uint64_t ops_before, Mapper& vm) {
    if (!has_pred_) {
      // (A scan whose range holds no key that changes reads nothing: its
      // predicate stands for no operation, and no column is made for it.)
      if (c.op_value_predicate.empty()) return;
      Hid g(H5Gcreate2(file_, "predicate", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
      pred_op_ = Column<uint32_t>(path_, g_op_, "predicate", H5T_STD_U32LE, H5T_NATIVE_UINT32, c_op_, level_);
      has_pred_ = true;
      std::vector<uint32_t> zeros(std::min<uint64_t>(ops_before, chunk_), 0);
      for (uint64_t done = 0; done < ops_before; done += zeros.size())
        pred_op_.append(zeros.data(), std::min<uint64_t>(zeros.size(), ops_before - done));
    }
    const uint64_t base = pred_cmp_.size();
    for (const ValuePredicate& p : c.value_predicates) {
      pred_cmp_.push_back(p.cmp);
      pred_a_.push_back(vm(p.a));
      pred_b_.push_back(p.cmp == ValuePredicate::between ? vm(p.b) : 0);
    }
    if (base + c.value_predicates.size() >= UINT32_MAX)
      throw ResourceError(path_ + ": more than 2^32 - 1 scans with value predicates in one HDF5 file");
    std::vector<uint32_t> col(c.op_count(), 0);
    for (const auto& [o, i] : c.op_value_predicate) col[o] = static_cast<uint32_t>(base + i + 1);
    pred_op_.append(col.data(), col.size());
  }
  void write_value_predicates() {
    pred_op_.flush(), pred_op_.close();
    Hid g(H5Gopen2(file_, "predicate", H5P_DEFAULT), H5Gclose);
    const size_t c = std::clamp<size_t>(pred_cmp_.size(), 1, chunk_);
    Column<uint8_t> cmp(path_, g, "cmp", H5T_STD_U8LE, H5T_NATIVE_UINT8, c, level_);
    Column<uint64_t> a(path_, g, "a", H5T_STD_U64LE, H5T_NATIVE_UINT64, c, level_);
    Column<uint64_t> b(path_, g, "b", H5T_STD_U64LE, H5T_NATIVE_UINT64, c, level_);
    cmp.append(pred_cmp_.data(), pred_cmp_.size());
    a.append(pred_a_.data(), pred_a_.size());
    b.append(pred_b_.data(), pred_b_.size());
    for (auto* col : {&a, &b}) col->flush(), col->close();
    cmp.flush(), cmp.close();
  }

  // /op/scan, one mark per operation (History::predicate_mark): 0 none, 1 a
  // read standing for a row a scan returned, 2 one standing for a key a scan
  // saw absent, 3 a write standing for a delete, 4 one standing for a key a
  // scan saw absent in an open absent version, 6 an insert's read of the
  // open absent version it required. Made at the first chunk with such
  // operations (the operations before it get 0), so a history without scans,
  // inserts' open reads or deletes has no such dataset.
  void append_scan_marks(const History& c, uint64_t ops_before) {
    if (!has_scan_) {
      if (c.scan_ops.empty() && c.delete_ops.empty() && c.absent_choice_ops.empty()) return;
      scan_ = Column<uint8_t>(path_, g_op_, "scan", H5T_STD_U8LE, H5T_NATIVE_UINT8, c_op_, level_);
      has_scan_ = true;
      std::vector<uint8_t> zeros(std::min<uint64_t>(ops_before, chunk_), 0);
      for (uint64_t done = 0; done < ops_before; done += zeros.size())
        scan_.append(zeros.data(), std::min<uint64_t>(zeros.size(), ops_before - done));
    }
    std::vector<uint8_t> mark(c.op_count(), 0);
    for (OpIdx o : c.scan_ops) mark[o] = 1;
    for (OpIdx o : c.scan_absent_ops) mark[o] = 2;
    for (OpIdx o : c.absent_choice_ops) mark[o] = mark[o] == 2 ? 4 : 6;  // (6: not a scan's read)
    for (OpIdx o : c.delete_ops) mark[o] = 3;
    // A value predicate's open read is mark 5, not 4: a reader that does not
    // know /op/predicate refuses it (mark above 4) instead of taking it for
    // an open absence, which excludes every present version.
    for (const auto& [o, i] : c.op_value_predicate)
      if (mark[o] == 4) mark[o] = 5;
    scan_.append(mark.data(), mark.size());
  }

  // Fills `col` with gen(0..n-1), a block at a time.
  template <class T, class Gen>
  void blocks(Column<T>& col, size_t n, Gen&& gen) {
    std::vector<T>& s = scratch<T>();
    size_t block = std::max<size_t>(chunk_, 4096);
    s.resize(std::min(n, block));
    for (size_t b = 0; b < n; b += block) {
      size_t e = std::min(n, b + block);
      for (size_t i = b; i < e; ++i) s[i - b] = gen(i);
      col.append(s.data(), e - b);
    }
  }
  template <class T>
  std::vector<T>& scratch() {
    if constexpr (std::is_same_v<T, int64_t>) return scratch_i64_;
    else return scratch_u64_;
  }

  SymMapper mapper(RunningNames& run, const SymbolTable& t, uint64_t ops_before, bool keys) {
    if (!t.named()) return SymMapper(run, t, !run.named);
    if (!run.named) {
      if (ops_before == 0) {
        run.adopt(t);  // the first symbols seen: keep the chunk's numbering
        return SymMapper(run, t, true);
      }
      switch_to_named(run, keys);
    }
    return SymMapper(run, t, false);
  }

  // Symbols already written were integers; they become names in the order
  // they were written (as the JSONL reader's switch does).
  void switch_to_named(RunningNames& run, bool keys) {
    run.named = true;
    if (keys) {
      key_.rewrite([&](uint64_t* p, size_t n, uint64_t) {
        for (size_t i = 0; i < n; ++i) p[i] = run.intern_int(SymbolTable::as_int(p[i]));
      });
      return;
    }
    std::vector<uint8_t> k;
    value_.rewrite([&](uint64_t* p, size_t n, uint64_t first) {
      k.resize(n);
      kind_.read(first, n, k.data());
      for (size_t i = 0; i < n; ++i)
        if (k[i] != static_cast<uint8_t>(OpKind::read_list) && p[i] != kNullValue)
          p[i] = run.intern_int(SymbolTable::as_int(p[i]));
    });
    list_.rewrite([&](uint64_t* p, size_t n, uint64_t) {
      for (size_t i = 0; i < n; ++i) p[i] = run.intern_int(SymbolTable::as_int(p[i]));
    });
    for (size_t i = 0; i < pred_cmp_.size(); ++i) {
      pred_a_[i] = run.intern_int(SymbolTable::as_int(pred_a_[i]));
      if (pred_cmp_[i] == ValuePredicate::between) pred_b_[i] = run.intern_int(SymbolTable::as_int(pred_b_[i]));
    }
  }

  void write_names(const RunningNames& run, const char* table, const char* flags) {
    if (!run.named) return;
    size_t n = run.names.size();
    size_t chunk = std::clamp<size_t>(n, 1, std::min<size_t>(chunk_, 1 << 16));
    Hid t = vlen_string_type();
    // Compression would only reach the heap references, not the strings.
    Hid ds = Column<uint64_t>::create(path_, file_, table, t, chunk, 0);
    hsize_t size = n;
    H5Dset_extent(ds, &size);
    std::vector<const char*> ptrs;
    for (size_t s = 0; s < n; s += chunk) {
      size_t c = std::min(chunk, n - s);
      ptrs.resize(c);
      for (size_t i = 0; i < c; ++i) {
        const std::string& nm = run.names[s + i];
        if (nm.find('\0') != std::string::npos)
          throw InputError(path_, std::string("a name in ") + table + " contains a NUL byte, which HDF5 strings cannot hold");
        ptrs[i] = nm.c_str();
      }
      Hid fs(H5Dget_space(ds), H5Sclose);
      hsize_t start = s, cnt = c;
      H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, nullptr, &cnt, nullptr);
      Hid ms = space_1d(c);
      if (H5Dwrite(ds, t, ms, fs, H5P_DEFAULT, ptrs.data()) < 0)
        throw InputError(path_, std::string("cannot write dataset ") + table);
    }
    Column<uint8_t> f(path_, file_, flags, H5T_STD_U8LE, H5T_NATIVE_UINT8, std::clamp<size_t>(n, 1, chunk_), level_);
    f.append(run.is_int.data(), n);
    f.flush();
  }

  std::string path_;
  int level_;
  size_t chunk_;
  Hid file_;
  Column<int64_t> id_, session_, begin_, end_;
  Column<uint8_t> status_, kind_, scan_;
  Column<uint32_t> pred_op_;
  std::vector<uint8_t> pred_cmp_;
  std::vector<uint64_t> pred_a_, pred_b_;
  bool has_pred_ = false;
  Hid g_op_;
  size_t c_op_ = 1;
  bool has_scan_ = false;
  Column<uint64_t> op_offset_, key_, value_, list_offset_, list_;
  RunningNames keys_, values_;
  std::vector<int64_t> scratch_i64_;
  std::vector<uint64_t> scratch_u64_;
};

}  // namespace

std::unique_ptr<HistorySink> open_hdf5_sink(const std::string& path, const std::string& time_unit,
                                            const Hdf5Options& opt) {
  return std::make_unique<Hdf5Sink>(path, time_unit, opt);
}

void write_hdf5(const History& h, const std::string& path, const Hdf5Options& opt) {
  Hdf5Sink s(path, h.time_unit, opt, {h.txn_count(), h.op_count(), h.list_value.size()});
  s.append(h);
  s.finish();
}

}  // namespace isocheck
