// The checking POSIX driver (io/hdf5_checked_driver.h).
//
// libhdf5 trusts the sizes inside a global heap collection (where variable-
// length strings live: the time_unit attribute, the name tables): one flipped
// byte in an object's length makes it copy past its buffers or loop for ever.
// Files are therefore read through this driver, a plain POSIX reader that
// checks every global heap collection the library loads before handing it
// over: its size against the file's, and every object inside it against the
// collection. A damaged one fails the read, which the library reports as an
// error (then an InputError here) instead of crashing.
#include "io/hdf5_checked_driver.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace isocheck::hdf5_detail::checked {

namespace {


struct File {
  H5FD_t pub;  // first: the library's part
  int fd = -1;
  haddr_t eoa = 0, eof = 0;
  dev_t dev = 0;
  ino_t ino = 0;
  unsigned length_size = 0;  // the superblock's "size of lengths"; 0 = unknown (nothing is checked)
  unsigned offset_size = 0;  // its "size of offsets"
  // Object header bytes as read (bounded), where attributes' raw data lies.
  std::vector<std::pair<haddr_t, std::string>> headers;
  size_t header_bytes = 0;
  std::mutex mu;
  std::map<haddr_t, haddr_t> collections;  // checked: start -> end
};

// The first damage found on this thread, for the error message.
thread_local std::string problem;

bool pread_all(int fd, void* buf, size_t n, haddr_t at) {
  auto* p = static_cast<unsigned char*>(buf);
  while (n > 0) {
    ssize_t got = ::pread(fd, p, n, static_cast<off_t>(at));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return false;
    if (got == 0) {  // past the end of the file: zeros, as the sec2 driver reads
      std::memset(p, 0, n);
      return true;
    }
    p += got, n -= static_cast<size_t>(got), at += static_cast<haddr_t>(got);
  }
  return true;
}

uint64_t le(const unsigned char* p, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = n; i-- > 0;) v = (v << 8) | p[i];
  return v;
}

// The superblock's size of lengths (superblock at 0 or a power of two >= 512).
void superblock_sizes(File& f) {
  const int fd = f.fd;
  const haddr_t eof = f.eof;
  static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  for (haddr_t at = 0; at + 16 <= eof; at = at ? at * 2 : 512) {
    unsigned char b[16];
    if (!pread_all(fd, b, sizeof b, at)) return;
    if (std::memcmp(b, sig, 8) != 0) continue;
    unsigned o = b[8] <= 1 ? b[13] : b[9], n = b[8] <= 1 ? b[14] : b[10];  // versions 0, 1: bytes 13, 14; 2, 3: 9, 10
    if ((n == 2 || n == 4 || n == 8) && (o == 2 || o == 4 || o == 8)) f.length_size = n, f.offset_size = o;
    return;
  }
}

// Walks the collection at `at`, whose first `have` bytes are in `head`.
// Returns "" when sound, else what is wrong.
// `lengths` (if given) receives each object's length by index (-1: none).
std::string check_collection(File& f, haddr_t at, const unsigned char* head, size_t have,
                             std::vector<int64_t>* lengths = nullptr) {
  const unsigned L = f.length_size;
  const uint64_t hdr = 8 + L, objhdr = 8 + L;
  std::string where = "global heap collection at byte " + std::to_string(at);
  if (have < hdr) return where + ": truncated header";
  uint64_t size = le(head + 8, L);
  if (size < hdr) return where + ": size " + std::to_string(size) + " is smaller than its header";
  if (at > f.eof || size > f.eof - at)
    return where + ": size " + std::to_string(size) + " reaches past the end of the file (" + std::to_string(f.eof) +
           " bytes)";
  // Object headers are read through a window of the collection.
  std::vector<unsigned char> win;
  uint64_t win_at = 0;
  auto bytes = [&](uint64_t off, uint64_t n) -> const unsigned char* {
    if (off + n <= have) return head + off;
    if (win.empty() || off < win_at || off + n > win_at + win.size()) {
      win_at = off;
      win.resize(static_cast<size_t>(std::min<uint64_t>(size - off, 1 << 20)));
      if (!pread_all(f.fd, win.data(), win.size(), at + off)) return nullptr;
    }
    return win.data() + (off - win_at);
  };
  std::vector<bool> seen;
  uint64_t off = hdr;
  while (off < size) {
    if (size - off < objhdr) break;  // a tail too small for an object: free space
    const unsigned char* p = bytes(off, objhdr);
    if (!p) return where + ": cannot read it";
    unsigned idx = static_cast<unsigned>(le(p, 2));
    uint64_t len = le(p + 8, L);
    std::string obj = where + ": object " + std::to_string(idx) + " at offset " + std::to_string(off);
    uint64_t need;
    if (idx == 0) {  // free space: its length includes its header
      if (len < objhdr || len > size - off) return obj + ": free space of " + std::to_string(len) + " bytes does not fit";
      need = len;
    } else {
      if (len > size - off - objhdr) return obj + ": length " + std::to_string(len) + " does not fit in the collection";
      need = objhdr + (len + 7) / 8 * 8;
      if (need > size - off) return obj + ": length " + std::to_string(len) + " does not fit in the collection";
      if (seen.size() <= idx) seen.resize(idx + 1);
      if (seen[idx]) return obj + ": index used twice";
      seen[idx] = true;
      if (lengths) {
        if (lengths->size() <= idx) lengths->resize(idx + 1, -1);
        (*lengths)[idx] = static_cast<int64_t>(len);
      }
    }
    off += need;
  }
  std::lock_guard<std::mutex> lock(f.mu);
  f.collections[at] = at + size;
  return "";
}

