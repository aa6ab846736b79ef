// Subgraphs: a compiled graph used as a node. The `review` subgraph shares `draft` with the
// parent, keeps its `notes` to itself, and asks a human before it approves; the parent pauses
// with it, and streams the subgraph's steps with their namespace.
#include <iostream>

#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

int main() {
  sp::StateSchema review_state;
  review_state.field("draft").field("notes", sp::reducers::append);
  sp::StateGraph review(review_state);
  review.add_node("lint", [](const sp::State& s) {
    return json{{"notes", {"length " + std::to_string(s.get<std::string>("draft").size())}}};
  });
  review.add_node("approve", [](const sp::State& s, sp::Runtime& rt) -> sp::NodeResult {
    json answer = sp::interrupt(rt, json{{"draft", s.at("draft")}, {"notes", s.at("notes")}});
    return json{{"draft", s.get<std::string>("draft") + (answer == "yes" ? " [approved]" : " [rejected]")}};
  });
  review.add_edge(sp::START, "lint").add_edge("lint", "approve");

  sp::StateSchema post_state;
  post_state.field("topic").field("draft").field("published");
  sp::StateGraph post(post_state);
  post.add_node("write", [](const sp::State& s) { return json{{"draft", "All about " + s.get<std::string>("topic")}}; });
  post.add_node("review", review.compile({.name = "review"}));  // the subgraph
  post.add_node("publish", [](const sp::State& s) { return json{{"published", s.at("draft")}}; });
  post.add_edge(sp::START, "write").add_edge("write", "review").add_edge("review", "publish");
  // The subgraph has no checkpointer of its own: it checkpoints into the parent's.
  auto app = post.compile({.checkpointer = std::make_shared<sp::InMemorySaver>()});

  sp::RunConfig cfg{.thread_id = "post-1"};
  cfg.subgraphs = true;  // stream the subgraph's parts too
  auto print = [](sp::Stream&& stream) {
    for (const sp::StreamPart& p : stream) {
      std::string ns = p.ns.empty() ? "(root)" : p.ns.back().substr(0, p.ns.back().find(':'));
      std::cout << ns << " " << p.data.dump() << "\n";
    }
    return stream.result();
  };
  json out = print(app.stream(json{{"topic", "subgraphs"}}, cfg, {sp::StreamMode::updates}));
  if (!out.contains("__interrupt__")) return 1;
  sp::StateSnapshot st = app.get_state(cfg, /*subgraphs=*/true);
  std::cout << "paused in " << st.next.front() << ", whose next is " << st.tasks.front().state->next.front() << "\n";

  out = print(app.stream(sp::Command{.resume = "yes"}, cfg, {sp::StreamMode::updates}));
  std::cout << "published: " << out["published"] << "\n";
  return out["published"] == "All about subgraphs [approved]" ? 0 : 1;
}
