#include "internal/sqlite_wal_vfs.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace superstep::internal::sqlite {
namespace {

constexpr int kFrameHeader = 24;                    // SQLite's WAL frame header
constexpr std::size_t kMaxBuffered = 1 << 20;       // a transaction larger than this is written in parts
// The unix VFS writes at most this much per call (it masks the count with 0x1ffff and reports a
// disk full when nothing was written), so a flush goes out in pieces of this size.
constexpr std::size_t kMaxWrite = 0x1ffff;

// A WAL file: ours first (SQLite sees it as the sqlite3_file), the default VFS's file after it.
struct WalFile {
  sqlite3_file file;            // pMethods = kWalMethods
  sqlite3_file* real;           // the default VFS's file, in the same allocation
  std::string* buffer;          // frames not yet written, from `start` on
  sqlite3_int64 start;          // the file offset of buffer[0]
  sqlite3_int64 header_at;      // where the last buffered frame header is, while its page is awaited; -1 otherwise
  bool commit;                  // that header is a commit frame's
};
constexpr std::size_t kRealOffset = (sizeof(WalFile) + 15) / 16 * 16;

WalFile* wal(sqlite3_file* f) { return reinterpret_cast<WalFile*>(f); }
sqlite3_file* real(sqlite3_file* f) { return wal(f)->real; }

int flush(WalFile* w) {
  w->header_at = -1;
  int rc = SQLITE_OK;
  for (std::size_t at = 0; at < w->buffer->size() && rc == SQLITE_OK; at += kMaxWrite) {
    const std::size_t n = std::min(kMaxWrite, w->buffer->size() - at);
    rc = w->real->pMethods->xWrite(w->real, w->buffer->data() + at, static_cast<int>(n),
                                   w->start + static_cast<sqlite3_int64>(at));
  }
  w->buffer->clear();
  return rc;
}

// Every call but a frame's write first writes what is buffered, then does what it would have.
template <class F>
auto flushed(sqlite3_file* f, F&& call) -> decltype(call(real(f))) {
  if (int rc = flush(wal(f)); rc != SQLITE_OK) return rc;
  return call(real(f));
}

int wal_close(sqlite3_file* f) {
  WalFile* w = wal(f);
  int rc = flush(w);
  int closed = w->real->pMethods->xClose(w->real);
  delete w->buffer;
  w->buffer = nullptr;
  return rc != SQLITE_OK ? rc : closed;
}

int wal_write(sqlite3_file* f, const void* data, int amount, sqlite3_int64 offset) {
  WalFile* w = wal(f);
  const sqlite3_int64 end = w->start + static_cast<sqlite3_int64>(w->buffer->size());
  const bool appends = w->buffer->empty() || offset == end;
  if (amount == kFrameHeader && appends && w->header_at < 0) {
    // A frame's header: held until its page follows. Bytes 4-7 are the database's size in
    // pages after a commit, 0 in the other frames of a transaction.
    if (w->buffer->empty()) w->start = offset;
    const auto* h = static_cast<const unsigned char*>(data);
    w->commit = (h[4] | h[5] | h[6] | h[7]) != 0;
    w->header_at = offset;
    w->buffer->append(static_cast<const char*>(data), static_cast<std::size_t>(amount));
    return SQLITE_OK;
  }
  if (w->header_at >= 0 && offset == w->header_at + kFrameHeader && offset == end) {
    // The page of the held header.
    w->buffer->append(static_cast<const char*>(data), static_cast<std::size_t>(amount));
    w->header_at = -1;
    if (w->commit || w->buffer->size() >= kMaxBuffered) return flush(w);
    return SQLITE_OK;
  }
  // Anything else (the WAL's own header, a page rewritten in place, the rest of a split page):
  // in order, after what is buffered.
  if (int rc = flush(w); rc != SQLITE_OK) return rc;
  return w->real->pMethods->xWrite(w->real, data, amount, offset);
}

const sqlite3_io_methods kWalMethods = {
    1,  // the WAL file is read and written; SQLite maps and shares memory through the database file
    wal_close,
    [](sqlite3_file* f, void* out, int amount, sqlite3_int64 offset) {
      return flushed(f, [&](sqlite3_file* r) { return r->pMethods->xRead(r, out, amount, offset); });
    },
    wal_write,
    [](sqlite3_file* f, sqlite3_int64 size) {
      return flushed(f, [&](sqlite3_file* r) { return r->pMethods->xTruncate(r, size); });
    },
    [](sqlite3_file* f, int flags) { return flushed(f, [&](sqlite3_file* r) { return r->pMethods->xSync(r, flags); }); },
    [](sqlite3_file* f, sqlite3_int64* size) {
      return flushed(f, [&](sqlite3_file* r) { return r->pMethods->xFileSize(r, size); });
    },
    [](sqlite3_file* f, int lock) { return flushed(f, [&](sqlite3_file* r) { return r->pMethods->xLock(r, lock); }); },
    [](sqlite3_file* f, int lock) { return flushed(f, [&](sqlite3_file* r) { return r->pMethods->xUnlock(r, lock); }); },
    [](sqlite3_file* f, int* out) {
      return flushed(f, [&](sqlite3_file* r) { return r->pMethods->xCheckReservedLock(r, out); });
    },
    [](sqlite3_file* f, int op, void* arg) {
      return flushed(f, [&](sqlite3_file* r) { return r->pMethods->xFileControl(r, op, arg); });
    },
    [](sqlite3_file* f) { return real(f)->pMethods->xSectorSize(real(f)); },
    [](sqlite3_file* f) { return real(f)->pMethods->xDeviceCharacteristics(real(f)); },
    nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};

sqlite3_vfs* base_of(sqlite3_vfs* vfs) { return static_cast<sqlite3_vfs*>(vfs->pAppData); }

int vfs_open(sqlite3_vfs* vfs, sqlite3_filename name, sqlite3_file* file, int flags, int* out_flags) {
  sqlite3_vfs* base = base_of(vfs);
  if (!(flags & SQLITE_OPEN_WAL)) return base->xOpen(base, name, file, flags, out_flags);
  WalFile* w = wal(file);
  w->file.pMethods = nullptr;
  sqlite3_file* r = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + kRealOffset);
  r->pMethods = nullptr;
  int rc = base->xOpen(base, name, r, flags, out_flags);
  if (rc != SQLITE_OK) {
    if (r->pMethods) r->pMethods->xClose(r);
    return rc;
  }
  w->real = r;
  w->buffer = new (std::nothrow) std::string;
  if (!w->buffer) {
    r->pMethods->xClose(r);
    return SQLITE_NOMEM;
  }
  w->start = 0;
  w->header_at = -1;
  w->commit = false;
  w->file.pMethods = &kWalMethods;
  return SQLITE_OK;
}