herr_t fail_read(const std::string& what) {
  if (problem.empty()) problem = what;
  return -1;
}

H5FD_t* open(const char* name, unsigned flags, hid_t, haddr_t maxaddr);

herr_t close(H5FD_t* file) {
  auto* f = reinterpret_cast<File*>(file);
  ::close(f->fd);
  delete f;
  return 0;
}

int cmp(const H5FD_t* a, const H5FD_t* b) {
  auto* x = reinterpret_cast<const File*>(a);
  auto* y = reinterpret_cast<const File*>(b);
  if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
  if (x->ino != y->ino) return x->ino < y->ino ? -1 : 1;
  return 0;
}

herr_t query(const H5FD_t*, unsigned long* flags) {
  // Not H5FD_FEAT_ACCUMULATE_METADATA: each heap read reaches read() as the
  // library asked for it.
  if (flags) *flags = H5FD_FEAT_DATA_SIEVE | H5FD_FEAT_DEFAULT_VFD_COMPATIBLE;
  return 0;
}

haddr_t get_eoa(const H5FD_t* file, H5FD_mem_t) { return reinterpret_cast<const File*>(file)->eoa; }
herr_t set_eoa(H5FD_t* file, H5FD_mem_t, haddr_t a) {
  reinterpret_cast<File*>(file)->eoa = a;
  return 0;
}
haddr_t get_eof(const H5FD_t* file, H5FD_mem_t) { return reinterpret_cast<const File*>(file)->eof; }

herr_t get_handle(H5FD_t* file, hid_t, void** handle) {
  if (!handle) return -1;
  *handle = file;  // (not a POSIX handle: check_vlen_attribute finds its File by it)
  return 0;
}

herr_t read(H5FD_t* file, H5FD_mem_t type, hid_t, haddr_t addr, size_t size, void* buf) {
  auto* f = reinterpret_cast<File*>(file);
  if (addr == HADDR_UNDEF || addr > f->eoa || size > f->eoa - addr) return fail_read("read past the end of the file");
  if (!pread_all(f->fd, buf, size, addr)) return fail_read("read error");
  if (type == H5FD_MEM_OHDR && f->header_bytes + size <= (1 << 20)) {
    std::lock_guard<std::mutex> lock(f->mu);
    f->headers.emplace_back(addr, std::string(static_cast<const char*>(buf), size));
    f->header_bytes += size;
  }
  // The library reads global heap collections as raw data: recognise one by
  // its signature and version, and check it unless it was checked before or
  // this read is the rest of one being loaded.
  auto* b = static_cast<const unsigned char*>(buf);
  if (f->length_size && size >= 8 && std::memcmp(b, "GCOL\1\0\0\0", 8) == 0) {
    {
      std::lock_guard<std::mutex> lock(f->mu);
      auto it = f->collections.upper_bound(addr);
      if (it != f->collections.begin() && std::prev(it)->second > addr) return 0;
    }
    std::string bad = check_collection(*f, addr, b, size);
    if (!bad.empty()) return fail_read(bad);
  }
  return 0;
}

herr_t write(H5FD_t*, H5FD_mem_t, hid_t, haddr_t, size_t, const void*) { return fail_read("the file is read-only"); }

H5FD_class_t make_class() {
  H5FD_class_t c{};
  c.name = "isocheck-checked";
  c.maxaddr = (static_cast<haddr_t>(1) << 62) - 1;
  c.fc_degree = H5F_CLOSE_WEAK;
  c.open = open;
  c.close = close;
  c.cmp = cmp;
  c.query = query;
  c.get_eoa = get_eoa;
  c.set_eoa = set_eoa;
  c.get_eof = get_eof;
  c.get_handle = get_handle;
  c.read = read;
  c.write = write;
  H5FD_mem_t map[] = H5FD_FLMAP_DICHOTOMY;
  std::memcpy(c.fl_map, map, sizeof map);
  return c;
}

