// The VFS superstep opens SQLite files with: the system's default VFS, except that a WAL file's
// frames are written with one system call per transaction instead of two per page.
//
// SQLite appends each page of a commit to the WAL as a 24-byte frame header and then the page,
// two writes per page (about 70 `pwrite` calls for one server run). This VFS keeps the frames
// of a transaction in a buffer and writes them together when the transaction's commit frame
// (the one whose header carries the database size) has its page, before SQLite publishes the
// commit to readers. Any other call on the WAL file (a read, a sync, a truncate, its size, a
// lock, a write elsewhere, closing) writes what is buffered first, so SQLite and every other
// connection see the file exactly as without the buffer; a process that dies mid-transaction
// loses frames that were not committed, as it would have anyway. Internal: superstep_sqlite only.
#pragma once

#include <sqlite3.h>

namespace superstep::internal::sqlite {

/// The name to open files with: this VFS over the system's default one, registered on first use
/// (not made the default). nullptr if it could not be registered (then SQLite's default serves).
const char* wal_vfs_name();

/// Registers this VFS over `base` as `name` (which must outlive the process's use of it); tests
/// put it over a VFS that counts. False when SQLite refuses.
bool register_wal_vfs(sqlite3_vfs* base, const char* name);

}  // namespace superstep::internal::sqlite
