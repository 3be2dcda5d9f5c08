// Per-transaction anomalies: evidence that a database misbehaved, found while
// building the graph. Any one of them makes every isolation level fail.
#pragma once
#include <cstdint>

#include "core/history.h"

namespace isocheck {

// Per-transaction oddities a database caused (evidence, never input errors).
enum class AnomalyKind : uint8_t {
  aborted_read,        // G1a
  intermediate_read,   // G1b
  thin_air_read,       // read of a value no transaction wrote
  internal_read,       // read disagrees with the transaction's own earlier write
  nonrepeatable_read,  // two reads of one key in one txn saw different values
  duplicate_write,     // a value written twice to one key
  lost_update,         // two txns read one version and both wrote the key
  incompatible_order,  // list reads that are not prefixes of one another, or a list read
                       // that shows a writer's appends split, reordered or without its first ones
  duplicate_elements,  // a list read that holds one appended element twice
};
const char* to_string(AnomalyKind k);

struct Anomaly {
  AnomalyKind kind;
  TxnIdx txn;         // the transaction that observed it
  TxnIdx other;       // writer involved, or the second txn (lost update); = txn when none
  uint32_t op;        // op position inside txn
  Sym key = 0;
  Sym value = 0;
};

}  // namespace isocheck