sqlite3_vfs make_vfs(sqlite3_vfs* base, const char* name) {
  sqlite3_vfs v{};
  v.iVersion = base->iVersion >= 2 && base->xCurrentTimeInt64 ? 2 : 1;
  v.szOsFile = static_cast<int>(kRealOffset) + base->szOsFile;
  v.mxPathname = base->mxPathname;
  v.zName = name;
  v.pAppData = base;
  v.xOpen = vfs_open;
  v.xDelete = [](sqlite3_vfs* s, const char* n, int sync) { return base_of(s)->xDelete(base_of(s), n, sync); };
  v.xAccess = [](sqlite3_vfs* s, const char* n, int f, int* out) { return base_of(s)->xAccess(base_of(s), n, f, out); };
  v.xFullPathname = [](sqlite3_vfs* s, const char* n, int size, char* out) {
    return base_of(s)->xFullPathname(base_of(s), n, size, out);
  };
  v.xDlOpen = [](sqlite3_vfs* s, const char* n) { return base_of(s)->xDlOpen(base_of(s), n); };
  v.xDlError = [](sqlite3_vfs* s, int size, char* out) { base_of(s)->xDlError(base_of(s), size, out); };
  v.xDlSym = [](sqlite3_vfs* s, void* h, const char* sym) { return base_of(s)->xDlSym(base_of(s), h, sym); };
  v.xDlClose = [](sqlite3_vfs* s, void* h) { base_of(s)->xDlClose(base_of(s), h); };
  v.xRandomness = [](sqlite3_vfs* s, int size, char* out) { return base_of(s)->xRandomness(base_of(s), size, out); };
  v.xSleep = [](sqlite3_vfs* s, int us) { return base_of(s)->xSleep(base_of(s), us); };
  v.xCurrentTime = [](sqlite3_vfs* s, double* out) { return base_of(s)->xCurrentTime(base_of(s), out); };
  v.xGetLastError = [](sqlite3_vfs* s, int size, char* out) { return base_of(s)->xGetLastError(base_of(s), size, out); };
  if (v.iVersion >= 2)
    v.xCurrentTimeInt64 = [](sqlite3_vfs* s, sqlite3_int64* out) {
      return base_of(s)->xCurrentTimeInt64(base_of(s), out);
    };
  return v;
}

}  // namespace

bool register_wal_vfs(sqlite3_vfs* base, const char* name) {
  if (!base || !name) return false;
  auto* vfs = new sqlite3_vfs(make_vfs(base, name));  // registered for the process's life
  if (sqlite3_vfs_register(vfs, 0) == SQLITE_OK) return true;
  delete vfs;
  return false;
}

const char* wal_vfs_name() {
  static const char* const name = register_wal_vfs(sqlite3_vfs_find(nullptr), "superstep-wal") ? "superstep-wal" : nullptr;
  return name;
}

}  // namespace superstep::internal::sqlite
