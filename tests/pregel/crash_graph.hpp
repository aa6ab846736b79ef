// The graph of the crash test, shared by the test and its child process: START fans out to
// w0, w1, w2 and slow, which join into done. Every node appends its name to a marker file when
// it runs (so executions are counted on disk); slow then waits, forever unless the file
// `<dir>/release` exists, so a run can be killed in the middle of that superstep.
#pragma once

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <superstep/superstep.hpp>

namespace crash_test {

namespace sp = superstep;
using sp::json;

inline void mark(const std::string& dir, const std::string& name) {
  std::ofstream(dir + "/markers", std::ios::app) << name << "\n" << std::flush;
}

inline sp::CompiledStateGraph build(const std::string& dir, std::shared_ptr<sp::CheckpointSaver> saver) {
  sp::StateSchema s;
  s.field("done", sp::reducers::append);
  sp::StateGraph g(s);
  for (std::string n : {"w0", "w1", "w2"})
    g.add_node(n, [dir, n](const sp::State&) {
      mark(dir, n);
      return json{{"done", {n}}};
    });
  g.add_node("slow", [dir](const sp::State&) {
    mark(dir, "slow");
    while (!std::filesystem::exists(dir + "/release")) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return json{{"done", {"slow"}}};
  });
  g.add_node("finish", [dir](const sp::State&) {
    mark(dir, "finish");
    return json{{"done", {"finish"}}};
  });
  for (std::string n : {"w0", "w1", "w2", "slow"}) g.add_edge(sp::START, n);
  g.add_edge({"w0", "w1", "w2", "slow"}, "finish");
  return g.compile({.executor = std::make_shared<sp::ThreadPool>(4), .checkpointer = std::move(saver)});
}

}  // namespace crash_test
