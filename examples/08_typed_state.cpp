// The same small agent written twice: with JSON state and with typed state. Both graphs have
// the same nodes, edges and semantics; the typed one is checked by the compiler and never
// converts its state to JSON while it runs.
//   router -> (small talk) -> generate
//          -> (question)   -> retrieve -> generate
#include <iostream>
#include <string>
#include <vector>

#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

namespace {

const std::vector<std::string> kDocuments = {
    "Lisbon is the capital of Portugal.",
    "The Tagus river flows through Lisbon.",
    "Porto is known for port wine.",
};

bool is_small_talk(const std::string& q) { return q == "hello" || q == "thanks" || q == "bye"; }

std::vector<std::string> retrieve(const std::string& question) {
  std::vector<std::string> hits;
  for (const auto& doc : kDocuments)
    for (const std::string word : {"Lisbon", "Porto", "Tagus"})
      if (question.find(word) != std::string::npos && doc.find(word) != std::string::npos) {
        hits.push_back(doc);
        break;
      }
  return hits;
}

std::string generate(const std::string& question, const std::vector<std::string>& chunks) {
  if (is_small_talk(question)) return "Hi! Ask me about Portugal.";
  if (chunks.empty()) return "I don't know.";
  std::string answer;
  for (const auto& c : chunks) answer += (answer.empty() ? "" : " ") + c;
  return answer;
}

// --- JSON state ---------------------------------------------------------------------------
sp::CompiledStateGraph json_agent() {
  sp::StateSchema schema;
  schema.field("question").field("chunks", sp::reducers::append, json::array()).field("answer");
  sp::StateGraph g(schema);
  g.add_node("retrieve", [](const sp::State& s) { return json{{"chunks", retrieve(s.get<std::string>("question"))}}; });
  g.add_node("generate", [](const sp::State& s) {
    return json{{"answer", generate(s.get<std::string>("question"), s.get<std::vector<std::string>>("chunks"))}};
  });
  g.set_conditional_entry_point(
      [](const sp::State& s) { return is_small_talk(s.get<std::string>("question")) ? "generate" : "retrieve"; });
  g.add_edge("retrieve", "generate");
  return g.compile({.name = "json_agent"});
}

}  // namespace

// --- typed state --------------------------------------------------------------------------
struct AgentState {
  std::string question;
  std::vector<std::string> chunks;
  std::string answer;
};
SUPERSTEP_STATE(AgentState,
                SUPERSTEP_FIELD(AgentState, question),
                SUPERSTEP_FIELD(AgentState, chunks, sp::typed::append{}),
                SUPERSTEP_FIELD(AgentState, answer));

namespace {

sp::TypedCompiledGraph<AgentState> typed_agent() {
  using U = sp::Update<AgentState>;
  sp::TypedStateGraph<AgentState> g;
  g.add_node("retrieve", [](const AgentState& s) { return U().set<&AgentState::chunks>(retrieve(s.question)); });
  g.add_node("generate", [](const AgentState& s) { return U().set<&AgentState::answer>(generate(s.question, s.chunks)); });
  g.set_conditional_entry_point([](const AgentState& s) { return is_small_talk(s.question) ? "generate" : "retrieve"; });
  g.add_edge("retrieve", "generate");
  return g.compile({.name = "typed_agent"});
}

}  // namespace

int main() {
  auto j = json_agent();
  auto t = typed_agent();
  int failures = 0;
  for (std::string q : {"hello", "What flows through Lisbon?", "Tell me about Madrid"}) {
    std::string a1 = j.invoke(json{{"question", q}})["answer"];
    std::string a2 = t.invoke(sp::Update<AgentState>().set<&AgentState::question>(q)).answer;
    std::cout << q << "\n  json:  " << a1 << "\n  typed: " << a2 << "\n";
    failures += a1 != a2;
  }
  return failures;
}
