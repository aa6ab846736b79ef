// PostgresSaver: the storage contract in PostgreSQL (schema in docs/checkpoint_schema.md).
// Thread ids and namespaces are BYTEA (any bytes, NULs included, ordered bytewise like the other
// savers); ids and channels are TEXT COLLATE "C". Every write is one statement (a data-modifying
// CTE where it touches two tables), prepared once per connection, so a put costs one round trip.
// Reads fetch all values and writes of the checkpoints they return in two more statements,
// however many checkpoints that is; a whole history sends all three in one round trip.
#include "superstep/checkpoint/postgres_saver.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "checkpoint/postgres_schema.hpp"
#include "checkpoint/saver_common.hpp"
#include "internal/json_text.hpp"
#include "internal/pq.hpp"
#include "superstep/errors.hpp"

namespace superstep {

using internal::StoredWrite;
using internal::parse_stored;
using internal::pq::Conn;
using internal::pq::Params;
using internal::pq::Pipeline;
using internal::pq::Result;
using internal::pq::int_array;
using internal::pq::text_array;
namespace pq = internal::pq;
using internal::postgres_schema::kMigrations;
using internal::postgres_schema::kSchemaVersion;

namespace {

/// A checkpoints row, before its values and writes are fetched.
struct Row {
  std::string thread, ns, id, checkpoint, metadata;
  std::optional<std::string> parent;
};

constexpr const char* kPut = R"sql(
WITH blobs AS (
  INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, value, delta_base)
  SELECT $1::bytea, $2::bytea, u.channel, u.version, u.value, u.delta_base
  FROM unnest($3::text[], $4::text[], $5::text[], $10::text[]) AS u(channel, version, value, delta_base)
  ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO UPDATE
    SET value = EXCLUDED.value, delta_base = EXCLUDED.delta_base)
INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
VALUES ($1::bytea, $2::bytea, $6::text, $7::text, $8::text, $9::text)
ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE
  SET parent_checkpoint_id = EXCLUDED.parent_checkpoint_id, checkpoint = EXCLUDED.checkpoint,
      metadata = EXCLUDED.metadata)sql";

// Special channels (negative slots) replace the saved write; other writes keep the first saved.
constexpr const char* kPutWrites = R"sql(
INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, value, task_path, run_id)
SELECT $1::bytea, $2::bytea, $3::text, $4::text, u.idx, u.channel, u.value, $5::text, $9::text
FROM unnest($6::int[], $7::text[], $8::text[]) AS u(idx, channel, value)
ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE
  SET channel = EXCLUDED.channel, value = EXCLUDED.value, task_path = EXCLUDED.task_path, run_id = EXCLUDED.run_id
  WHERE checkpoint_writes.idx < 0)sql";

constexpr const char* kColumns = "thread_id, checkpoint_ns, checkpoint_id, checkpoint, metadata, parent_checkpoint_id";

// One primary-key probe per wanted (channel, version), whatever the table's statistics say:
// joined plainly, an unanalysed table got a nested loop over the whole wanted list per stored
// row of the thread (quadratic: 40 ms for a 200-step history). OFFSET 0 keeps the planner from
// flattening the lateral subquery back into that join.
constexpr const char* kBlobsOf = R"sql(
SELECT b.channel, b.version, b.value, b.delta_base FROM unnest($3::text[], $4::text[]) AS u(channel, version)
JOIN LATERAL (SELECT channel, version, value, delta_base FROM checkpoint_blobs
  WHERE thread_id = $1::bytea AND checkpoint_ns = $2::bytea AND channel = u.channel AND version = u.version
  OFFSET 0) b ON TRUE)sql";

constexpr const char* kChannelBlobs = R"sql(
SELECT version, value, delta_base FROM checkpoint_blobs
WHERE thread_id = $1::bytea AND checkpoint_ns = $2::bytea AND channel = $3::text)sql";

constexpr const char* kWritesOf = R"sql(
SELECT checkpoint_id, task_id, idx, channel, value, task_path FROM checkpoint_writes
WHERE thread_id = $1::bytea AND checkpoint_ns = $2::bytea AND checkpoint_id = ANY($3::text[]))sql";

// The writes of a range of checkpoint ids: one index range scan, where `= ANY` of many ids tests
// each row against the whole list (2 ms for a 200-step history).
constexpr const char* kWritesBetween = R"sql(
SELECT checkpoint_id, task_id, idx, channel, value, task_path FROM checkpoint_writes
WHERE thread_id = $1::bytea AND checkpoint_ns = $2::bytea AND checkpoint_id >= $3::text AND checkpoint_id <= $4::text)sql";

// A listing of every checkpoint of a thread and namespace (a whole history) wants every stored
// value and pending write of it: these read them in one index range scan each.
constexpr const char* kBlobsOfThread = R"sql(
SELECT channel, version, value, delta_base FROM checkpoint_blobs WHERE thread_id = $1::bytea AND checkpoint_ns = $2::bytea)sql";
constexpr const char* kWritesOfThread = R"sql(
SELECT checkpoint_id, task_id, idx, channel, value, task_path FROM checkpoint_writes
WHERE thread_id = $1::bytea AND checkpoint_ns = $2::bytea)sql";

