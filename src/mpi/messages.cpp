#include "mpi/messages.h"

#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <sstream>

namespace isocheck::dist {

template <class T> std::string to_bytes(const T& v) {
  std::ostringstream os(std::ios::binary);
  {
    boost::archive::binary_oarchive ar(os);
    ar << v;
  }
  return os.str();
}
template <class T> void from_bytes(const std::string& s, T& v) {
  std::istringstream is(s, std::ios::binary);
  boost::archive::binary_iarchive ar(is);
  ar >> v;
}

template std::string to_bytes(const Request&);
template void from_bytes(const std::string&, Request&);
template std::string to_bytes(const PieceResult&);
template void from_bytes(const std::string&, PieceResult&);
template std::string to_bytes(const PartitionMsg&);
template void from_bytes(const std::string&, PartitionMsg&);
template std::string to_bytes(const Checkpoint&);
template void from_bytes(const std::string&, Checkpoint&);

}  // namespace isocheck::dist
