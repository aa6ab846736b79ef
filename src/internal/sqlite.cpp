// SQLite wrappers shared by SqliteSaver and SqliteStore (see sqlite.hpp).
#include "internal/sqlite.hpp"

#include "internal/sqlite_wal_vfs.hpp"

namespace superstep::internal::sqlite {

namespace {

[[noreturn]] void cannot_prepare(sqlite3* db) {
  std::string reason = sqlite3_errmsg(db);
  throw Error("sqlite: cannot prepare statement: " + reason, reason);
}

}  // namespace

sqlite3* open(const std::string& path, bool read_only, int busy_timeout_ms) {
  sqlite3* db = nullptr;
  const int mode = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  // No mutex of SQLite's own per call: every user of a connection holds its owner's mutex
  // (SqliteSaver::connection() says so), so SQLite's would be a second lock around each bind,
  // step and column read.
  if (sqlite3_open_v2(path.c_str(), &db, mode | SQLITE_OPEN_NOMUTEX, wal_vfs_name()) != SQLITE_OK) {
    std::string reason = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw Error("sqlite: cannot open '" + path + "': " + reason, reason);
  }
  sqlite3_busy_timeout(db, busy_timeout_ms);
  return db;
}

void exec(sqlite3* db, const char* sql, const std::string& where) {
  auto run = [&] {
    char* err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string reason = err ? err : "unknown error";
      sqlite3_free(err);
      throw Error("sqlite '" + where + "': " + reason, reason);
    }
  };
  GroupCommit* group = group_of(db);
  if (!group) return run();
  // SQL run on its own is a schema change (a table a store makes) or a bulk delete: committed at
  // once, so other connections see the tables as soon as the owner has them.
  if (group->in_own_unit([&] {
        run();
        group->record(sql, {});
      }))
    group->flush();
}

StmtCache::Entry* StmtCache::take(const char* sql) {
  auto it = map_.find(std::string_view(sql));
  if (it == map_.end()) it = map_.emplace(sql, Entry{}).first;
  Entry& e = it->second;
  if (e.busy) return nullptr;
  if (!e.stmt && sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &e.stmt, nullptr) != SQLITE_OK)
    cannot_prepare(db_);
  e.busy = true;
  return &e;
}

void StmtCache::give_back(Entry* e) {
  sqlite3_reset(e->stmt);
  sqlite3_clear_bindings(e->stmt);
  e->busy = false;
}

void StmtCache::clear() {
  for (auto& [sql, e] : map_) sqlite3_finalize(e.stmt);
  map_.clear();
}

Stmt::Stmt(sqlite3* db, const char* sql) : db_(db) {
  if (sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) != SQLITE_OK) cannot_prepare(db);
  join_group();
}

Stmt::Stmt(sqlite3* db, StmtCache& cache, const char* sql) : db_(db), cached_(cache.take(sql)) {
  if (cached_) s_ = cached_->stmt;
  else if (sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) != SQLITE_OK) cannot_prepare(db);
  join_group();
}

void Stmt::join_group() {
  group_ = group_of(db_);
  if (!group_ || sqlite3_stmt_readonly(s_)) return;
  writes_ = true;
  params_.resize(static_cast<std::size_t>(sqlite3_bind_parameter_count(s_)));
}

Stmt::~Stmt() {
  if (cached_) StmtCache::give_back(cached_);
  else sqlite3_finalize(s_);
}

Stmt& Stmt::reset() {
  sqlite3_reset(s_);
  sqlite3_clear_bindings(s_);
  if (writes_) {
    params_.assign(params_.size(), GroupCommit::Param{});
    owned_.clear();
    stepped_ = false;
  }
  return *this;
}

Stmt& Stmt::bind(int i, const std::string& v) {
  sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  if (GroupCommit::Param* p = param(i)) *p = {GroupCommit::Param::Kind::text, 0, owned_.emplace_back(v)};
  return *this;
}

Stmt& Stmt::bind_ref(int i, const std::string& v) {
  sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
  if (GroupCommit::Param* p = param(i)) *p = {GroupCommit::Param::Kind::text, 0, v};
  return *this;
}

Stmt& Stmt::bind(int i, int v) {
  sqlite3_bind_int(s_, i, v);
  if (GroupCommit::Param* p = param(i)) *p = {GroupCommit::Param::Kind::integer, v, {}};
  return *this;
}

Stmt& Stmt::bind_null(int i) {
  sqlite3_bind_null(s_, i);
  if (GroupCommit::Param* p = param(i)) *p = {};
  return *this;
}

bool Stmt::step_in_group() {
  int rc = SQLITE_OK;
  group_->in_own_unit([&] {
    stepped_ = true;
    rc = sqlite3_step(s_);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
      std::string reason = sqlite3_errmsg(db_);
      throw Error("sqlite: " + reason, reason);
    }
    group_->record(sqlite3_sql(s_), params_);
  });
  return rc == SQLITE_ROW;
}

bool Stmt::step() {
  if (group_) {
    if (writes_ && !stepped_) return step_in_group();
    group_->check();
  }
  int rc = sqlite3_step(s_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  std::string reason = sqlite3_errmsg(db_);
  throw Error("sqlite: " + reason, reason);
}

void Stmt::run() {
  while (step()) {
  }
}

std::string Stmt::text(int col) const { return std::string(view(col)); }

std::string_view Stmt::view(int col) const {
  const unsigned char* p = sqlite3_column_text(s_, col);
  return p ? std::string_view(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(s_, col)))
           : std::string_view();
}

}  // namespace superstep::internal::sqlite
