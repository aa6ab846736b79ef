// SqliteSaver's schema: the migrations that take a file from any earlier version to the current
// one (docs/checkpoint_schema.md). Included by sqlite_saver.cpp only.
#pragma once

namespace superstep::internal::sqlite_schema {

inline constexpr int kSchemaVersion = 8;

inline const char* const kMigrations[] = {
    // 1: the three tables of the contract.
    R"sql(
CREATE TABLE IF NOT EXISTS checkpoints (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  parent_checkpoint_id TEXT,
  checkpoint TEXT NOT NULL,
  metadata TEXT NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);
CREATE TABLE IF NOT EXISTS checkpoint_blobs (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  channel TEXT NOT NULL,
  version TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
);
CREATE TABLE IF NOT EXISTS checkpoint_writes (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  channel TEXT NOT NULL,
  value TEXT NOT NULL,
  task_path TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
);
)sql",
    // 2: delta storage: a value with delta_base set holds the elements appended to the value
    // at version delta_base.
    R"sql(
ALTER TABLE checkpoint_blobs ADD COLUMN delta_base TEXT;
)sql",
    // 3: which run holds a thread (claim_thread), so processes sharing the file do not run one
    // thread twice at once.
    R"sql(
CREATE TABLE IF NOT EXISTS thread_claims (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL,
  owner TEXT NOT NULL,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns)
);
)sql",
    // 4: a checkpoint's version maps may be stored as changes to its parent's (marked in the
    // checkpoint text); no table changes, the version keeps older builds from misreading them.
    R"sql(
SELECT 1;
)sql",
    // 5: the values a step stored, all of one version, in one row (one insert per step instead
    // of one per channel).
    R"sql(
CREATE TABLE IF NOT EXISTS checkpoint_version_values (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  version TEXT NOT NULL,
  channel_values TEXT NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns, version)
) WITHOUT ROWID;
CREATE TABLE checkpoint_writes_5 (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  channel TEXT NOT NULL,
  value TEXT NOT NULL,
  task_path TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
) WITHOUT ROWID;
INSERT INTO checkpoint_writes_5 SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, value, task_path FROM checkpoint_writes;
DROP TABLE checkpoint_writes;
ALTER TABLE checkpoint_writes_5 RENAME TO checkpoint_writes;
CREATE TABLE checkpoints_5 (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  parent_checkpoint_id TEXT,
  checkpoint TEXT NOT NULL,
  metadata TEXT NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
) WITHOUT ROWID;
INSERT INTO checkpoints_5 SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata FROM checkpoints;
DROP TABLE checkpoints;
ALTER TABLE checkpoints_5 RENAME TO checkpoints;
)sql",
    // 6: the run that stored each pending write (delete_run_checkpoints: a rollback removes
    // what the run wrote on an earlier run's checkpoint too).
    R"sql(
ALTER TABLE checkpoint_writes ADD COLUMN run_id TEXT;
)sql",
    // 7: checkpoints as a rowid table again, its key in the primary-key index. A WITHOUT ROWID
    // table keeps whole rows (~700 bytes) in its interior pages too: five to a page, a deep tree,
    // several interior pages rewritten by a commit. Rows now go to the table's last page and
    // only the ~110-byte keys are sorted by thread.
    R"sql(
CREATE TABLE checkpoints_7 (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  parent_checkpoint_id TEXT,
  checkpoint TEXT NOT NULL,
  metadata TEXT NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);
INSERT INTO checkpoints_7 SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata FROM checkpoints;
DROP TABLE checkpoints;
ALTER TABLE checkpoints_7 RENAME TO checkpoints;
)sql",
    // 8: group commit (SqliteSaverOptions::group_commit): the number of the last unit of the
    // redo log `<file>-redo` that the file holds. An older build would not replay the log, so it
    // must not open the file. (A redo log is replayed after the migrations: one written by a
    // build of an older version must be replayed before any migration after 8.)
    R"sql(
CREATE TABLE IF NOT EXISTS superstep_redo (seq INTEGER NOT NULL);
INSERT INTO superstep_redo (seq) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM superstep_redo);
)sql",
};

}  // namespace superstep::internal::sqlite_schema