/// From this many checkpoints on, their writes are read as a range of ids (kWritesBetween).
constexpr std::size_t kWritesAsRange = 16;

}  // namespace

struct PostgresSaver::Impl {
  std::string dsn;
  std::string schema;                           // current_schema(), part of claim keys
  std::vector<std::unique_ptr<Conn>> claim_idle;  // connections for claims (guarded by mutex)
  std::size_t max_open = 4;
  std::chrono::milliseconds reconnect_within{10000};
  std::mutex mutex;
  std::condition_variable freed;
  std::vector<std::unique_ptr<Conn>> idle;
  std::size_t open = 0;

  std::unique_ptr<Conn> connect() { return Conn::open(dsn); }

  /// A connection borrowed from the pool; one in a bad state is dropped on return.
  class Lease {
   public:
    Lease(Impl& pool, std::unique_ptr<Conn> c) : pool_(pool), c_(std::move(c)) {}
    ~Lease() { pool_.give_back(std::move(c_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Conn& operator*() { return *c_; }
    Conn* operator->() { return c_.get(); }

   private:
    Impl& pool_;
    std::unique_ptr<Conn> c_;
  };

  Lease borrow() {
    std::unique_lock lock(mutex);
    freed.wait(lock, [&] { return !idle.empty() || open < max_open; });
    if (!idle.empty()) {
      auto c = std::move(idle.back());
      idle.pop_back();
      return Lease(*this, std::move(c));
    }
    ++open;
    lock.unlock();
    try {
      return Lease(*this, connect());
    } catch (...) {
      lock.lock();
      --open;
      freed.notify_one();
      throw;
    }
  }

  void give_back(std::unique_ptr<Conn> c) {
    std::lock_guard lock(mutex);
    if (c && c->ok() && PQtransactionStatus(c->pg) == PQTRANS_IDLE &&
        PQpipelineStatus(c->pg) == PQ_PIPELINE_OFF)
      idle.push_back(std::move(c));
    else --open;
    freed.notify_one();
  }

  /// Closes the idle connections: after one broke (a server restart), the others did too, and a
  /// retry must not borrow one of them.
  void drop_idle() {
    std::lock_guard lock(mutex);
    open -= idle.size();
    idle.clear();
    claim_idle.clear();
    freed.notify_all();
  }

  /// Runs `fn(conn)`; when the connection broke (server restart, killed backend, idle timeout),
  /// again on a new one, trying to connect for up to `reconnect_within` (a restarting server
  /// refuses connections for a moment). Only for work that is safe to repeat: single statements
  /// and reads.
  template <class F>
  auto with_conn(F&& fn) {
    try {
      auto lease = borrow();
      return fn(*lease);
    } catch (const pq::Error& e) {
      if (!e.lost) throw;
    }
    drop_idle();
    const auto deadline = std::chrono::steady_clock::now() + reconnect_within;
    std::chrono::milliseconds pause{20};
    for (;;) {
      try {
        auto lease = borrow();
        return fn(*lease);
      } catch (const pq::Error& e) {
        if (!e.no_server || std::chrono::steady_clock::now() + pause > deadline) throw;
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(500));
    }
  }

  /// Runs `fn(conn)` inside one transaction.
  template <class F>
  void transaction(F&& fn) {
    auto lease = borrow();
    lease->exec("BEGIN");
    try {
      fn(*lease);
      lease->exec("COMMIT");
    } catch (...) {
      PQclear(PQexec(lease->pg, "ROLLBACK"));
      throw;
    }
  }

  /// Rebuilds version maps stored as changes. A chain's checkpoints come from `texts` (id ->
  /// stored text, those this read already has) or, in one range of ids, from the table.
  static internal::VersionResolver versions(Conn& c, const std::string& t, const std::string& ns,
                                            std::shared_ptr<std::map<std::string, std::string>> texts) {
    return internal::VersionResolver(
        [&c, t, ns, texts](const std::string& id, const std::string& root) -> std::optional<json> {
          auto it = texts->find(id);
          if (it == texts->end()) {
            Result range = c.run("chain_of",
                                 "SELECT checkpoint_id, checkpoint FROM checkpoints WHERE thread_id = $1::bytea AND "
                                 "checkpoint_ns = $2::bytea AND checkpoint_id >= $3::text AND checkpoint_id <= $4::text",
                                 Params().bytes(t).bytes(ns).bytes(std::min(root, id)).bytes(id));
            for (int i = 0; i < range.rows(); ++i) texts->emplace(range.bytes(i, 0), range.bytes(i, 1));
            it = texts->find(id);
          }
          if (it == texts->end()) return std::nullopt;
          return parse_stored(it->second, "checkpoint", t, id);
        },
        t);
  }

  /// The stored values (kBlobsOfThread's columns), then the pending writes (kWritesOf's), of a
  /// thread and namespace, read along with its checkpoints: each call gives the next result.
  using Prefetch = std::function<Result()>;

  /// A stored value: its text and delta base, and the text parsed ahead when it was read with a
  /// whole history (moved out by the first read of it; a text that does not parse stays for the
  /// read that needs it, which names the checkpoint).
  struct Blob {
    std::string text;
    std::optional<std::string> base;
    std::optional<json> parsed;
  };
  using Blobs = std::map<std::pair<std::string, std::string>, Blob>;  // (channel, version)

  /// Adds the rows of `r` (channel, version, value, delta base) to `blobs`, parsing them when `parse`.
  static void index_blobs(const Result& r, Blobs& blobs, bool parse, const std::string& t) {
    for (int i = 0; i < r.rows(); ++i) {
      Blob b{r.bytes(i, 2), r.opt(i, 3), std::nullopt};
      if (parse) try {
          b.parsed = parse_stored(b.text, "value", t, "");
        } catch (const CheckpointError&) {
          // parsed again, and reported with its checkpoint, by the read that needs it
        }
      blobs.emplace(std::pair{r.bytes(i, 0), r.bytes(i, 1)}, std::move(b));
    }
  }

  /// Builds the tuples of `rows` (one thread and namespace). Their values and pending writes come
  /// from `prefetched` when given (called while a helper thread parses), else from one statement
  /// each. `query`: a list() read (CheckpointQuery::as_changes).
  std::vector<CheckpointTuple> load(Conn& c, const std::vector<Row>& rows, const CheckpointQuery* query = nullptr,
                                    const Prefetch& prefetched = {}) {
    std::vector<CheckpointTuple> out;
    if (rows.empty()) return out;
    const std::string& t = rows.front().thread;
    const std::string& ns = rows.front().ns;
    std::vector<json> stored(rows.size()), metadata(rows.size());
    Blobs blobs;
    std::unordered_map<std::string, std::vector<StoredWrite>> writes;  // checkpoint id
    auto read_writes = [&](const Result& r, const std::unordered_set<std::string>* listed) {
      for (int i = 0; i < r.rows(); ++i) {
        std::string id = r.bytes(i, 0);
        if (listed && !listed->count(id)) continue;  // in the range read, not listed
        writes[id].push_back(StoredWrite{r.bytes(i, 1), r.int4(i, 2), r.bytes(i, 3),
                                         parse_stored(r.bytes(i, 4), "pending write", t, id), r.bytes(i, 5)});
      }
    };
    internal::parse_on_two_threads(
        rows.size(),
        [&](std::size_t from, std::size_t to) {
          for (std::size_t k = from; k < to; ++k) {
            stored[k] = parse_stored(rows[k].checkpoint, "checkpoint", t, rows[k].id);
            metadata[k] = parse_stored(rows[k].metadata, "metadata", t, rows[k].id);
          }
        },
        [&] {
          // A whole history: the values are parsed while the server reads the writes, and the
          // writes (all of them the listed checkpoints') while the helper may still parse.
          if (!prefetched) return;
          index_blobs(prefetched(), blobs, /*parse=*/true, t);
          read_writes(prefetched(), nullptr);
        });
    std::set<std::pair<std::string, std::string>> wanted;
    std::unordered_set<std::string> ids;
    auto texts = std::make_shared<std::map<std::string, std::string>>();
    for (const auto& r : rows) texts->emplace(r.id, r.checkpoint);
    internal::VersionResolver maps = versions(c, t, ns, texts);
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const Row& r = rows[k];
      const std::string* next = k + 1 < rows.size() ? &rows[k + 1].id : nullptr;
      if (!query || !internal::keeps_changes(*query, stored[k], next)) maps.resolve(r.id, stored[k]);
      ids.insert(r.id);
      if (stored[k].value("v", 4) < 4 && r.parent) ids.insert(*r.parent);
      if (prefetched) continue;
      const json& cv = stored[k].contains("channel_versions") ? stored[k]["channel_versions"] : json::object();
      if (cv.is_object())
        for (auto it = cv.begin(); it != cv.end(); ++it)
          if (!it->is_null()) wanted.emplace(it.key(), internal::version_text(*it));
    }
    if (!prefetched) {
      std::vector<std::string> channels, versions;
      for (const auto& [ch, ver] : wanted) {
        channels.push_back(ch);
        versions.push_back(ver);
      }
      index_blobs(c.run("blobs_of", kBlobsOf,
                        Params().bytes(t).bytes(ns).text(text_array(channels, "channel name")).text(text_array(versions, "version"))),
                  blobs, /*parse=*/false, t);
    }
    // An append's base is fetched with every other stored version of its channel, in one statement.
    std::set<std::string> whole_channel;
    std::string at_id;
    internal::BlobResolver values(
        [&](const std::string& ch, const std::string& version) -> std::optional<internal::StoredBlob> {
          auto it = blobs.find({ch, version});
          // A wanted version was fetched above when stored (all of them, when prefetched); only an
          // append's base may be elsewhere.
          if (it == blobs.end() && !prefetched && !wanted.count({ch, version}) && whole_channel.insert(ch).second) {
            Result all = c.run("channel_blobs", kChannelBlobs, Params().bytes(t).bytes(ns).bytes(ch));
            for (int i = 0; i < all.rows(); ++i)
              blobs.emplace(std::pair{ch, all.bytes(i, 0)}, Blob{all.bytes(i, 1), all.opt(i, 2), std::nullopt});
            it = blobs.find({ch, version});
          }
          if (it == blobs.end()) return std::nullopt;
          Blob& b = it->second;
          if (b.parsed) {
            internal::StoredBlob out{std::move(*b.parsed), b.base};
            b.parsed.reset();
            return out;
          }
          return internal::StoredBlob{parse_stored(b.text, "value of channel '" + ch + "'", t, at_id), b.base};
        },
        "thread '" + t + "'");
    if (!prefetched) {
      if (ids.size() >= kWritesAsRange) {
        auto [lo, hi] = std::minmax_element(ids.begin(), ids.end());
        read_writes(c.run("writes_between", kWritesBetween, Params().bytes(t).bytes(ns).bytes(*lo).bytes(*hi)), &ids);
      } else {
        read_writes(c.run("writes_of", kWritesOf,
                          Params().bytes(t).bytes(ns).text(text_array(std::vector<std::string>(ids.begin(), ids.end()), "checkpoint id"))),
                    &ids);
      }
    }
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const Row& r = rows[k];
      at_id = r.id;
      values.set_where("thread '" + t + "', checkpoint '" + r.id + "'");
      out.push_back(internal::make_tuple(
          t, ns, r.id, std::move(stored[k]), std::move(metadata[k]), r.parent,
          values, std::move(writes[r.id]), [&] { return writes[*r.parent]; }));  // newest first: a parent's writes are still there
    }
    return out;
  }

