// ServerSaver: the server's checkpointer, forwarding everything to the database's saver except
// claim_thread. A saver's claim keeps two processes from running one thread at once (SQLite: a
// row written and deleted per run, two write transactions); the server already runs one run per
// thread at a time and owns its database (docs/server.md), so its runs claim nothing.
#pragma once

#include <memory>

#include "superstep/checkpoint/saver.hpp"

namespace superstep::server {

class ServerSaver final : public CheckpointSaver {
 public:
  explicit ServerSaver(std::shared_ptr<CheckpointSaver> inner) : inner_(std::move(inner)) {}

  CheckpointConfig put(const CheckpointConfig& config, const Checkpoint& checkpoint, const json& metadata,
                       const json& new_versions) override {
    return inner_->put(config, checkpoint, metadata, new_versions);
  }
  bool stores_deltas() const override { return inner_->stores_deltas(); }
  CheckpointConfig put_with_deltas(const CheckpointConfig& config, const Checkpoint& checkpoint, const json& metadata,
                                   const json& new_versions, const PutDeltas& deltas) override {
    return inner_->put_with_deltas(config, checkpoint, metadata, new_versions, deltas);
  }
  std::unique_ptr<ThreadClaim> claim_thread(const std::string&, const std::string&) override {
    return std::make_unique<ThreadClaim>();
  }
  void batch(const std::function<void()>& writes) override { inner_->batch(writes); }
  void put_writes(const CheckpointConfig& config, const std::vector<std::pair<std::string, json>>& writes,
                  const std::string& task_id, const std::string& task_path) override {
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
  void prune(const std::vector<std::string>& thread_ids, bool keep_latest) override {
    inner_->prune(thread_ids, keep_latest);
  }

 private:
  std::shared_ptr<CheckpointSaver> inner_;
};

}  // namespace superstep::server
