// The crash test's child process: `superstep-crash-child DIR start|resume` runs the crash
// graph on DIR/superstep.db, thread "crash" (durability sync), and prints the final state.
#include <iostream>

#include <superstep/checkpoint/sqlite_saver.hpp>

#include "crash_graph.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: superstep-crash-child DIR start|resume\n";
    return 2;
  }
  std::string dir = argv[1], mode = argv[2];
  auto app = crash_test::build(dir, std::make_shared<superstep::SqliteSaver>(dir + "/superstep.db"));
  superstep::RunConfig cfg;
  cfg.thread_id = "crash";
  cfg.durability = superstep::Durability::sync;
  superstep::json out = mode == "start" ? app.invoke(superstep::json::object(), cfg) : app.invoke(nullptr, cfg);
  std::cout << out.dump() << std::endl;
  return 0;
}
