// The other process of the SQLite fault tests. `superstep-fault-child hold-lock DB`: opens DB,
// takes its write lock (BEGIN EXCLUSIVE), says "locked" on stdout, and holds the lock until its
// stdin closes (the test ends the fault by closing it; the lock also ends if the test dies).
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc != 3 || std::strcmp(argv[1], "hold-lock") != 0) {
    std::fprintf(stderr, "usage: superstep-fault-child hold-lock DB\n");
    return 2;
  }
  sqlite3* db = nullptr;
  if (sqlite3_open(argv[2], &db) != SQLITE_OK || sqlite3_exec(db, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) != SQLITE_OK) {
    std::fprintf(stderr, "hold-lock: %s\n", db ? sqlite3_errmsg(db) : "out of memory");
    return 1;
  }
  std::printf("locked\n");
  std::fflush(stdout);
  char buf[64];
  while (read(0, buf, sizeof buf) > 0) {
  }
  sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  return 0;
}
