// A ReAct agent with real tools: a calculator, the current time, and a search through the text
// files of a folder. The model is any OpenAI-compatible endpoint:
//
//   OPENAI_API_KEY=sk-... SUPERSTEP_MODEL=gpt-4o-mini ./11_react_agent "what is 17 * 23 + 4?"
//   OPENAI_BASE_URL=http://localhost:11434/v1 SUPERSTEP_MODEL=llama3.1 ./11_react_agent --folder docs "..."
//
// Tokens are printed as the model streams them (stream mode "messages"), tool calls and their
// results as the tools node returns them.
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <superstep/llm/openai_chat_model.hpp>
#include <superstep/prebuilt/react_agent.hpp>
#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

namespace {

// --- calculator: + - * / ^ and parentheses over doubles (recursive descent) ---
struct Calc {
  std::string_view s;
  std::size_t i = 0;
  void skip() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  [[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error(what + " at position " + std::to_string(i) + " of '" + std::string(s) + "'");
  }
  double number() {
    skip();
    if (i < s.size() && s[i] == '(') {
      ++i;
      double v = sum();
      skip();
      if (i >= s.size() || s[i] != ')') fail("missing ')'");
      ++i;
      return v;
    }
    if (i < s.size() && s[i] == '-') {
      ++i;
      return -number();
    }
    std::size_t used = 0;
    double v;
    try {
      v = std::stod(std::string(s.substr(i)), &used);
    } catch (...) {
      fail("expected a number");
    }
    i += used;
    return v;
  }
  double power() {
    double base = number();
    skip();
    if (i < s.size() && s[i] == '^') {
      ++i;
      return std::pow(base, power());
    }
    return base;
  }
  double product() {
    double v = power();
    for (skip(); i < s.size() && (s[i] == '*' || s[i] == '/'); skip()) {
      char op = s[i++];
      double r = power();
      if (op == '/' && r == 0) fail("division by zero");
      v = op == '*' ? v * r : v / r;
    }
    return v;
  }
  double sum() {
    double v = product();
    for (skip(); i < s.size() && (s[i] == '+' || s[i] == '-'); skip()) {
      char op = s[i++];
      double r = product();
      v = op == '+' ? v + r : v - r;
    }
    return v;
  }
  double all() {
    double v = sum();
    skip();
    if (i != s.size()) fail("unexpected '" + std::string(1, s[i]) + "'");
    return v;
  }
};

sp::Tool calculator() {
  return sp::Tool("calculator", "Evaluates an arithmetic expression with + - * / ^ and parentheses.",
                  {{"type", "object"},
                   {"properties", {{"expression", {{"type", "string"}, {"description", "e.g. (17 * 23) + 4"}}}}},
                   {"required", {"expression"}}},
                  [](const json& args) -> json {
                    double v = Calc{args["expression"].get<std::string>()}.all();
                    std::ostringstream out;
                    out.precision(12);
                    out << v;
                    return out.str();
                  });
}

sp::Tool current_time() {
  return sp::Tool("current_time", "The current date and time (UTC, ISO 8601).", {{"type", "object"}, {"properties", json::object()}},
                  [](const json&) -> json {
                    std::time_t t = std::time(nullptr);
                    char buf[32];
                    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
                    return std::string(buf);
                  });
}

sp::Tool file_search(std::filesystem::path folder) {
  return sp::Tool("search_files", "Finds lines containing a word or phrase in the text files of the knowledge folder.",
                  {{"type", "object"},
                   {"properties", {{"query", {{"type", "string"}}}, {"max_results", {{"type", "integer"}}}}},
                   {"required", {"query"}}},
                  [folder](const json& args) -> json {
                    std::string q = args["query"].get<std::string>();
                    std::transform(q.begin(), q.end(), q.begin(), ::tolower);
                    int max = args.value("max_results", 5);
                    json hits = json::array();
                    std::vector<std::filesystem::path> files;
                    for (const auto& e : std::filesystem::recursive_directory_iterator(folder))
                      if (e.is_regular_file()) files.push_back(e.path());
                    std::sort(files.begin(), files.end());
                    for (const auto& f : files) {
                      std::ifstream in(f);
                      std::string line;
                      for (int n = 1; std::getline(in, line) && static_cast<int>(hits.size()) < max; ++n) {
                        std::string low = line;
                        std::transform(low.begin(), low.end(), low.begin(), ::tolower);
                        if (low.find(q) != std::string::npos)
                          hits.push_back(std::filesystem::relative(f, folder).string() + ":" + std::to_string(n) + ": " + line);
                      }
                    }
                    return hits.empty() ? json("no match for '" + args["query"].get<std::string>() + "'") : hits;
                  });
}

}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path folder = std::filesystem::path(SUPERSTEP_EXAMPLES_DIR) / "data" / "knowledge";
  std::string question = "What is 17 * 23 + 4, and what does superstep store in SQLite?";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--folder" && i + 1 < argc) folder = argv[++i];
    else question = a;
  }
  std::shared_ptr<sp::OpenAIChatModel> llm;
  try {
    llm = std::make_shared<sp::OpenAIChatModel>();
  } catch (const sp::Error& e) {
    std::cerr << "11_react_agent needs an OpenAI-compatible chat model.\n  " << e.what()
              << "\n  e.g. OPENAI_API_KEY=sk-... SUPERSTEP_MODEL=gpt-4o-mini, or\n"
                 "       OPENAI_BASE_URL=http://localhost:11434/v1 SUPERSTEP_MODEL=llama3.1 (Ollama)\n";
    return 2;
  }
  auto agent = sp::create_react_agent(llm, {calculator(), current_time(), file_search(folder)},
                                      {.prompt = "You are a precise assistant. Use the tools for arithmetic, the time, "
                                                 "and facts about superstep (search the files). Answer briefly."});
  std::cout << "question: " << question << "\n";
  std::string last_node;
  try {
    auto stream = agent.stream(json{{"messages", {question}}}, {.recursion_limit = 20},
                               {sp::StreamMode::messages, sp::StreamMode::updates});
    for (const sp::StreamPart& p : stream) {
      if (p.mode == sp::StreamMode::messages) {
        const json& m = p.data[0];
        if (m["type"] == "AIMessageChunk") std::cout << m["content"].get<std::string>() << std::flush;
        continue;
      }
      for (const auto& [node, update] : p.data.items()) {
        if (update.is_null()) continue;
        for (const json& m : update["messages"]) {
          for (const json& c : m.value("tool_calls", json::array())) std::cout << "\n[calls " << c["name"].get<std::string>() << " " << c["args"].dump() << "]";
          if (m["type"] == "tool") std::cout << "\n[" << m["name"].get<std::string>() << " -> " << m["content"].dump() << "]";
        }
      }
      std::cout << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "\nerror: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
