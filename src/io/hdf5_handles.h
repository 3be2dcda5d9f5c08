// HDF5 identifiers and small helpers shared by the reader and the writer
// (io/hdf5_read.cpp, io/hdf5_write.cpp). Private to io/.
#pragma once
#include <hdf5.h>

#include <string>

namespace isocheck::hdf5_detail {

// Owns one HDF5 identifier; the close function depends on its kind.
class Hid {
 public:
  Hid() = default;
  Hid(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Hid(Hid&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = H5I_INVALID_HID; }
  Hid& operator=(Hid&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_, close_ = o.close_;
      o.id_ = H5I_INVALID_HID;
    }
    return *this;
  }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  ~Hid() { reset(); }
  void reset() {
    if (id_ >= 0 && close_) close_(id_);
    id_ = H5I_INVALID_HID;
  }
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }
  operator hid_t() const { return id_; }

 private:
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*close_)(hid_t) = nullptr;
};

inline Hid space_1d(hsize_t n) { return Hid(H5Screate_simple(1, &n, nullptr), H5Sclose); }

inline Hid vlen_string_type() {
  Hid t(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

// The library prints its error stack to stderr by default; we report our own.
inline void quiet_hdf5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

// "a signed 64-bit integer", ... for messages about a dataset of the wrong type.
inline std::string describe_type(hid_t t) {
  size_t bits = H5Tget_size(t) * 8;
  switch (H5Tget_class(t)) {
    case H5T_INTEGER:
      return std::string(H5Tget_sign(t) == H5T_SGN_NONE ? "an unsigned " : "a signed ") + std::to_string(bits) +
             "-bit integer";
    case H5T_FLOAT: return "a " + std::to_string(bits) + "-bit float";
    case H5T_STRING: return "a string";
    case H5T_COMPOUND: return "a compound type";
    case H5T_ARRAY: return "an array type";
    case H5T_ENUM: return "an enum";
    default: return "type class " + std::to_string(static_cast<int>(H5Tget_class(t)));
  }
}

}  // namespace isocheck::hdf5_detail
