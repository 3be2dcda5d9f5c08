// Field-by-field equality of two values of one struct type, for structs with
// no operator==: EXPECT_EQ on every member listed, a failure naming it.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <string_view>
#include <vector>

namespace isocheck::testkit {

// expect_same_fields(a, b, "count comp", &Scc::count, &Scc::comp): `names`
// holds the members' names, separated by spaces, in the order listed.
template <class T, class... M>
void expect_same_fields(const T& a, const T& b, std::string_view names, M T::*... member) {
  std::vector<std::string_view> name;
  for (size_t at = 0; at < names.size();) {
    const size_t end = std::min(names.find(' ', at), names.size());
    if (end > at) name.push_back(names.substr(at, end - at));
    at = end + 1;
  }
  if (name.size() != sizeof...(M)) {
    ADD_FAILURE() << "expect_same_fields: " << name.size() << " names for " << sizeof...(M) << " members";
    return;
  }
  size_t place = 0;
  auto one = [&](auto m) { EXPECT_EQ(a.*m, b.*m) << "member " << name[place++]; };
  (one(member), ...);
}

}  // namespace isocheck::testkit
