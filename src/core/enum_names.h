// One table per enum, indexed by the enumerator's value: its name (and any
// other text that goes with it, e.g. a level's short name) stands in one row,
// and the name function, the parser and the "(a, b, c)" list of a usage
// message all read the same rows. A row type has at least `value` (the
// enumerator) and `name`; EnumName is the plain one.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace isocheck {

template <class E> struct EnumName {
  E value;
  const char* name;
};

// True when row i holds the enumerator of value i, for every row: what
// row_of relies on (each table is checked by a static_assert beside it).
template <class Row, size_t N> constexpr bool indexed_by_value(const Row (&table)[N]) {
  for (size_t i = 0; i < N; ++i)
    if (static_cast<size_t>(table[i].value) != i) return false;
  return true;
}

// The row of e; nullptr for a value past the table.
template <class Row, size_t N, class E> constexpr const Row* row_of(const Row (&table)[N], E e) {
  const size_t i = static_cast<size_t>(e);
  return i < N ? &table[i] : nullptr;
}

// The name of e; "?" for a value past the table.
template <class Row, size_t N, class E> constexpr const char* name_in(const Row (&table)[N], E e) {
  const Row* r = row_of(table, e);
  return r ? r->name : "?";
}

// The enumerator of the first row named s.
template <class Row, size_t N>
auto value_named(const Row (&table)[N], std::string_view s) -> std::optional<decltype(table[0].value)> {
  for (const Row& r : table)
    if (s == r.name) return r.value;
  return std::nullopt;
}

// "a, b, c": the names in table order, for messages.
template <class Row, size_t N> std::string names_listed(const Row (&table)[N]) {
  std::string out;
  for (const Row& r : table) out += std::string(out.empty() ? "" : ", ") + r.name;
  return out;
}

}  // namespace isocheck