  static std::vector<Row> rows_of(const Result& r) {
    std::vector<Row> out;
    for (int i = 0; i < r.rows(); ++i)
      out.push_back(Row{r.bytes(i, 0), r.bytes(i, 1), r.bytes(i, 2), r.bytes(i, 3), r.bytes(i, 4), r.opt(i, 5)});
    return out;
  }

  void migrate() {
    transaction([&](Conn& c) {
      // One migration at a time across processes; the lock ends with the transaction.
      c.exec("SELECT pg_advisory_xact_lock(7310582903472911)");
      c.exec("CREATE TABLE IF NOT EXISTS superstep_schema (version INTEGER NOT NULL)");
      Result v = c.run(nullptr, "SELECT COALESCE(MAX(version), 0)::int4 FROM superstep_schema", Params());
      int have = v.int4(0, 0);
      if (have > kSchemaVersion)
        throw CheckpointError("postgres: schema version " + std::to_string(have) + " is newer than this build's (" +
                              std::to_string(kSchemaVersion) + ")");
      schema = c.run(nullptr, "SELECT COALESCE(current_schema(), '')", Params()).bytes(0, 0);
      if (have == kSchemaVersion) return;
      for (int m = have; m < kSchemaVersion; ++m) c.exec(kMigrations[m]);
      c.exec("DELETE FROM superstep_schema");
      c.run(nullptr, "INSERT INTO superstep_schema (version) VALUES ($1::int4)", Params().text(std::to_string(kSchemaVersion)));
    });
  }
};

PostgresSaver::PostgresSaver(const std::string& dsn, std::size_t pool_size, std::chrono::milliseconds reconnect_within)
    : impl_(std::make_unique<Impl>()) {
  impl_->dsn = dsn;
  impl_->max_open = pool_size == 0 ? 1 : pool_size;
  impl_->reconnect_within = reconnect_within;
  impl_->migrate();
}

PostgresSaver::~PostgresSaver() = default;

int PostgresSaver::schema_version() { return kSchemaVersion; }

CheckpointConfig PostgresSaver::put_with_deltas(const CheckpointConfig& config, const Checkpoint& checkpoint,
                                                const json& metadata, const json& new_versions,
                                                const PutDeltas& deltas) {
  internal::require_thread(config, "put");
  internal::check_deltas(config, new_versions, deltas);
  std::vector<std::string> channels, versions, values;
  std::vector<std::optional<std::string>> bases;
  if (new_versions.is_object())
    for (auto it = new_versions.begin(); it != new_versions.end(); ++it) {
      auto v = checkpoint.channel_values.find(it.key());
      if (v == checkpoint.channel_values.end()) continue;
      channels.push_back(it.key());
      versions.push_back(internal::version_text(*it));
      values.push_back(internal::dump_json(*v));
      bases.emplace_back();
    }
  for (const ChannelDelta& d : deltas.appends) {
    channels.push_back(d.channel);
    versions.push_back(internal::version_text(new_versions[d.channel]));
    values.push_back(internal::dump_json(d.appended));
    bases.emplace_back(internal::version_text(d.base_version));
  }
  Params p;
  p.bytes(config.thread_id)
      .bytes(config.checkpoint_ns)
      .text(text_array(channels, "channel name"))
      .text(text_array(versions, "version"))
      .text(text_array(values, "value"))
      .bytes(checkpoint.id)
      .opt(config.checkpoint_id)
      .bytes(internal::dump_stored_checkpoint(checkpoint, config.checkpoint_id, deltas))
      .bytes(metadata.is_null() ? std::string("{}") : internal::dump_json(metadata))
      .text(text_array(bases, "version"));
  impl_->with_conn([&](Conn& c) { return c.run("put", kPut, p); });
  return CheckpointConfig{config.thread_id, config.checkpoint_ns, checkpoint.id};
}

void PostgresSaver::put_writes(const CheckpointConfig& config, const std::vector<std::pair<std::string, json>>& writes,
                               const std::string& task_id, const std::string& task_path) {
  internal::require_thread(config, "put_writes");
  if (!config.checkpoint_id)
    throw CheckpointError("put_writes: config has no checkpoint_id (thread '" + config.thread_id + "')");
  // One row per slot: a special channel written twice in one call keeps the last value.
  std::map<int, std::pair<std::string, std::string>> slots;
  for (std::size_t i = 0; i < writes.size(); ++i) {
    int idx = internal::write_index(writes[i].first, static_cast<int>(i));
    slots[idx] = {writes[i].first, internal::dump_json(writes[i].second)};
  }
  if (slots.empty()) return;
  std::vector<int> idx;
  std::vector<std::string> channels, values;
  for (auto& [i, w] : slots) {
    idx.push_back(i);
    channels.push_back(std::move(w.first));
    values.push_back(std::move(w.second));
  }
  Params p;
  p.bytes(config.thread_id)
      .bytes(config.checkpoint_ns)
      .bytes(*config.checkpoint_id)
      .bytes(task_id)
      .bytes(task_path)
      .text(int_array(idx))
      .text(text_array(channels, "channel name"))
      .text(text_array(values, "value"));
  if (config.run_id.empty()) p.null();
  else p.text(config.run_id);
  impl_->with_conn([&](Conn& c) { return c.run("put_writes", kPutWrites, p); });
}

std::optional<CheckpointTuple> PostgresSaver::get_tuple(const CheckpointConfig& config) {
  return impl_->with_conn([&](Conn& c) -> std::optional<CheckpointTuple> {
    std::string cols = kColumns;
    Params p;
    p.bytes(config.thread_id).bytes(config.checkpoint_ns);
    std::vector<Row> rows;
    if (config.checkpoint_id) {
      p.bytes(*config.checkpoint_id);
      rows = Impl::rows_of(c.run("get_by_id",
                                 "SELECT " + cols + " FROM checkpoints WHERE thread_id = $1::bytea AND "
                                 "checkpoint_ns = $2::bytea AND checkpoint_id = $3::text",
                                 p));
    } else {
      rows = Impl::rows_of(c.run("get_latest",
                                 "SELECT " + cols + " FROM checkpoints WHERE thread_id = $1::bytea AND "
                                 "checkpoint_ns = $2::bytea ORDER BY checkpoint_id DESC LIMIT 1",
                                 p));
    }
    if (rows.empty()) return std::nullopt;
    return std::move(impl_->load(c, rows).front());
  });
}

std::vector<CheckpointTuple> PostgresSaver::list(const CheckpointQuery& q) {
  return impl_->with_conn([&](Conn& c) {
    std::string sql = std::string("SELECT ") + kColumns + " FROM checkpoints WHERE TRUE";
    Params p;
    int n = 0;
    auto arg = [&](const char* cast) { return "$" + std::to_string(++n) + cast; };
    if (q.thread_id) sql += " AND thread_id = " + arg("::bytea"), p.bytes(*q.thread_id);
    if (q.checkpoint_ns) sql += " AND checkpoint_ns = " + arg("::bytea"), p.bytes(*q.checkpoint_ns);
    if (q.checkpoint_id) sql += " AND checkpoint_id = " + arg("::text"), p.bytes(*q.checkpoint_id);
    if (q.before) sql += " AND checkpoint_id < " + arg("::text"), p.bytes(*q.before);
    bool filtered = q.filter.is_object() && !q.filter.empty();
    // Every checkpoint of one thread and namespace (a whole history): its values and writes are
    // read in the same round trip, the server reading them while the checkpoints are parsed. Its
    // rows are sorted here, not by the server: sorting them there (a bitmap scan's rows, whole
    // checkpoint texts) took 0.3 of 0.6 ms for 202 checkpoints, before the first row was sent.
    const bool whole = q.thread_id && q.checkpoint_ns && !q.checkpoint_id && !q.before && !q.limit && !filtered;
    if (!whole) sql += " ORDER BY thread_id, checkpoint_ns, checkpoint_id DESC";
    if (q.limit && !filtered) sql += " LIMIT " + std::to_string(*q.limit);
    std::optional<Pipeline> pipeline;
    std::optional<Result> listed;
    if (whole) {
      // Prepared before (a prepare inside the pipeline whose result went unread, as when the
      // thread has no checkpoint, would leave the connection not knowing it is prepared).
      c.prepare("list_thread", sql, 2);
      c.prepare("blobs_of_thread", kBlobsOfThread, 2);
      c.prepare("writes_of_thread", kWritesOfThread, 2);
      pipeline.emplace(c);
      // Each result comes as soon as its statement is done: the checkpoints are parsed while
      // the server reads the values and writes.
      pipeline->send("list_thread", p);
      pipeline->flush_request();
      Params thread;
      thread.bytes(*q.thread_id).bytes(*q.checkpoint_ns);
      pipeline->send("blobs_of_thread", thread);
      pipeline->flush_request();
      pipeline->send("writes_of_thread", thread);
      pipeline->sync();
      listed.emplace(pipeline->next());
    } else {
      listed.emplace(c.run(nullptr, sql, p));
    }
    // Filter on metadata here (equality of top-level keys, as every saver does), then load each
    // run of one thread and namespace together.
    std::vector<Row> rows;
    for (auto& row : Impl::rows_of(*listed)) {
      if (q.limit && rows.size() >= *q.limit) break;
      if (filtered && !internal::matches_filter(parse_stored(row.metadata, "metadata", row.thread, row.id), q.filter))
        continue;
      rows.push_back(std::move(row));
    }
    listed.reset();
    if (whole)  // newest first, as the statement of any other listing orders them
      std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.id > b.id; });
    std::vector<CheckpointTuple> out;
    if (whole) {
      out = impl_->load(c, rows, &q, [&, taken = 0]() mutable {
        Result r = pipeline->next();
        if (++taken == 2) pipeline.reset();  // the connection is free for the statements load() may still run
        return r;
      });
      return out;
    }
    for (std::size_t i = 0; i < rows.size();) {
      std::size_t j = i;
      while (j < rows.size() && rows[j].thread == rows[i].thread && rows[j].ns == rows[i].ns) ++j;
      std::vector<Row> group(std::make_move_iterator(rows.begin() + static_cast<std::ptrdiff_t>(i)),
                             std::make_move_iterator(rows.begin() + static_cast<std::ptrdiff_t>(j)));
      for (auto& t : impl_->load(c, group, &q)) out.push_back(std::move(t));
      i = j;
    }
    return out;
  });
}

