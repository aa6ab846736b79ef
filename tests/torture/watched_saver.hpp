// WatchedSaver: forwards every call to a real saver and, while a write (put, put_with_deltas,
// put_writes, batch) is under way, keeps a counter in memory shared with the torture driver
// raised, so the driver knows whether its SIGKILL landed inside a saver's write.
#pragma once

#include <atomic>
#include <memory>

#include <superstep/checkpoint/forwarding_saver.hpp>

namespace torture {

namespace sp = superstep;
using sp::json;

class WatchedSaver final : public sp::ForwardingSaver {
 public:
  /// `writing` lives in a MAP_SHARED mapping the driver also maps.
  WatchedSaver(std::shared_ptr<sp::CheckpointSaver> inner, std::atomic<int>* writing)
      : ForwardingSaver(std::move(inner)), writing_(writing) {}

  sp::CheckpointConfig put(const sp::CheckpointConfig& config, const sp::Checkpoint& checkpoint, const json& metadata,
                           const json& new_versions) override {
    Writing w(writing_);
    return ForwardingSaver::put(config, checkpoint, metadata, new_versions);
  }
  sp::CheckpointConfig put_with_deltas(const sp::CheckpointConfig& config, const sp::Checkpoint& checkpoint,
                                       const json& metadata, const json& new_versions,
                                       const sp::PutDeltas& deltas) override {
    Writing w(writing_);
    return ForwardingSaver::put_with_deltas(config, checkpoint, metadata, new_versions, deltas);
  }
  void batch(const std::function<void()>& writes) override {
    Writing w(writing_);
    ForwardingSaver::batch(writes);
  }
  void put_writes(const sp::CheckpointConfig& config, const std::vector<std::pair<std::string, json>>& writes,
                  const std::string& task_id, const std::string& task_path) override {
    Writing w(writing_);
    ForwardingSaver::put_writes(config, writes, task_id, task_path);
  }

 private:
  struct Writing {
    explicit Writing(std::atomic<int>* c) : c_(c) { c_->fetch_add(1); }
    ~Writing() { c_->fetch_sub(1); }
    Writing(const Writing&) = delete;
    Writing& operator=(const Writing&) = delete;
    std::atomic<int>* c_;
  };
  std::atomic<int>* writing_;
};

}  // namespace torture
