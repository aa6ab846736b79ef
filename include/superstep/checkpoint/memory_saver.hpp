// InMemorySaver: checkpoints in this process's memory (LangGraph's MemorySaver). For tests and
// short-lived runs; everything is lost when it is destroyed.
#pragma once

#include <map>
#include <memory>
#include <mutex>

#include "superstep/checkpoint/saver.hpp"

namespace superstep {

class InMemorySaver final : public DeltaCheckpointSaver {
 public:
  InMemorySaver();
  ~InMemorySaver() override;
  bool stores_deltas() const override { return true; }
  CheckpointConfig put_with_deltas(const CheckpointConfig& config, const Checkpoint& checkpoint, const json& metadata,
                                   const json& new_versions, const PutDeltas& deltas) override;
  void put_writes(const CheckpointConfig& config, const std::vector<std::pair<std::string, json>>& writes,
                  const std::string& task_id, const std::string& task_path = "") override;
  std::optional<CheckpointTuple> get_tuple(const CheckpointConfig& config) override;
  std::vector<CheckpointTuple> list(const CheckpointQuery& query) override;
  CheckpointConfig update_metadata(const CheckpointConfig& config, const json& metadata) override;
  std::size_t delete_run_checkpoints(const std::string& thread_id, const std::string& run_id) override;
  void delete_thread(const std::string& thread_id) override;
  void copy_thread(const std::string& from, const std::string& to) override;
  void prune(const std::vector<std::string>& thread_ids, bool keep_latest = true) override;

 private:
  struct Data;
  std::mutex mutex_;
  std::unique_ptr<Data> data_;
};

}  // namespace superstep
