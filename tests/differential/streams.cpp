// Scenarios about stream modes (js/<name>.mjs are their LangGraph.js twins).
#include "transcript.hpp"

namespace {
using namespace diff;

sp::CompiledStateGraph chain(const Ctx& c, std::vector<std::string> names, bool checkpointed = false) {
  sp::StateGraph g(trace_schema());
  for (const auto& n : names) g.add_node(n, tracer(n));
  g.add_edge(sp::START, names[0]);
  for (std::size_t i = 0; i + 1 < names.size(); ++i) g.add_edge(names[i], names[i + 1]);
  return g.compile(checkpointed ? c.opts() : c.plain());
}

Register linear_chain{{"linear_chain", false,
                       [](Ctx& c) {
                         auto app = chain(c, {"a", "b", "c"});
                         stream(app, json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                         invoke(app, json{{"n", 2}});
                       },
                       [](Ctx& c) {
                         sp::TypedStateGraph<Trace> g;
                         for (std::string n : {"a", "b", "c"})
                           g.add_node(n, [n](const Trace&) { return sp::Update<Trace>().set<&Trace::trace>(std::vector<std::string>{n}); });
                         g.add_edge(sp::START, "a").add_edge("a", "b").add_edge("b", "c");
                         auto app = g.compile(c.plain());
                         stream(app.json_graph(), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                         invoke(app.json_graph(), json{{"n", 2}});
                       }}};

Register default_mode{{"default_mode", false, [](Ctx& c) {
                         auto app = chain(c, {"a", "b"});
                         stream(app, json{{"n", 1}}, {}, {});
                       }}};

Register mode_values{{"mode_values", false, [](Ctx& c) {
                        sp::StateGraph g(trace_schema());
                        g.add_node("a", [](const sp::State& s) { return json{{"n", s.get<int>("n") + 1}, {"trace", {"a"}}}; });
                        g.add_node("b", [](const sp::State& s) { return json{{"n", s.get<int>("n") * 10}}; });
                        g.add_edge(sp::START, "a").add_edge("a", "b");
                        stream(g.compile(c.plain()), json{{"n", 1}, {"trace", {"in"}}}, {}, {Mode::values});
                      }}};

Register mode_custom{{"mode_custom", false, [](Ctx& c) {
                        sp::StateGraph g(trace_schema());
                        g.add_node("a", [](const sp::State&, sp::Runtime& rt) {
                          rt.stream_writer(json{{"progress", 1}});
                          rt.stream_writer("half");
                          return json{{"trace", {"a"}}};
                        });
                        g.add_node("b", [](const sp::State&, sp::Runtime& rt) {
                          rt.stream_writer(json::array({1, 2}));
                          return json{{"trace", {"b"}}};
                        });
                        g.add_edge(sp::START, "a").add_edge("a", "b");
                        auto app = g.compile(c.plain());
                        stream(app, json{{"n", 1}}, {}, {Mode::custom, Mode::updates});
                        stream(app, json{{"n", 1}}, {}, {Mode::custom});
                      }}};

Register mode_tasks{{"mode_tasks", false, [](Ctx& c) {
                       sp::StateGraph g(trace_schema());
                       g.add_node("a", tracer("a")).add_node("b", tracer("b"));
                       g.add_node("c", [](const sp::State&) { return json{{"n", 5}}; });
                       g.add_edge(sp::START, "a").add_edge("a", "b").add_edge("a", "c");
                       stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::tasks});
                     }}};

Register mode_debug{{"mode_debug", true, [](Ctx& c) {
                       auto app = chain(c, {"a", "b"}, true);
                       stream(app, json{{"n", 1}}, thread(), {Mode::debug});
                     }}};

Register mode_checkpoints{{"mode_checkpoints", true, [](Ctx& c) {
                             auto app = chain(c, {"a", "b"}, true);
                             stream(app, json{{"n", 1}}, thread(), {Mode::checkpoints});
                             stream(app, json{{"n", 2}}, thread(), {Mode::checkpoints, Mode::updates});
                           }}};

Register all_modes{{"all_modes", true, [](Ctx& c) {
                      sp::StateGraph g(trace_schema());
                      g.add_node("a", [](const sp::State&, sp::Runtime& rt) {
                        rt.stream_writer(json{{"from", "a"}});
                        return json{{"trace", {"a"}}};
                      });
                      g.add_node("b", tracer("b")).add_node("c", tracer("c"));
                      g.add_edge(sp::START, "a").add_edge("a", "b").add_edge("a", "c");
                      stream(g.compile(c.opts()), json{{"n", 1}}, thread(),
                             {Mode::values, Mode::updates, Mode::tasks, Mode::custom, Mode::checkpoints, Mode::debug});
                    }}};

Register node_returns_nothing{{"node_returns_nothing", false, [](Ctx& c) {
                                 sp::StateGraph g(trace_schema());
                                 g.add_node("quiet", [](const sp::State&) {}).add_node("b", tracer("b"));
                                 g.add_edge(sp::START, "quiet").add_edge("quiet", "b");
                                 stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates});
                               }}};

Register mode_messages{{"mode_messages", false, [](Ctx& c) {
                          sp::StateSchema s;
                          s.field("messages", sp::reducers::add_messages, json::array());
                          sp::StateGraph g(s);
                          g.add_node("bot", [](const sp::State&) {
                            return json{{"messages", {{{"type", "ai"}, {"content", "hi there"}, {"id", "ai-1"}}}}};
                          });
                          g.add_edge(sp::START, "bot");
                          stream(g.compile(c.plain()),
                                 json{{"messages", {{{"type", "human"}, {"content", "hello"}, {"id", "h-1"}}}}}, {},
                                 {Mode::messages, Mode::updates});
                        }}};

Register empty_input{{"empty_input", false, [](Ctx& c) {
                        auto app = chain(c, {"a"});
                        stream(app, json::object(), {}, {Mode::updates, Mode::values});
                        invoke(app, json(nullptr));
                      }}};

}  // namespace
