#include "server/io_threads.hpp"

#include <boost/asio/post.hpp>

namespace superstep::server {

namespace {

thread_local void* tl_slot = nullptr;  // the IoThreads slot of the thread running io()

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

constexpr std::int64_t kStallNs = std::chrono::duration_cast<std::chrono::nanoseconds>(IoThreads::kStall).count();

}  // namespace

void IoThreads::start(std::size_t n, std::size_t max_added) {
  std::lock_guard lock(mutex_);
  if (started_) return;
  started_ = true;
  max_added_ = max_added;
  for (std::size_t i = 0; i < std::max<std::size_t>(1, n); ++i) {
    Slot& slot = slots_.emplace_back();
    slot.alive = true;
    slot.thread = std::thread([this, &slot] {
      tl_slot = &slot;
      io_.run();
      std::lock_guard l(mutex_);
      slot.alive = false;
    });
  }
  watchdog_ = std::thread([this] { watch(); });
}

void IoThreads::stop() {
  {
    std::lock_guard lock(mutex_);
    if (!started_ || stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  io_.stop();
  if (watchdog_.joinable()) watchdog_.join();
  // The watchdog adds no thread once stopping_ is set: slots_ no longer changes.
  for (Slot& s : slots_)
    if (s.thread.joinable()) s.thread.join();
}

void IoThreads::post_run(std::function<void()> job) {
  boost::asio::post(io_, [job = std::move(job)] {
    auto* slot = static_cast<Slot*>(tl_slot);  // null on a thread of the caller's running io()
    struct Mark {
      Slot* s;
      explicit Mark(Slot* slot) : s(slot) {
        if (s) s->busy_since.store(now_ns(), std::memory_order_relaxed);
      }
      ~Mark() {
        if (s) s->busy_since.store(0, std::memory_order_relaxed);
      }
    } mark(slot);
    job();
  });
}

std::size_t IoThreads::size() const {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (const Slot& s : slots_) n += s.alive;
  return n;
}

std::size_t IoThreads::stuck_locked(std::int64_t now) const {
  std::size_t n = 0;
  for (const Slot& s : slots_) {
    if (!s.alive) continue;
    std::int64_t since = s.busy_since.load(std::memory_order_relaxed);
    n += since != 0 && now - since >= kStallNs;
  }
  return n;
}

void IoThreads::watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, kStall);
    if (stopping_) break;
    std::size_t alive = 0, added = 0;
    for (Slot& s : slots_) {
      if (!s.alive && s.thread.joinable()) s.thread.join();  // a thread that left (it holds no lock now)
      alive += s.alive;
      added += s.alive && s.added;
    }
    if (alive == 0 || added >= max_added_ || stuck_locked(now_ns()) < alive) continue;
    Slot* slot = nullptr;
    for (Slot& s : slots_)
      if (!s.alive && !s.thread.joinable()) slot = &s;
    if (!slot) slot = &slots_.emplace_back();
    slot->alive = true;
    slot->added = true;
    slot->busy_since.store(0, std::memory_order_relaxed);
    ++added_total_;
    slot->thread = std::thread([this, slot] { run_added(*slot); });
  }
}

void IoThreads::run_added(Slot& slot) {
  tl_slot = &slot;
  for (;;) {
    io_.run_for(std::chrono::milliseconds(200));
    std::lock_guard lock(mutex_);
    std::size_t alive = 0;
    for (const Slot& s : slots_) alive += s.alive;
    // Leaves once another thread is free (this one is: it is here), or the server stops.
    if (stopping_ || io_.stopped() || alive - stuck_locked(now_ns()) >= 2) {
      slot.alive = false;
      return;
    }
  }
}

}  // namespace superstep::server
