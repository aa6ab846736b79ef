// ForwardingSaver: a CheckpointSaver that hands every call to another saver. Derive from it to
// watch or change a few calls of a real saver (count, log, time, refuse) and forward the rest:
// the server's checkpointer (no thread claims) and the tests' recording savers are built so.
#pragma once

#include <memory>
#include <stdexcept>
#include <utility>

#include "superstep/checkpoint/saver.hpp"

namespace superstep {

class ForwardingSaver : public CheckpointSaver {
 public:
  explicit ForwardingSaver(std::shared_ptr<CheckpointSaver> inner) : inner_(std::move(inner)) {
    if (!inner_) throw std::invalid_argument("ForwardingSaver: no saver to forward to");
  }

  CheckpointConfig put(const CheckpointConfig& config, const Checkpoint& checkpoint, const json& metadata,
                       const json& new_versions) override {
    return inner_->put(config, checkpoint, metadata, new_versions);
  }
  bool stores_deltas() const override { return inner_->stores_deltas(); }
  CheckpointConfig put_with_deltas(const CheckpointConfig& config, const Checkpoint& checkpoint, const json& metadata,
                                   const json& new_versions, const PutDeltas& deltas) override {
    return inner_->put_with_deltas(config, checkpoint, metadata, new_versions, deltas);
  }
  std::unique_ptr<ThreadClaim> claim_thread(const std::string& thread_id, const std::string& checkpoint_ns) override {
    return inner_->claim_thread(thread_id, checkpoint_ns);
  }
  void batch(const std::function<void()>& writes) override { inner_->batch(writes); }
  void put_writes(const CheckpointConfig& config, const std::vector<std::pair<std::string, json>>& writes,
                  const std::string& task_id, const std::string& task_path = "") override {
    inner_->put_writes(config, writes, task_id, task_path);
  }
  std::optional<CheckpointTuple> get_tuple(const CheckpointConfig& config) override { return inner_->get_tuple(config); }
  std::vector<CheckpointTuple> list(const CheckpointQuery& query) override { return inner_->list(query); }
  CheckpointConfig update_metadata(const CheckpointConfig& config, const json& metadata) override {
    return inner_->update_metadata(config, metadata);
  }
  std::size_t delete_run_checkpoints(const std::string& thread_id, const std::string& run_id) override {
    return inner_->delete_run_checkpoints(thread_id, run_id);
  }
  void delete_thread(const std::string& thread_id) override { inner_->delete_thread(thread_id); }
  void copy_thread(const std::string& from, const std::string& to) override { inner_->copy_thread(from, to); }
  void prune(const std::vector<std::string>& thread_ids, bool keep_latest = true) override {
    inner_->prune(thread_ids, keep_latest);
  }

  /// The saver every call goes to.
  const std::shared_ptr<CheckpointSaver>& inner() const noexcept { return inner_; }

 private:
  std::shared_ptr<CheckpointSaver> inner_;
};

}  // namespace superstep
