#include "collect/pg.h"

#include <charconv>
#include <chrono>
#include <cstring>
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

Connection::Connection(const std::string& dsn) : dsn_(dsn) {
  c_ = PQconnectdb(dsn.c_str());
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

void Connection::prepare(const char* name, const char* sql, int nparams) {
  Result r = classify(PQprepare(c_, name, sql, nparams, nullptr));
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
      for (const auto& p : prepared_) {
        Result r = classify(PQprepare(c_, p.name.c_str(), p.sql.c_str(), p.nparams, nullptr));
        if (!r.ok()) return false;
      }
      return true;
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
