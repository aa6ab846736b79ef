// Human in the loop and time travel: a node pauses with interrupt(), the run is resumed with the
// human's answer, and a past checkpoint is replayed as a fork. Checkpoints go to a fresh SQLite
// file, or to PostgreSQL with `09_human_in_the_loop --postgres DSN`
// (e.g. "postgresql://postgres@127.0.0.1:5432/postgres").
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <superstep/checkpoint/postgres_saver.hpp>
#include <superstep/checkpoint/sqlite_saver.hpp>
#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

int main(int argc, char** argv) {
  std::shared_ptr<sp::CheckpointSaver> saver;
  if (argc == 3 && std::strcmp(argv[1], "--postgres") == 0) {
    saver = std::make_shared<sp::PostgresSaver>(argv[2]);
  } else {
    std::string db = (std::filesystem::temp_directory_path() / "superstep_example_09.db").string();
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(db + ext);
    saver = std::make_shared<sp::SqliteSaver>(db);
  }

  sp::StateSchema schema;
  schema.field("request").field("decision").field("log", sp::reducers::append);
  sp::StateGraph g(schema);
  g.add_node("triage", [](const sp::State& s) { return json{{"log", {"triaged " + s.get<std::string>("request")}}}; });
  g.add_node("approve", [](const sp::State& s, sp::Runtime& rt) -> sp::NodeResult {
    // Pauses the run; on resume the node runs again and interrupt() returns the answer.
    json answer = sp::interrupt(rt, json{{"question", "approve " + s.get<std::string>("request") + "?"}});
    return json{{"decision", answer}, {"log", {"decided " + answer.get<std::string>()}}};
  });
  g.add_node("act", [](const sp::State& s) { return json{{"log", {"acted on " + s.get<std::string>("decision")}}}; });
  g.add_edge(sp::START, "triage").add_edge("triage", "approve").add_edge("approve", "act");
  auto app = g.compile({.checkpointer = saver});
  // A thread of its own, as a shared PostgreSQL database may hold earlier runs.
  sp::RunConfig cfg{.thread_id = "ticket-" + std::to_string(::getpid())};

  json out = app.invoke(json{{"request", "refund"}}, cfg);
  std::cout << "paused: " << out["__interrupt__"].dump() << "\n";
  std::cout << "next: " << app.get_state(cfg).next.front() << "\n";

  out = app.invoke(sp::Command{.resume = "yes"}, cfg);
  std::cout << "resumed: " << out["log"].dump() << "\n";
  if (out["log"] != json({"triaged refund", "decided yes", "acted on yes"})) return 1;

  // Time travel: replay from the checkpoint where approve was pending, answering differently.
  for (const sp::StateSnapshot& s : app.get_state_history(cfg)) {
    if (s.next != std::vector<std::string>{"approve"}) continue;
    sp::RunConfig past = cfg;
    past.checkpoint_id = s.config.checkpoint_id;
    json again = app.invoke(nullptr, past);  // a fork of that checkpoint: approve asks again
    again = app.invoke(sp::Command{.resume = "no"}, cfg);
    std::cout << "fork: " << again["log"].dump() << "\n";
    if (again["log"] != json({"triaged refund", "decided no", "acted on no"})) return 1;
    break;
  }
  std::cout << "checkpoints on the thread: " << app.get_state_history(cfg).size() << "\n";
  return 0;
}
