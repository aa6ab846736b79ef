// The reference workloads of ../shared/bench/README.md. Each builds its graph, runs it and
// checks the result; main.cpp times them and prints the JSON line.
#pragma once

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>

#include <superstep/superstep.hpp>

namespace bench {

/// Milliseconds since `t0`.
inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
/// Throws when a workload's result is wrong (superstep-bench then exits 1).
inline void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("result check failed: " + what);
}

/// Keeps the compiler from dropping work whose result is `v` (direct baselines).
template <class T>
inline void keep(T& v) {
  asm volatile("" : : "g"(&v) : "memory");
}

struct Workload {
  superstep::CompiledStateGraph app;
  double build_ms = 0;
  double compile_ms = 0;
  /// One timed repetition; returns the final state of its (last) invoke.
  std::function<superstep::json()> run;
  /// Throws std::runtime_error describing the mismatch when the result is wrong.
  std::function<void(const superstep::json&)> check;
  /// The same node bodies run in a plain loop on one JSON state, updates applied by hand with
  /// moves (no engine): what any implementation must spend. Empty when not meaningful.
  std::function<void()> direct;
  /// Fields added to the JSON line (after the last repetition).
  std::function<superstep::json()> extra;
  long nodes_run = 0;   // per repetition
  long supersteps = 0;  // per repetition
};

/// react_loop's agent node (one tool call "echo" {i: k}) and its result check, shared by the
/// hand-written and the --prebuilt (ToolNode) forms.
superstep::json react_loop_agent(const superstep::State& st);
void check_react_loop(const superstep::json& out, int n);

Workload make_sequential(int n);
Workload make_fanout(int n);
Workload make_react_loop(int n);
Workload make_wide_state(int n);
Workload make_parallel_branches(int k);
/// `sequential` with a checkpointer: saver "memory", "sqlite" (a fresh file) or "postgres"
/// (the server SUPERSTEP_PG_DSN names).
Workload make_checkpointed(int n, const std::string& saver, superstep::Durability durability);
/// A chat of `turns` invokes on one SQLite thread; its JSON line reports stored bytes with
/// delta storage and with whole values.
Workload make_conversation_storage(int turns);

/// react_loop on the prebuilt path: sp::ToolNode with a real Tool, sp::tools_condition.
Workload make_react_loop_prebuilt(int n);
/// N create_react_agent runs at once (ainvoke) against the test server answering after 20 ms.
Workload make_concurrent_agents(int n, int workers);

// Typed state (--typed): the result is checked inside run(), on the struct.
Workload make_sequential_typed(int n);
Workload make_fanout_typed(int n);
Workload make_react_loop_typed(int n);
Workload make_wide_state_typed(int n);

/// concurrent_agents' traffic (N connections, two rounds, replies 20 ms after each request) over
/// raw loopback TCP with no HTTP, JSON or engine: the floor under that workload on this machine.
/// Prints its JSON line; returns the exit code.
int run_tcp_floor(int n, int reps);

}  // namespace bench
