// The checking POSIX driver every HDF5 file is read through: libhdf5 trusts
// the sizes inside a global heap collection, so a damaged file could make it
// read past its buffers; this driver checks each collection first. Private to io/.
#pragma once
#include <hdf5.h>

#include <string>

namespace isocheck::hdf5_detail::checked {

// The driver's id, registered once per process (H5Pset_driver on a file access list).
hid_t driver();

// Checks the heap id of a root attribute holding one variable-length string
// against its collection: "" when sound or not found (the library decides then).
std::string check_vlen_attribute(hid_t file_id, const std::string& name);

// Takes the damage the driver found (for the message), "" if none.
std::string take_problem();

}  // namespace isocheck::hdf5_detail::checked