CheckpointConfig PostgresSaver::update_metadata(const CheckpointConfig& config, const json& metadata) {
  internal::check_metadata_patch(config, metadata);
  CheckpointConfig out{config.thread_id, config.checkpoint_ns, std::nullopt};
  impl_->transaction([&](Conn& c) {
    Params p;
    p.bytes(config.thread_id).bytes(config.checkpoint_ns);
    if (config.checkpoint_id) p.text(*config.checkpoint_id);
    Result r = config.checkpoint_id
                   ? c.run(nullptr,
                           "SELECT checkpoint_id, metadata FROM checkpoints WHERE thread_id = $1::bytea AND "
                           "checkpoint_ns = $2::bytea AND checkpoint_id = $3 FOR UPDATE",
                           p)
                   : c.run(nullptr,
                           "SELECT checkpoint_id, metadata FROM checkpoints WHERE thread_id = $1::bytea AND "
                           "checkpoint_ns = $2::bytea ORDER BY checkpoint_id DESC LIMIT 1 FOR UPDATE",
                           p);
    if (r.rows() == 0) internal::no_checkpoint_to_update(config);
    std::string id = r.bytes(0, 0);
    json merged = internal::merge_metadata(internal::parse_stored(r.bytes(0, 1), "metadata", config.thread_id, id), metadata);
    c.run(nullptr,
          "UPDATE checkpoints SET metadata = $4 WHERE thread_id = $1::bytea AND checkpoint_ns = $2::bytea AND "
          "checkpoint_id = $3",
          Params().bytes(config.thread_id).bytes(config.checkpoint_ns).text(id).text(merged.dump()));
    out.checkpoint_id = std::move(id);
  });
  return out;
}