H5FD_t* open(const char* name, unsigned flags, hid_t, haddr_t maxaddr) {
  if ((flags & H5F_ACC_RDWR) || maxaddr == 0 || maxaddr == HADDR_UNDEF) return nullptr;
  int fd = ::open(name, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return nullptr;
  }
  auto* f = new File;
  f->fd = fd;
  f->eof = static_cast<haddr_t>(st.st_size);
  f->dev = st.st_dev, f->ino = st.st_ino;
  superblock_sizes(*f);
  return &f->pub;
}

}  // namespace

// The driver's id, registered once per process.
hid_t driver() {
  static const H5FD_class_t cls = make_class();
  static const hid_t id = H5FDregister(&cls);
  return id;
}

// A root attribute holding one variable-length string: the library follows
// its heap id (collection address, object index) without bounds, so an index
// past the collection's objects reads outside them. Finds the attribute's raw
// data in the object headers read so far and checks the id against its
// collection: "" when sound or not found (then the library decides).
std::string check_vlen_attribute(hid_t file_id, const std::string& name) {
  void* handle = nullptr;
  if (H5Fget_vfd_handle(file_id, H5P_DEFAULT, &handle) < 0 || !handle) return "";
  File& f = *static_cast<File*>(handle);
  if (!f.length_size || !f.offset_size) return "";
  const std::string key = name + '\0';
  const unsigned O = f.offset_size;
  std::vector<std::pair<haddr_t, std::string>> headers;
  {
    std::lock_guard<std::mutex> lock(f.mu);
    headers = f.headers;
  }
  for (const auto& entry : headers) {
    const std::string& h = entry.second;
    for (size_t q = h.find(key); q != std::string::npos; q = h.find(key, q + 1)) {
      auto u8 = [&](size_t i) { return static_cast<unsigned char>(h[i]); };
      auto u16 = [&](size_t i) { return static_cast<uint64_t>(u8(i) | u8(i + 1) << 8); };
      auto pad = [](uint64_t n) { return (n + 7) / 8 * 8; };
      uint64_t data;  // where the raw value starts (attribute message versions 1, 2, 3)
      if (q >= 8 && u8(q - 8) == 1 && u16(q - 6) == key.size())
        data = q + pad(key.size()) + pad(u16(q - 4)) + pad(u16(q - 2));
      else if (q >= 8 && u8(q - 8) == 2 && u16(q - 6) == key.size())
        data = q + key.size() + u16(q - 4) + u16(q - 2);
      else if (q >= 9 && u8(q - 9) == 3 && u16(q - 7) == key.size())
        data = q + key.size() + u16(q - 5) + u16(q - 3);
      else
        continue;
      if (data + 8 + O > h.size()) return "attribute " + name + ": its value lies past its object header";
      const unsigned char* p = reinterpret_cast<const unsigned char*>(h.data()) + data;
      uint64_t len = le(p, 4), addr = le(p + 4, O), idx = le(p + 4 + O, 4);
      if (addr == 0 && len == 0) return "";  // an empty string: no heap object
      std::string where = "attribute " + name + " names heap object " + std::to_string(idx) + " of the collection at byte " +
                          std::to_string(addr);
      if (addr >= f.eof || f.eof - addr < 8 + f.length_size) return where + ", past the end of the file";
      std::vector<unsigned char> head(static_cast<size_t>(std::min<uint64_t>(f.eof - addr, 4096)));
      if (!pread_all(f.fd, head.data(), head.size(), addr)) return where + ": cannot read it";
      if (std::memcmp(head.data(), "GCOL\1\0\0\0", 8) != 0) return where + ", which is not a global heap collection";
      std::vector<int64_t> lens;
      std::string bad = check_collection(f, addr, head.data(), head.size(), &lens);
      if (!bad.empty()) return bad;
      if (idx == 0 || idx >= lens.size() || lens[idx] < 0) return where + ", which has no such object";
      if (static_cast<uint64_t>(lens[idx]) != len)
        return where + ": the attribute says " + std::to_string(len) + " bytes, the object holds " +
               std::to_string(lens[idx]);
      return "";
    }
  }
  return "";
}

// Takes the damage the driver found (for the message), "" if none.
std::string take_problem() {
  std::string p = std::move(problem);
  problem.clear();
  return p;
}

}  // namespace isocheck::hdf5_detail::checked
