// PostgresSaver: checkpoints in a PostgreSQL database, for several processes (or machines)
// sharing one store. A pool of libpq connections serves concurrent calls; every write is one
// statement, so it is atomic without holding a transaction open. The schema is versioned in the
// database (table `superstep_schema`) and migrated under an advisory lock, so processes starting
// together do not race. Tables live in the connection's search_path (set `options=-csearch_path=X`
// in the DSN for a schema of your own). Schema: docs/checkpoint_schema.md. Target
// superstep::postgres.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "superstep/checkpoint/saver.hpp"

namespace superstep {

class PostgresSaver final : public DeltaCheckpointSaver {
 public:
  /// Connects with libpq's `dsn` (`postgresql://user@host:port/db` or `host=... dbname=...`),
  /// opening up to `pool_size` connections on demand, and brings the schema up to date.
  /// A call whose connection broke (the server restarted, the backend was killed) is repeated
  /// on a new connection, which is tried for up to `reconnect_within` while the server refuses
  /// connections (restarting); every call but update_metadata, delete_run_checkpoints,
  /// copy_thread and prune (transactions of several statements) is one statement or a read,
  /// safe to repeat. docs/persistence.md, "Lost connections".
  /// Throws: CheckpointError naming the server's message when the first connection or the
  /// migration fails, or when the database's schema is newer than this build's.
  explicit PostgresSaver(const std::string& dsn, std::size_t pool_size = 4,
                         std::chrono::milliseconds reconnect_within = std::chrono::seconds(10));
  ~PostgresSaver() override;
  PostgresSaver(const PostgresSaver&) = delete;
  PostgresSaver& operator=(const PostgresSaver&) = delete;

  bool stores_deltas() const override { return true; }
  CheckpointConfig put_with_deltas(const CheckpointConfig& config, const Checkpoint& checkpoint, const json& metadata,
                                   const json& new_versions, const PutDeltas& deltas) override;
  void put_writes(const CheckpointConfig& config, const std::vector<std::pair<std::string, json>>& writes,
                  const std::string& task_id, const std::string& task_path = "") override;
  std::optional<CheckpointTuple> get_tuple(const CheckpointConfig& config) override;
  std::vector<CheckpointTuple> list(const CheckpointQuery& query) override;
  CheckpointConfig update_metadata(const CheckpointConfig& config, const json& metadata) override;
  std::size_t delete_run_checkpoints(const std::string& thread_id, const std::string& run_id) override;
  void delete_thread(const std::string& thread_id) override;
  void copy_thread(const std::string& from, const std::string& to) override;
  void prune(const std::vector<std::string>& thread_ids, bool keep_latest = true) override;
  /// A session advisory lock on a hash of (schema, thread, namespace), held on a connection of
  /// its own for the run; PostgreSQL drops it when that connection or its process dies.
  std::unique_ptr<ThreadClaim> claim_thread(const std::string& thread_id, const std::string& checkpoint_ns) override;

  /// Removes every row (tests).
  void clear();
  /// The schema version this build writes.
  static int schema_version();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace superstep