std::size_t PostgresSaver::delete_run_checkpoints(const std::string& thread_id, const std::string& run_id) {
  std::vector<internal::CheckpointRow> rows;
  impl_->with_conn([&](Conn& c) {
    Result r = c.run(nullptr,
                     "SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, "
                     "coalesce(metadata::jsonb->>'run_id', '') FROM checkpoints WHERE thread_id = $1::bytea",
                     Params().bytes(thread_id));
    for (int i = 0; i < r.rows(); ++i)
      rows.push_back({r.bytes(i, 0), r.bytes(i, 1), r.is_null(i, 2) ? std::nullopt : std::optional(r.bytes(i, 2)),
                      r.bytes(i, 3)});
    return r;
  });
  internal::RunRollback plan = internal::plan_run_rollback(thread_id, run_id, rows);
  std::map<std::string, std::uint64_t> keep;  // per namespace: the highest version its checkpoints keep
  for (const auto& [ns, newest] : plan.newest_left) {
    std::optional<CheckpointTuple> t = newest ? get_tuple({thread_id, ns, *newest}) : std::nullopt;
    keep[ns] = t ? internal::max_channel_version(*t) : 0;
  }
  impl_->transaction([&](Conn& c) {
    // What the run wrote on checkpoints it did not make (a resume value, its tasks' writes).
    c.run(nullptr, "DELETE FROM checkpoint_writes WHERE thread_id = $1::bytea AND run_id = $2::text",
          Params().bytes(thread_id).text(run_id));
    for (const auto& [ns, id] : plan.deleted)
      c.run(nullptr,
            "WITH a AS (DELETE FROM checkpoints WHERE thread_id = $1::bytea AND checkpoint_ns = $2::bytea AND "
            "checkpoint_id = $3) DELETE FROM checkpoint_writes WHERE thread_id = $1::bytea AND checkpoint_ns = $2::bytea "
            "AND checkpoint_id = $3",
            Params().bytes(thread_id).bytes(ns).text(id));
    for (const auto& [ns, highest] : keep)
      c.run(nullptr,
            "DELETE FROM checkpoint_blobs WHERE thread_id = $1::bytea AND checkpoint_ns = $2::bytea AND "
            "version ~ '^[0-9]+$' AND version::numeric > $3::numeric",
            Params().bytes(thread_id).bytes(ns).text(std::to_string(highest)));
  });
  return plan.deleted.size();
}

