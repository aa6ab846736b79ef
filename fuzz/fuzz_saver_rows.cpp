// Checkpoints read back from saver rows that are not what the saver wrote (a corrupt page, a
// hand edit, another program's rows): a real SqliteSaver's rows for a paused thread with
// pending writes are overwritten with the input's texts, then the thread is read (get_tuple,
// list, get_state, get_state_history). Each read succeeds or throws a superstep::Error (the
// savers' CheckpointError names the thread and checkpoint); nothing else, and no crash.
// Input: segments separated by NUL; each segment's first byte picks the row and column.
#include <sqlite3.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <optional>
#include <string_view>
#include <vector>

#include <superstep/checkpoint/sqlite_saver.hpp>
#include <superstep/superstep.hpp>

#include "fuzz_util.hpp"

namespace {
namespace sp = superstep;
using sp::json;

struct Cell {
  std::string table, column;
  std::int64_t rowid;
  std::optional<std::string> original;  ///< nullopt: NULL
};

struct Fixture {
  // Declared before `app`, whose initializer (build()) sets them.
  std::shared_ptr<sp::SqliteSaver> saver;
  sqlite3* db = nullptr;
  std::vector<Cell> cells;
  sp::CompiledStateGraph app;

  Fixture() : app(build()) {}

  sp::CompiledStateGraph build() {
    std::string path = (std::filesystem::temp_directory_path() / ("superstep-fuzz-rows-" + std::to_string(::getpid()) + ".db")).string();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
    saver = std::make_shared<sp::SqliteSaver>(path);
    sp::StateSchema s;
    s.field("topic").field("log", sp::reducers::append).field("n", sp::reducers::add, 0).field("messages",
                                                                                               sp::reducers::add_messages);
    sp::StateGraph g(s);
    g.add_node("a", [](const sp::State&) { return json{{"log", {"a"}}, {"n", 1}}; });
    g.add_node("b", [](const sp::State&) { return json{{"log", {"b"}}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}}; });
    g.add_node("ask", [](const sp::State&, sp::Runtime& rt) -> sp::NodeResult {
      return json{{"topic", sp::interrupt(rt, json{{"question", "ok?"}})}};
    });
    g.add_node("c", [](const sp::State&) { return json{{"n", 2}}; });
    g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("a", "ask").add_edge("b", "c");
    auto compiled = g.compile({.checkpointer = saver, .name = "rows"});
    sp::RunConfig cfg;
    cfg.thread_id = "t";
    compiled.invoke(json{{"topic", "x"}}, cfg);  // pauses in ask, with c's writes pending
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) fuzz::fail("cannot open the fixture database");
    sqlite3_busy_timeout(db, 5000);
    for (auto [table, column] : {std::pair{"checkpoints", "checkpoint"}, {"checkpoints", "metadata"},
                                 {"checkpoints", "parent_checkpoint_id"}, {"checkpoint_writes", "value"},
                                 {"checkpoint_writes", "channel"}, {"checkpoint_writes", "task_id"},
                                 {"checkpoint_version_values", "channel_values"}, {"checkpoint_version_values", "version"},
                                 {"checkpoint_blobs", "value"}}) {
      std::string sql = std::string("SELECT rowid, ") + column + " FROM " + table;
      sqlite3_stmt* st = nullptr;
      if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) continue;  // e.g. no rowid table
      while (sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char* text = sqlite3_column_text(st, 1);
        std::optional<std::string> value;
        if (text) value = reinterpret_cast<const char*>(text);
        cells.push_back({table, column, sqlite3_column_int64(st, 0), value});
      }
      sqlite3_finalize(st);
    }
    if (cells.empty()) fuzz::fail("the fixture wrote no rows");
    return compiled;
  }

  void set(const Cell& c, std::optional<std::string_view> text) {
    std::string sql = "UPDATE " + c.table + " SET " + c.column + " = ?1 WHERE rowid = ?2";
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) fuzz::fail(sqlite3_errmsg(db));
    if (text) sqlite3_bind_text(st, 1, text->data(), static_cast<int>(text->size()), SQLITE_TRANSIENT);
    else sqlite3_bind_null(st, 1);
    sqlite3_bind_int64(st, 2, c.rowid);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_CONSTRAINT) fuzz::fail(std::string("UPDATE failed: ") + sqlite3_errmsg(db));
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Fixture& f = fixture();
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::vector<const Cell*> changed;
  for (int segments = 0; !in.empty() && segments < 3; ++segments) {
    auto end = in.find('\0');
    std::string_view seg = in.substr(0, end);
    in = end == std::string_view::npos ? std::string_view() : in.substr(end + 1);
    if (seg.empty()) continue;
    const Cell& cell = f.cells[static_cast<unsigned char>(seg[0]) % f.cells.size()];
    f.set(cell, std::optional<std::string_view>(seg.substr(1)));
    changed.push_back(&cell);
  }
  sp::RunConfig cfg;
  cfg.thread_id = "t";
  fuzz::named_errors_only([&] { (void)f.saver->get_tuple({"t", "", std::nullopt}); });
  fuzz::named_errors_only([&] {
    sp::CheckpointQuery q;
    q.thread_id = "t";
    for (const auto& t : f.saver->list(q)) (void)t.checkpoint.channel_values.size();
  });
  fuzz::named_errors_only([&] { (void)f.app.get_state(cfg, /*subgraphs=*/true).values.dump(); });
  fuzz::named_errors_only([&] {
    for (const auto& s : f.app.get_state_history(cfg)) (void)s.values.dump();
  });
  for (auto it = changed.rbegin(); it != changed.rend(); ++it) {  // newest first: a cell set twice ends as it was
    const Cell* c = *it;
    f.set(*c, c->original ? std::optional<std::string_view>(*c->original) : std::nullopt);
  }
  return 0;
}
