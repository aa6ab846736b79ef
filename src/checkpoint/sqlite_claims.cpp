// SqliteSaver::claim_thread: a row in thread_claims per running thread, so two processes on one
// file do not run one thread at once (docs/persistence.md); a claim left by a process that is
// gone is taken over.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <set>

#include "checkpoint/sqlite_saver_impl.hpp"
#include "internal/ids.hpp"

namespace superstep {

using internal::sqlite::Stmt;

namespace {

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

/// Whether process `pid` of this host still runs.
bool process_alive(int pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

/// The owners of the claims this process holds, any saver: a row of this process whose owner is
/// not here was left by a release that failed (the store refused the DELETE: disk full, locked,
/// read-only) and is taken over, instead of blocking the thread until the process exits.
struct LiveClaims {
  std::mutex mutex;  // guards owners
  std::set<std::string> owners;
  static LiveClaims& get() {
    static LiveClaims live;
    return live;
  }
  bool holds(const std::string& owner) {
    std::lock_guard lock(mutex);
    return owners.count(owner) > 0;
  }
  void add(const std::string& owner) {
    std::lock_guard lock(mutex);
    owners.insert(owner);
  }
  void remove(const std::string& owner) {
    std::lock_guard lock(mutex);
    owners.erase(owner);
  }
};


}  // namespace

std::unique_ptr<ThreadClaim> SqliteSaver::claim_thread(const std::string& thread_id, const std::string& checkpoint_ns) {
  static const std::string host = host_name();
  std::string owner = internal::uuid4();
  bool claimed = false;
  {
    std::lock_guard lock(impl_->mutex);
    impl_->write([&] {
      Stmt held(impl_->db, impl_->stmts,
                "SELECT host, pid, owner FROM thread_claims WHERE thread_id = ?1 AND checkpoint_ns = ?2");
      held.bind(1, thread_id).bind(2, checkpoint_ns);
      if (held.step()) {
        const bool mine = held.text(0) == host && held.integer(1) == static_cast<int>(::getpid());
        if (mine ? LiveClaims::get().holds(held.text(2)) : held.text(0) != host || process_alive(held.integer(1))) return;
      }
      Stmt(impl_->db, impl_->stmts,
           "INSERT OR REPLACE INTO thread_claims (thread_id, checkpoint_ns, owner, host, pid) VALUES (?1, ?2, ?3, ?4, ?5)")
          .bind(1, thread_id)
          .bind(2, checkpoint_ns)
          .bind(3, owner)
          .bind(4, host)
          .bind(5, static_cast<int>(::getpid()))
          .run();
      claimed = true;
    });
  }
  if (!claimed) return nullptr;
  LiveClaims::get().add(owner);
  Impl* impl = impl_.get();
  return std::make_unique<internal::ReleasingClaim>([impl, thread_id, checkpoint_ns, owner] {
    LiveClaims::get().remove(owner);
    std::lock_guard lock(impl->mutex);
    impl->write([&] {
      Stmt(impl->db, impl->stmts, "DELETE FROM thread_claims WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND owner = ?3")
          .bind(1, thread_id)
          .bind(2, checkpoint_ns)
          .bind(3, owner)
          .run();
    });
  });
}

}  // namespace superstep