void PostgresSaver::delete_thread(const std::string& thread_id) {
  impl_->with_conn([&](Conn& c) {
    return c.run("delete_thread",
                 "WITH a AS (DELETE FROM checkpoints WHERE thread_id = $1::bytea), "
                 "b AS (DELETE FROM checkpoint_blobs WHERE thread_id = $1::bytea) "
                 "DELETE FROM checkpoint_writes WHERE thread_id = $1::bytea",
                 Params().bytes(thread_id));
  });
}

void PostgresSaver::copy_thread(const std::string& from, const std::string& to) {
  impl_->transaction([&](Conn& c) {
    c.run(nullptr,
          "WITH a AS (DELETE FROM checkpoints WHERE thread_id = $1::bytea), "
          "b AS (DELETE FROM checkpoint_blobs WHERE thread_id = $1::bytea) "
          "DELETE FROM checkpoint_writes WHERE thread_id = $1::bytea",
          Params().bytes(to));
    Params p;
    p.bytes(from).bytes(to);
    c.run(nullptr,
          "WITH a AS (INSERT INTO checkpoints SELECT $2::bytea, checkpoint_ns, checkpoint_id, parent_checkpoint_id, "
          "checkpoint, metadata FROM checkpoints WHERE thread_id = $1::bytea), "
          "b AS (INSERT INTO checkpoint_blobs SELECT $2::bytea, checkpoint_ns, channel, version, value, delta_base "
          "FROM checkpoint_blobs WHERE thread_id = $1::bytea) "
          "INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, value, "
          "task_path, run_id) SELECT $2::bytea, checkpoint_ns, checkpoint_id, task_id, idx, channel, value, task_path, "
          "run_id FROM checkpoint_writes WHERE thread_id = $1::bytea",
          p);
  });
}

