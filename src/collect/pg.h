// Thin libpq wrapper for the collector: one connection, prepared statements,
// and the classification of an outcome that the history needs (ok, abort by
// serialization failure or deadlock, lost connection, anything else).
#pragma once
#include <libpq-fe.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace isocheck::collect {

enum class Outcome : uint8_t { ok, serialization, deadlock, connection, error };

class Result {
 public:
  Result() = default;
  Result(PGresult* r, Outcome o, std::string msg) : r_(r), o_(o), msg_(std::move(msg)) {}
  Result(Result&& o) noexcept : r_(o.r_), o_(o.o_), msg_(std::move(o.msg_)) { o.r_ = nullptr; }
  Result& operator=(Result&& o) noexcept;
  Result(const Result&) = delete;
  ~Result() { if (r_) PQclear(r_); }

  Outcome outcome() const { return o_; }
  bool ok() const { return o_ == Outcome::ok; }
  const std::string& message() const { return msg_; }
  int rows() const { return r_ ? PQntuples(r_) : 0; }
  bool is_null(int row, int col) const { return PQgetisnull(r_, row, col); }
  const char* text(int row, int col) const { return PQgetvalue(r_, row, col); }
  int64_t int64(int row, int col) const;
  const char* command_status() const { return r_ ? PQcmdStatus(r_) : ""; }

 private:
  PGresult* r_ = nullptr;
  Outcome o_ = Outcome::error;
  std::string msg_;
};

class Connection {
 public:
  // Throws DatabaseError when the server cannot be reached.
  // `name` is the application_name the server shows, unless the DSN sets one.
  explicit Connection(const std::string& dsn, const char* name = "isocheck collect");
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  Result exec(const char* sql);
  void prepare(const char* name, const char* sql, int nparams);
  Result exec_prepared(const char* name, std::initializer_list<int64_t> params);
  bool ok() const { return PQstatus(c_) == CONNECTION_OK; }
  // Re-establishes a lost connection (bounded tries); false when it failed.
  bool reconnect();
  // Connections lost while preparing statements (at setup or re-preparing
  // after a reconnect) and recovered from; no transaction was running.
  uint64_t setup_losses() const { return setup_losses_; }

 private:
  Result classify(PGresult* r);
  PGresult* prepare_once(const char* name, const char* sql, int nparams);
  std::string dsn_;
  PGconn* c_ = nullptr;
  struct Prepared { std::string name, sql; int nparams; };
  std::vector<Prepared> prepared_;
  uint64_t setup_losses_ = 0;
};

// "{1,2,3}" (a bigint[] in text form) → values. Throws DatabaseError if malformed.
void parse_int_array(const char* text, std::vector<int64_t>& out);

}  // namespace isocheck::collect
