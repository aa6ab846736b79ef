// libpq wrappers shared by PostgresSaver and PostgresStore (see pq.hpp).
#include "internal/pq.hpp"

#include <arpa/inet.h>

#include <cstdint>
#include <cstring>

namespace superstep::internal::pq {

namespace {

void ignore_notice(void*, const char*) {}

}  // namespace

std::string trimmed(const char* msg) {
  std::string s = msg ? msg : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s.empty() ? "unknown error" : s;
}

Params::View Params::view() const {
  View v;
  for (std::size_t i = 0; i < values_.size(); ++i) {
    v.values.push_back(nulls_[i] ? nullptr : values_[i].c_str());
    v.lengths.push_back(static_cast<int>(values_[i].size()));
    v.formats.push_back(formats_[i]);
  }
  return v;
}

std::string text_array(const std::vector<std::optional<std::string>>& items, const char* what) {
  std::string out = "{";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    if (!items[i]) {
      out += "NULL";
      continue;
    }
    out += '"';
    for (char c : *items[i]) {
      if (c == '\0') throw CheckpointError(std::string("postgres: a ") + what + " cannot contain a NUL character");
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + '}';
}

std::string text_array(const std::vector<std::string>& items, const char* what) {
  return text_array(std::vector<std::optional<std::string>>(items.begin(), items.end()), what);
}

std::string int_array(const std::vector<int>& items) {
  std::string out = "{";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + std::to_string(items[i]);
  return out + '}';
}

int Result::int4(int row, int col) const {
  std::uint32_t v = 0;
  std::memcpy(&v, PQgetvalue(r_, row, col), sizeof v);
  return static_cast<int>(ntohl(v));
}

std::unique_ptr<Conn> Conn::open(const std::string& dsn) {
  auto c = std::make_unique<Conn>();
  c->pg = PQconnectdb(dsn.c_str());
  if (!c->pg) throw Error("cannot connect: out of memory", false);
  if (!c->ok()) throw Error("cannot connect: " + trimmed(PQerrorMessage(c->pg)), false, /*no_server=*/true);
  PQsetNoticeProcessor(c->pg, ignore_notice, nullptr);
  if (PQsetClientEncoding(c->pg, "UTF8") != 0)
    throw Error("cannot set client encoding UTF8: " + trimmed(PQerrorMessage(c->pg)), false);
  return c;
}

Result Conn::check(PGresult* r) {
  ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return Result(r);
  std::string msg = trimmed(r ? PQresultErrorMessage(r) : PQerrorMessage(pg));
  PQclear(r);
  throw Error(msg, !ok());
}

void Conn::prepare(const char* name, const std::string& sql, int params) {
  if (prepared.count(name)) return;
  check(PQprepare(pg, name, sql.c_str(), params, nullptr));
  prepared.insert(name);
}

Result Conn::run(const char* name, const std::string& sql, const Params& p) {
  if (name) prepare(name, sql, p.size());
  auto v = p.view();
  PGresult* r = name ? PQexecPrepared(pg, name, p.size(), v.values.data(), v.lengths.data(), v.formats.data(), 1)
                     : PQexecParams(pg, sql.c_str(), p.size(), nullptr, v.values.data(), v.lengths.data(),
                                    v.formats.data(), 1);
  return check(r);
}

Pipeline::Pipeline(Conn& c) : c_(c) {
  if (PQenterPipelineMode(c_.pg) != 1) fail("cannot enter pipeline mode");
}

Pipeline::~Pipeline() {
  drain();
  PQexitPipelineMode(c_.pg);
}

void Pipeline::send(const char* name, const Params& p) {
  auto v = p.view();
  if (PQsendQueryPrepared(c_.pg, name, p.size(), v.values.data(), v.lengths.data(), v.formats.data(), 1) != 1)
    fail("cannot queue a statement");
  ++sent_;
}

void Pipeline::flush_request() {
  if (PQsendFlushRequest(c_.pg) != 1) fail("cannot queue a flush request");
}

void Pipeline::sync() {
  if (PQpipelineSync(c_.pg) != 1 || PQflush(c_.pg) != 0) fail("cannot send statements");
  synced_ = true;
}

Result Pipeline::next() {
  if (taken_ >= sent_ || drained_) throw CheckpointError("postgres: no statement left in the pipeline");
  ++taken_;
  return take();
}

void Pipeline::fail(const char* what) {
  throw Error(std::string(what) + ": " + trimmed(PQerrorMessage(c_.pg)), !c_.ok());
}

Result Pipeline::take() {
  PGresult* r = PQgetResult(c_.pg);
  ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
    std::string msg = trimmed(r ? PQresultErrorMessage(r) : PQerrorMessage(c_.pg));
    const char* severity = r ? PQresultErrorField(r, PG_DIAG_SEVERITY_NONLOCALIZED) : nullptr;
    const bool fatal = severity && (std::strcmp(severity, "FATAL") == 0 || std::strcmp(severity, "PANIC") == 0);
    PQclear(r);
    drain();
    throw Error(msg, fatal || !c_.ok());
  }
  Result out(r);
  if (PGresult* extra = PQgetResult(c_.pg)) {
    PQclear(extra);
    throw Error("a pipelined statement returned more than one result", false);
  }
  return out;
}

void Pipeline::drain() {
  if (drained_) return;
  drained_ = true;
  if (!synced_ && PQpipelineSync(c_.pg) != 1) return;  // broken: the pool drops the connection
  for (int nulls = 0; nulls < 2 && PQstatus(c_.pg) == CONNECTION_OK;) {
    PGresult* r = PQgetResult(c_.pg);
    if (!r) {
      ++nulls;
      continue;
    }
    nulls = 0;
    const bool sync = PQresultStatus(r) == PGRES_PIPELINE_SYNC;
    PQclear(r);
    if (sync) break;
  }
}

}  // namespace superstep::internal::pq