void PostgresSaver::prune(const std::vector<std::string>& thread_ids, bool keep_latest) {
  for (const auto& t : thread_ids) {
    if (!keep_latest) {
      delete_thread(t);
      continue;
    }
    impl_->transaction([&](Conn& c) {
      Params thread;
      thread.bytes(t);
      // Per namespace: keep the newest checkpoint, its writes, and the values its versions name.
      // A kept checkpoint whose version maps are changes gets whole maps first (its parents go).
      Result newest = c.run(nullptr,
                            "SELECT checkpoint_ns, checkpoint_id, checkpoint FROM checkpoints c WHERE thread_id = $1::bytea "
                            "AND checkpoint_id = (SELECT MAX(checkpoint_id) FROM checkpoints d WHERE d.thread_id = "
                            "c.thread_id AND d.checkpoint_ns = c.checkpoint_ns)",
                            thread);
      for (int i = 0; i < newest.rows(); ++i) {
        std::string ns = newest.bytes(i, 0), id = newest.bytes(i, 1);
        json stored = parse_stored(newest.bytes(i, 2), "checkpoint", t, id);
        if (!stored.contains(kVersionsFrom)) continue;
        internal::VersionResolver maps = Impl::versions(c, t, ns, std::make_shared<std::map<std::string, std::string>>());
        maps.resolve(id, stored);
        c.run(nullptr,
              "UPDATE checkpoints SET checkpoint = $4::text WHERE thread_id = $1::bytea AND checkpoint_ns = $2::bytea "
              "AND checkpoint_id = $3::text",
              Params().bytes(t).bytes(ns).bytes(id).bytes(stored.dump()));
      }
      c.run(nullptr,
            "DELETE FROM checkpoints c USING (SELECT checkpoint_ns, MAX(checkpoint_id) AS keep FROM checkpoints "
            "WHERE thread_id = $1::bytea GROUP BY checkpoint_ns) k WHERE c.thread_id = $1::bytea AND "
            "c.checkpoint_ns = k.checkpoint_ns AND c.checkpoint_id <> k.keep",
            thread);
      c.run(nullptr, "UPDATE checkpoints SET parent_checkpoint_id = NULL WHERE thread_id = $1::bytea", thread);
      c.run(nullptr,
            "DELETE FROM checkpoint_writes w WHERE w.thread_id = $1::bytea AND NOT EXISTS (SELECT 1 FROM checkpoints "
            "c WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = "
            "w.checkpoint_id)",
            thread);
      Result kept = c.run(nullptr, "SELECT checkpoint_ns, checkpoint_id, checkpoint FROM checkpoints WHERE thread_id = $1::bytea",
                          thread);
      for (int i = 0; i < kept.rows(); ++i) {
        json versions = parse_stored(kept.bytes(i, 2), "checkpoint", t, kept.bytes(i, 1)).value("channel_versions", json::object());
        // The kept values are stored whole, so the appends they were built from can go.
        std::string ns = kept.bytes(i, 0), id = kept.bytes(i, 1);
        internal::BlobResolver values(
            [&](const std::string& ch, const std::string& version) -> std::optional<internal::StoredBlob> {
              Result b = c.run(nullptr,
                               "SELECT value, delta_base FROM checkpoint_blobs WHERE thread_id = $1::bytea AND "
                               "checkpoint_ns = $2::bytea AND channel = $3::text AND version = $4::text",
                               Params().bytes(t).bytes(ns).bytes(ch).bytes(version));
              if (b.rows() == 0) return std::nullopt;
              return internal::StoredBlob{parse_stored(b.bytes(0, 0), "value of channel '" + ch + "'", t, id), b.opt(0, 1)};
            },
            "thread '" + t + "', checkpoint '" + id + "'");
        for (auto v = versions.begin(); v != versions.end(); ++v)
          if (auto value = values.resolve(v.key(), v.value().dump()))
            c.run(nullptr,
                  "UPDATE checkpoint_blobs SET value = $5::text, delta_base = NULL WHERE thread_id = $1::bytea AND "
                  "checkpoint_ns = $2::bytea AND channel = $3::text AND version = $4::text AND delta_base IS NOT NULL",
                  Params().bytes(t).bytes(ns).bytes(v.key()).bytes(v.value().dump()).bytes(value->dump()));
        std::vector<std::string> channels, vers;
        for (auto it = versions.begin(); it != versions.end(); ++it) {
          channels.push_back(it.key());
          vers.push_back(internal::version_text(*it));
        }
        c.run(nullptr,
              "DELETE FROM checkpoint_blobs WHERE thread_id = $1::bytea AND checkpoint_ns = $2::bytea AND "
              "(channel, version) NOT IN (SELECT * FROM unnest($3::text[], $4::text[]))",
              Params().bytes(t).bytes(kept.bytes(i, 0)).text(text_array(channels, "channel name")).text(text_array(vers, "version")));
      }
    });
  }
}

