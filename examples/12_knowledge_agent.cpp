// The knowledge agent of the design notes: router -> rewrite -> retrieve -> generate.
// Small talk ("hello", "thanks", "bye") goes straight to generate; any other question is
// rewritten by the model into a search query, the top chunks of local text files are retrieved
// with BM25, and the model answers from those chunks only (saying it does not know when they
// do not cover the question).
//
//   OPENAI_API_KEY=sk-... SUPERSTEP_MODEL=gpt-4o-mini ./12_knowledge_agent "Where are checkpoints stored?"
//   ./12_knowledge_agent --folder my_docs "..."      (default: examples/data/knowledge)
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <superstep/llm/openai_chat_model.hpp>
#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

namespace {

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::string w;
  for (char c : text + " ") {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!w.empty()) {
      out.push_back(std::move(w));
      w.clear();
    }
  }
  return out;
}

/// Okapi BM25 over paragraphs of the text files in a folder.
class KnowledgeBase {
 public:
  explicit KnowledgeBase(const std::filesystem::path& folder) {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(folder))
      if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f);
      std::string line, para;
      auto flush = [&] {
        if (!para.empty()) chunks_.push_back({f.filename().string(), para, words(para)});
        para.clear();
      };
      while (std::getline(in, line)) {
        if (line.empty()) flush();
        else para += (para.empty() ? "" : " ") + line;
      }
      flush();
    }
    for (const Chunk& c : chunks_) {
      avg_len_ += static_cast<double>(c.terms.size());
      std::set<std::string> seen(c.terms.begin(), c.terms.end());
      for (const auto& t : seen) ++df_[t];
    }
    if (!chunks_.empty()) avg_len_ /= static_cast<double>(chunks_.size());
  }

  /// The `k` best chunks for `query` (score > 0), best first, as {source, text, score}.
  json search(const std::string& query, std::size_t k) const {
    constexpr double k1 = 1.5, b = 0.75;
    const double n = static_cast<double>(chunks_.size());
    std::vector<std::pair<double, std::size_t>> scored;
    for (std::size_t i = 0; i < chunks_.size(); ++i) {
      const Chunk& c = chunks_[i];
      double score = 0;
      for (const std::string& q : words(query)) {
        auto df = df_.find(q);
        if (df == df_.end()) continue;
        double tf = static_cast<double>(std::count(c.terms.begin(), c.terms.end(), q));
        double idf = std::log(1 + (n - df->second + 0.5) / (df->second + 0.5));
        score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * static_cast<double>(c.terms.size()) / avg_len_));
      }
      if (score > 0) scored.emplace_back(score, i);
    }
    std::sort(scored.begin(), scored.end(), [](auto& x, auto& y) { return x.first > y.first || (x.first == y.first && x.second < y.second); });
    json out = json::array();
    for (std::size_t j = 0; j < scored.size() && j < k; ++j) {
      const Chunk& c = chunks_[scored[j].second];
      out.push_back({{"source", c.source}, {"text", c.text}, {"score", std::round(scored[j].first * 1000) / 1000}});
    }
    return out;
  }

 private:
  struct Chunk {
    std::string source, text;
    std::vector<std::string> terms;
  };
  std::vector<Chunk> chunks_;
  std::map<std::string, int> df_;
  double avg_len_ = 0;
};

bool small_talk(const std::string& question) {
  static const std::set<std::string> greetings = {"hello", "hi", "hey", "thanks", "thank", "bye", "goodbye"};
  auto w = words(question);
  return !w.empty() && w.size() <= 4 && greetings.count(w.front());
}

}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path folder = std::filesystem::path(SUPERSTEP_EXAMPLES_DIR) / "data" / "knowledge";
  std::vector<std::string> questions;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--folder" && i + 1 < argc) folder = argv[++i];
    else questions.push_back(a);
  }
  if (questions.empty()) questions = {"hello!", "Which SQLite tables hold the checkpoints?"};
  std::shared_ptr<sp::OpenAIChatModel> llm;
  try {
    llm = std::make_shared<sp::OpenAIChatModel>();
  } catch (const sp::Error& e) {
    std::cerr << "12_knowledge_agent needs an OpenAI-compatible chat model.\n  " << e.what()
              << "\n  e.g. OPENAI_API_KEY=sk-... SUPERSTEP_MODEL=gpt-4o-mini, or\n"
                 "       OPENAI_BASE_URL=http://localhost:11434/v1 SUPERSTEP_MODEL=llama3.1 (Ollama)\n";
    return 2;
  }
  auto kb = std::make_shared<KnowledgeBase>(folder);

  sp::StateSchema schema;
  schema.field("question").field("rewritten_query").field("retrieved_chunks").field("answer").field("needs_retrieval");
  sp::StateGraph g(schema);
  g.add_node("router", [](const sp::State& s) {
    return json{{"needs_retrieval", !small_talk(s.get<std::string>("question"))}};
  });
  g.add_node("rewrite", [llm](const sp::State& s, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    std::vector<sp::Message> prompt{
        sp::Message::system("Rewrite the user's question into a short keyword search query. Reply with the query only."),
        sp::Message::human(s.get<std::string>("question"))};
    sp::Task<sp::Message> call = llm->ainvoke(std::move(prompt), rt);
    sp::Message reply = co_await std::move(call);
    co_return json{{"rewritten_query", reply.text()}};
  });
  g.add_node("retrieve", [kb](const sp::State& s) {
    return json{{"retrieved_chunks", kb->search(s.get<std::string>("rewritten_query"), 3)}};
  });
  g.add_node("generate", [llm](const sp::State& s, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    std::vector<sp::Message> prompt;
    if (s.get<bool>("needs_retrieval")) {
      std::string context;
      for (const json& c : s.contains("retrieved_chunks") ? s["retrieved_chunks"] : json::array())
        context += "[" + c["source"].get<std::string>() + "] " + c["text"].get<std::string>() + "\n";
      prompt.push_back(sp::Message::system(
          "Answer the question using only these notes. If they do not cover it, say you do not know.\n\nNotes:\n" +
          (context.empty() ? std::string("(none found)\n") : context)));
    } else {
      prompt.push_back(sp::Message::system("Reply briefly and kindly to the user's small talk."));
    }
    prompt.push_back(sp::Message::human(s.get<std::string>("question")));
    sp::Task<sp::Message> call = llm->ainvoke(std::move(prompt), rt);
    sp::Message reply = co_await std::move(call);
    co_return json{{"answer", reply.text()}};
  });
  g.add_edge(sp::START, "router");
  g.add_conditional_edges("router", [](const sp::State& s) -> std::string { return s.get<bool>("needs_retrieval") ? "rewrite" : "generate"; },
                          {{"rewrite", "rewrite"}, {"generate", "generate"}});
  g.add_edge("rewrite", "retrieve").add_edge("retrieve", "generate").add_edge("generate", sp::END);
  auto app = g.compile({.name = "knowledge_agent"});

  try {
    for (const std::string& q : questions) {
      json out = app.invoke(json{{"question", q}});
      std::cout << "question: " << q << "\n";
      if (out["needs_retrieval"].get<bool>()) {
        std::cout << "query:    " << out["rewritten_query"].get<std::string>() << "\n";
        for (const json& c : out["retrieved_chunks"]) std::cout << "chunk:    [" << c["source"].get<std::string>() << " " << c["score"] << "] " << c["text"].get<std::string>().substr(0, 60) << "...\n";
      } else {
        std::cout << "(small talk: no retrieval)\n";
      }
      std::cout << "answer:   " << out["answer"].get<std::string>() << "\n\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
