// superstep: run and draw graphs from the command line.
//   superstep list
//   superstep run NAME [--input JSON] [--stream-mode updates,custom] [--recursion-limit N]
//   superstep draw NAME [--format mermaid|dot]
#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>

#include "builtin_graphs.hpp"

namespace sp = superstep;
using sp::json;

namespace {

const cli::BuiltinGraph& require_graph(const std::string& name) {
  if (const auto* g = cli::find_builtin(name)) return *g;
  std::string known;
  for (const auto& g : cli::builtin_graphs()) known += (known.empty() ? "" : ", ") + g.name;
  throw std::runtime_error("unknown graph '" + name + "' (built-in graphs: " + known + ")");
}

std::vector<sp::StreamMode> parse_modes(const std::string& list) {
  std::vector<sp::StreamMode> modes;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    auto m = sp::parse_stream_mode(item);
    if (!m) throw std::runtime_error("unknown stream mode '" + item + "' (values, updates, custom, debug, tasks)");
    modes.push_back(*m);
  }
  return modes;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"superstep: the LangGraph programming model in C++"};
  app.require_subcommand(1);

  auto* list = app.add_subcommand("list", "List the built-in graphs");

  auto* run = app.add_subcommand("run", "Run a built-in graph, printing each stream part as a JSON line");
  std::string run_name, input_text, modes_text = "updates,custom";
  int recursion_limit = 25;
  run->add_option("name", run_name, "Graph name (see `superstep list`)")->required();
  run->add_option("--input", input_text, "Input state as JSON (default: the graph's example input)");
  run->add_option("--stream-mode", modes_text, "Comma-separated stream modes")->capture_default_str();
  run->add_option("--recursion-limit", recursion_limit, "Maximum supersteps")->capture_default_str();

  auto* draw = app.add_subcommand("draw", "Print a built-in graph as Mermaid or Graphviz dot");
  std::string draw_name, format = "mermaid";
  draw->add_option("name", draw_name, "Graph name")->required();
  draw->add_option("--format", format, "mermaid or dot")->check(CLI::IsMember({"mermaid", "dot"}))->capture_default_str();

  CLI11_PARSE(app, argc, argv);
  try {
    if (*list) {
      for (const auto& g : cli::builtin_graphs()) std::cout << g.name << "\t" << g.description << "\n";
      return 0;
    }
    if (*draw) {
      auto graph = require_graph(draw_name).build().get_graph();
      std::cout << (format == "dot" ? graph.draw_dot() : graph.draw_mermaid());
      return 0;
    }
    const auto& spec = require_graph(run_name);
    json input = spec.default_input;
    if (!input_text.empty()) {
      try {
        input = json::parse(input_text);
      } catch (const json::parse_error& e) {
        throw std::runtime_error(std::string("--input is not valid JSON: ") + e.what());
      }
    }
    auto graph = spec.build();
    auto stream = graph.stream(input, {.recursion_limit = recursion_limit}, parse_modes(modes_text));
    for (const sp::StreamPart& part : stream)
      std::cout << json::array({std::string(sp::to_string(part.mode)), part.data}).dump() << std::endl;
    std::cout << json::array({"final", stream.result()}).dump() << std::endl;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "superstep: " << e.what() << "\n";
    return 1;
  }
}