namespace {
/// 64-bit FNV-1a.
std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

std::unique_ptr<ThreadClaim> PostgresSaver::claim_thread(const std::string& thread_id, const std::string& checkpoint_ns) {
  Impl& impl = *impl_;
  std::unique_ptr<Conn> conn;
  {
    std::lock_guard lock(impl.mutex);
    if (!impl.claim_idle.empty()) {
      conn = std::move(impl.claim_idle.back());
      impl.claim_idle.pop_back();
    }
  }
  if (!conn || !conn->ok()) conn = impl.connect();
  std::uint64_t key = fnv1a(impl.schema + std::string(1, '\0') + thread_id + std::string(1, '\0') + checkpoint_ns);
  Params p;
  p.text(std::to_string(static_cast<std::int32_t>(key >> 32))).text(std::to_string(static_cast<std::int32_t>(key)));
  Result r = conn->run("try_claim", "SELECT pg_try_advisory_lock($1::int4, $2::int4)", p);
  bool got = r.rows() == 1 && !r.is_null(0, 0) && r.bytes(0, 0) == std::string(1, '\1');
  auto give_back = [&impl](std::unique_ptr<Conn> c) {
    std::lock_guard lock(impl.mutex);
    if (c && c->ok() && PQtransactionStatus(c->pg) == PQTRANS_IDLE && impl.claim_idle.size() < 8)
      impl.claim_idle.push_back(std::move(c));
  };
  if (!got) {
    give_back(std::move(conn));
    return nullptr;
  }
  auto held = std::make_shared<std::unique_ptr<Conn>>(std::move(conn));
  return std::make_unique<internal::ReleasingClaim>([held, p, give_back] {
    try {
      (*held)->run("release_claim", "SELECT pg_advisory_unlock($1::int4, $2::int4)", p);
      give_back(std::move(*held));
    } catch (...) {  // a broken connection: closing it releases the lock
    }
  });
}

void PostgresSaver::clear() {
  impl_->with_conn([&](Conn& c) {
    c.exec("TRUNCATE checkpoints, checkpoint_blobs, checkpoint_writes");
    return 0;
  });
}

}  // namespace superstep
