#include "collect/pg.h"

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>
#include <vector>

#include "collect/collect.h"

namespace isocheck::collect {

Result& Result::operator=(Result&& o) noexcept {
  if (this != &o) {
    if (r_) PQclear(r_);
    r_ = o.r_;
    o_ = o.o_;
    msg_ = std::move(o.msg_);
    o.r_ = nullptr;
  }
  return *this;
}

int64_t Result::int64(int row, int col) const {
  const char* s = PQgetvalue(r_, row, col);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s, s + std::strlen(s), v);
  if (ec != std::errc()) throw DatabaseError(std::string("not an integer from the server: ") + s);
  return v;
}

Connection::Connection(const std::string& dsn, const char* name) : dsn_(dsn) {
  // The name goes in the connection parameters, not a SET, so that PQreset keeps
  // it after a reconnect; a DSN's own application_name still wins.
  const char* keys[] = {"dbname", "fallback_application_name", nullptr};
  const char* values[] = {dsn.c_str(), name, nullptr};
  c_ = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (PQstatus(c_) != CONNECTION_OK) {
    std::string msg = PQerrorMessage(c_);
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    PQfinish(c_);
    c_ = nullptr;
    throw DatabaseError("cannot connect to '" + dsn + "': " + msg);
  }
  // Notices (e.g. "table does not exist, skipping") are not for the user.
  PQsetNoticeProcessor(c_, [](void*, const char*) {}, nullptr);
}

Connection::~Connection() {
  if (c_) PQfinish(c_);
}

Result Connection::classify(PGresult* r) {
  ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (r && (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)) return Result(r, Outcome::ok, "");
  std::string msg = r ? PQresultErrorMessage(r) : PQerrorMessage(c_);
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  std::string code = state ? state : "";
  Outcome o = Outcome::error;
  if (PQstatus(c_) != CONNECTION_OK || code.empty() || code.starts_with("08") ||
      code == "57P01" || code == "57P02" || code == "57P03")
    o = Outcome::connection;
  else if (code == "40P01")
    o = Outcome::deadlock;
  else if (code.starts_with("40"))  // 40001 serialization_failure, 40000, 40002, 40003
    o = Outcome::serialization;
  if (!code.empty()) msg = code + " " + msg;
  return Result(r, o, msg);
}

Result Connection::exec(const char* sql) { return classify(PQexec(c_, sql)); }

namespace {
// Test hook (docs/testing.md): ISOCHECK_TEST_KILL_AT_PREPARE="2,4" has the server terminate this
// backend (pg_terminate_backend on itself: a real loss, the server's own
// FATAL) just before the 2nd and 4th statement preparations of the process,
// re-preparations after a reconnect counted too. It lets a test hit the short
// window between connecting and the first transaction, which a kill from
// outside reaches only by chance.
bool kill_before_this_prepare() {
  static const std::vector<long> at = [] {
    std::vector<long> v;
    if (const char* e = std::getenv("ISOCHECK_TEST_KILL_AT_PREPARE")) {
      std::stringstream ss(e);
      for (std::string item; std::getline(ss, item, ',');) v.push_back(std::atol(item.c_str()));
    }
    return v;
  }();
  if (at.empty()) return false;
  static std::atomic<long> calls{0};
  long n = ++calls;
  for (long a : at)
    if (a == n) return true;
  return false;
}
}  // namespace

PGresult* Connection::prepare_once(const char* name, const char* sql, int nparams) {
  if (kill_before_this_prepare()) PQclear(PQexec(c_, "SELECT pg_terminate_backend(pg_backend_pid())"));
  return PQprepare(c_, name, sql, nparams, nullptr);
}

void Connection::prepare(const char* name, const char* sql, int nparams) {
  Result r = classify(prepare_once(name, sql, nparams));
  if (r.outcome() == Outcome::connection) {
    // Lost while setting up (a server restart, an administrator's kill): the
    // reconnect prepares every statement again, this one included.
    prepared_.push_back({name, sql, nparams});
    ++setup_losses_;
    if (!reconnect())
      throw DatabaseError(std::string("cannot prepare '") + sql + "': " + r.message() +
                          " (and the connection was not re-established)");
    return;
  }
  if (!r.ok()) throw DatabaseError(std::string("cannot prepare '") + sql + "': " + r.message());
  prepared_.push_back({name, sql, nparams});
}

Result Connection::exec_prepared(const char* name, std::initializer_list<int64_t> params) {
  char buf[4][24];
  const char* values[4];
  int n = 0;
  for (int64_t p : params) {
    auto [end, ec] = std::to_chars(buf[n], buf[n] + sizeof buf[n] - 1, p);
    *end = '\0';
    values[n] = buf[n];
    ++n;
  }
  return classify(PQexecPrepared(c_, name, n, values, nullptr, nullptr, 0));
}

bool Connection::reconnect() {
  for (int attempt = 0; attempt < 100; ++attempt) {
    PQreset(c_);
    if (PQstatus(c_) == CONNECTION_OK) {
      PQsetNoticeProcessor(c_, [](void*, const char*) {}, nullptr);
      bool lost_again = false;
      for (const auto& p : prepared_) {
        Result r = classify(prepare_once(p.name.c_str(), p.sql.c_str(), p.nparams));
        if (r.outcome() == Outcome::connection) { lost_again = true; break; }
        if (!r.ok()) return false;
      }
      if (!lost_again) return true;
      ++setup_losses_;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

void parse_int_array(const char* s, std::vector<int64_t>& out) {
  out.clear();
  size_t n = std::strlen(s);
  if (n < 2 || s[0] != '{' || s[n - 1] != '}')
    throw DatabaseError(std::string("not an integer array from the server: ") + s);
  const char* p = s + 1;
  const char* end = s + n - 1;
  while (p < end) {
    int64_t v;
    auto [q, ec] = std::from_chars(p, end, v);
    if (ec != std::errc() || (q < end && *q != ','))
      throw DatabaseError(std::string("not an integer array from the server: ") + s);
    out.push_back(v);
    p = q < end ? q + 1 : q;
  }
}

}  // namespace isocheck::collect
