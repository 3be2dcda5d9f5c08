// A bool in a Boost binary archive is one byte; loading a damaged byte that
// is neither 0 nor 1 into a bool is undefined behaviour. These read and write
// the same byte through an integer and refuse any other value as a damaged
// archive (archive_exception), so the file format is unchanged.
#pragma once
#include <boost/archive/archive_exception.hpp>
#include <boost/serialization/throw_exception.hpp>
#include <cstdint>

namespace isocheck {

template <class A> void serialize_bool(A& a, bool& b) {
  uint8_t v = b ? 1 : 0;
  a & v;
  if (v > 1)
    boost::serialization::throw_exception(
        boost::archive::archive_exception(boost::archive::archive_exception::input_stream_error));
  b = v == 1;
}

}  // namespace isocheck
