// libpq wrappers shared by PostgresSaver and PostgresStore: a connection and the statements
// prepared on it, statement parameters, results read in binary format, array literals, and
// pipelines (several statements in one round trip). Internal: built into superstep_postgres only.
#pragma once

#include <libpq-fe.h>

#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "superstep/errors.hpp"

namespace superstep::internal::pq {

/// A failed libpq call. what() is the saver's message ("postgres: ..."); `reason` is what
/// follows "postgres: ", for callers (stores) that report failures in their own words; `lost`
/// when the connection itself broke (a pool drops it, and a statement safe to repeat is retried
/// once on a new one).
struct Error : CheckpointError {
  Error(const std::string& reason, bool lost, bool no_server = false)
      : CheckpointError("postgres: " + reason), reason(reason), lost(lost), no_server(no_server) {}
  std::string reason;
  bool lost;
  /// A new connection could not be made (the server is down, starting or shutting down).
  bool no_server;
};

/// `msg` without its trailing newlines and spaces; "unknown error" when that leaves nothing.
std::string trimmed(const char* msg);

/// One statement's parameters. Strings go in binary format (raw bytes: BYTEA and TEXT alike, so
/// a thread id may hold NULs); integers and array literals go as text.
class Params {
 public:
  Params& bytes(std::string v) { return push(std::move(v), 1, false); }
  Params& text(std::string v) { return push(std::move(v), 0, false); }
  Params& null() { return push({}, 0, true); }
  Params& opt(const std::optional<std::string>& v) { return v ? bytes(*v) : null(); }
  int size() const { return static_cast<int>(values_.size()); }

  /// The arrays libpq takes; valid while this object is unchanged.
  struct View {
    std::vector<const char*> values;
    std::vector<int> lengths, formats;
  };
  View view() const;

 private:
  Params& push(std::string v, int format, bool null) {
    values_.push_back(std::move(v));
    formats_.push_back(format);
    nulls_.push_back(null);
    return *this;
  }
  std::vector<std::string> values_;
  std::vector<int> formats_;
  std::vector<bool> nulls_;
};

/// A PostgreSQL array literal of text elements (nullopt: NULL). Throws: CheckpointError when an
/// element holds a NUL, which PostgreSQL text cannot store (`what` names the element).
std::string text_array(const std::vector<std::optional<std::string>>& items, const char* what);
std::string text_array(const std::vector<std::string>& items, const char* what);
/// A PostgreSQL array literal of integers.
std::string int_array(const std::vector<int>& items);

/// A statement's result, read in binary format.
class Result {
 public:
  explicit Result(PGresult* r) : r_(r) {}
  ~Result() { PQclear(r_); }
  Result(Result&& o) noexcept : r_(std::exchange(o.r_, nullptr)) {}
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  int rows() const { return PQntuples(r_); }
  bool is_null(int row, int col) const { return PQgetisnull(r_, row, col) != 0; }
  std::string bytes(int row, int col) const {
    return std::string(PQgetvalue(r_, row, col), static_cast<std::size_t>(PQgetlength(r_, row, col)));
  }
  /// An int4 column.
  int int4(int row, int col) const;
  std::optional<std::string> opt(int row, int col) const {
    if (is_null(row, col)) return std::nullopt;
    return bytes(row, col);
  }

 private:
  PGresult* r_;
};

/// One connection and the statements prepared on it.
struct Conn {
  PGconn* pg = nullptr;
  std::unordered_set<std::string> prepared;
  ~Conn() { PQfinish(pg); }

  /// A new connection to `dsn`, with notices dropped and client encoding UTF8. Throws: Error
  /// ("postgres: cannot connect: ..."; not `lost`, `no_server`).
  static std::unique_ptr<Conn> open(const std::string& dsn);
  /// Whether the connection is up.
  bool ok() const { return PQstatus(pg) == CONNECTION_OK; }
  /// `r` when its statement succeeded. Throws: Error with the server's message otherwise.
  Result check(PGresult* r);
  /// Runs `sql` (one or more statements, no parameters).
  void exec(const char* sql) { check(PQexec(pg, sql)); }
  /// Prepares `sql` under `name` on this connection unless it already is.
  void prepare(const char* name, const std::string& sql, int params);
  /// Runs `sql` with `p`; prepared once under `name` when given, otherwise parsed each time.
  Result run(const char* name, const std::string& sql, const Params& p);
};

/// Statements sent together in one round trip (libpq's pipeline mode) and run in order by the
/// server, which works on the later ones while the caller reads the results of the first. The
/// connection runs nothing else while a Pipeline lives; one left early (an exception) drains
/// what is still coming, and one that cannot be left makes the pool drop the connection.
class Pipeline {
 public:
  explicit Pipeline(Conn& c);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  /// Queues statement `name`, prepared on the connection before the pipeline began (Conn::prepare),
  /// with `p`.
  void send(const char* name, const Params& p);
  /// Asks the server to send the results of the statements queued so far as soon as they are
  /// done (it otherwise holds them until the end of the pipeline, or until its buffer fills).
  void flush_request();
  /// Sends what is queued.
  void sync();
  /// The result of the next statement sent. Throws: Error when it failed (the server skips
  /// those after it).
  Result next();

 private:
  [[noreturn]] void fail(const char* what);
  /// One statement's result and the NULL that ends it. Throws: Error when the statement
  /// failed, after reading the rest of the pipeline (so libpq has seen whether the error ended
  /// the connection, and the connection is free again).
  Result take();
  /// Reads and drops what is still coming, up to the end of the pipeline.
  void drain();
  Conn& c_;
  std::size_t sent_ = 0, taken_ = 0;
  bool synced_ = false;
  bool drained_ = false;
};

}  // namespace superstep::internal::pq
