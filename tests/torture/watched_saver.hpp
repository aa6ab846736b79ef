// WatchedSaver: forwards every call to a real saver and, while a write (put, put_with_deltas,
// put_writes, batch) is under way, keeps a counter in memory shared with the torture driver
// raised, so the driver knows whether its SIGKILL landed inside a saver's write.
#pragma once

#include <atomic>
#include <memory>

#include <superstep/checkpoint/saver.hpp>

namespace torture {

namespace sp = superstep;
using sp::json;

class WatchedSaver final : public sp::CheckpointSaver {
 public:
  /// `writing` lives in a MAP_SHARED mapping the driver also maps.
  WatchedSaver(std::shared_ptr<sp::CheckpointSaver> inner, std::atomic<int>* writing)
      : inner_(std::move(inner)), writing_(writing) {}

  sp::CheckpointConfig put(const sp::CheckpointConfig& config, const sp::Checkpoint& checkpoint, const json& metadata,
                           const json& new_versions) override {
    Writing w(writing_);
    return inner_->put(config, checkpoint, metadata, new_versions);
  }
  bool stores_deltas() const override { return inner_->stores_deltas(); }
  sp::CheckpointConfig put_with_deltas(const sp::CheckpointConfig& config, const sp::Checkpoint& checkpoint,
                                       const json& metadata, const json& new_versions,
                                       const sp::PutDeltas& deltas) override {
    Writing w(writing_);
    return inner_->put_with_deltas(config, checkpoint, metadata, new_versions, deltas);
  }
  std::unique_ptr<sp::ThreadClaim> claim_thread(const std::string& thread_id, const std::string& ns) override {
    return inner_->claim_thread(thread_id, ns);
  }
  void batch(const std::function<void()>& writes) override {
    Writing w(writing_);
    inner_->batch(writes);
  }
  void put_writes(const sp::CheckpointConfig& config, const std::vector<std::pair<std::string, json>>& writes,
                  const std::string& task_id, const std::string& task_path) override {
    Writing w(writing_);
    inner_->put_writes(config, writes, task_id, task_path);
  }
  std::optional<sp::CheckpointTuple> get_tuple(const sp::CheckpointConfig& config) override {
    return inner_->get_tuple(config);
  }
  std::vector<sp::CheckpointTuple> list(const sp::CheckpointQuery& query) override { return inner_->list(query); }
  sp::CheckpointConfig update_metadata(const sp::CheckpointConfig& config, const json& metadata) override {
    return inner_->update_metadata(config, metadata);
  }
  std::size_t delete_run_checkpoints(const std::string& thread_id, const std::string& run_id) override {
    return inner_->delete_run_checkpoints(thread_id, run_id);
  }
  void delete_thread(const std::string& thread_id) override { inner_->delete_thread(thread_id); }
  void copy_thread(const std::string& from, const std::string& to) override { inner_->copy_thread(from, to); }
  void prune(const std::vector<std::string>& thread_ids, bool keep_latest) override {
    inner_->prune(thread_ids, keep_latest);
  }

 private:
  struct Writing {
    explicit Writing(std::atomic<int>* c) : c_(c) { c_->fetch_add(1); }
    ~Writing() { c_->fetch_sub(1); }
    Writing(const Writing&) = delete;
    Writing& operator=(const Writing&) = delete;
    std::atomic<int>* c_;
  };
  std::shared_ptr<sp::CheckpointSaver> inner_;
  std::atomic<int>* writing_;
};

}  // namespace torture
