// PostgresSaver's schema: the migrations that take a database from any earlier version to the
// current one (docs/checkpoint_schema.md). Included by postgres_saver.cpp only.
#pragma once

namespace superstep::internal::postgres_schema {

inline constexpr int kSchemaVersion = 4;  // claims use advisory locks: no table

inline const char* const kMigrations[] = {
    // 1: the three tables of the contract.
    R"sql(
CREATE TABLE checkpoints (
  thread_id BYTEA NOT NULL,
  checkpoint_ns BYTEA NOT NULL,
  checkpoint_id TEXT COLLATE "C" NOT NULL,
  parent_checkpoint_id TEXT COLLATE "C",
  checkpoint TEXT NOT NULL,
  metadata TEXT NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);
CREATE TABLE checkpoint_blobs (
  thread_id BYTEA NOT NULL,
  checkpoint_ns BYTEA NOT NULL,
  channel TEXT COLLATE "C" NOT NULL,
  version TEXT COLLATE "C" NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
);
CREATE TABLE checkpoint_writes (
  thread_id BYTEA NOT NULL,
  checkpoint_ns BYTEA NOT NULL,
  checkpoint_id TEXT COLLATE "C" NOT NULL,
  task_id TEXT COLLATE "C" NOT NULL,
  idx INTEGER NOT NULL,
  channel TEXT COLLATE "C" NOT NULL,
  value TEXT NOT NULL,
  task_path TEXT COLLATE "C" NOT NULL DEFAULT '',
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
);
)sql",
    // 2: delta storage: a value with delta_base set holds the elements appended to the value
    // at version delta_base.
    R"sql(
ALTER TABLE checkpoint_blobs ADD COLUMN delta_base TEXT COLLATE "C";
)sql",
    // 3: a checkpoint's version maps may be stored as changes to its parent's (marked in the
    // checkpoint text); no table changes, the version keeps older builds from misreading them.
    R"sql(
SELECT 1;
)sql",
    // 4: the run that stored each pending write (delete_run_checkpoints: a rollback removes
    // what the run wrote on an earlier run's checkpoint too).
    R"sql(
ALTER TABLE checkpoint_writes ADD COLUMN run_id TEXT COLLATE "C";
)sql",
};

}  // namespace superstep::internal::postgres_schema
