// State and channel scenarios: built-in and custom reducers with parallel writers (sum, max,
// merge, a non-commutative join showing the order writes apply in), defaults, Overwrite beside
// other writes in one step, null and nested values in LastValue keys, node input_keys, reducer
// keys written by Command.update, update_state (with and without as_node) and
// bulk_update_state, add_messages across update_state and resume (js/<name>.mjs are their
// LangGraph.js twins).
#include <algorithm>

#include "transcript.hpp"

namespace {
using namespace diff;

/// A non-commutative reducer: "a|b", so the value shows the order writes were folded in.
const sp::Reducer join_reducer([](json cur, json upd) { return json(cur.get<std::string>() + "|" + upd.get<std::string>()); },
                               "join");

/// A max reducer over numbers.
const sp::Reducer max_reducer([](json cur, json upd) { return upd.get<int>() > cur.get<int>() ? upd : cur; }, "max");

std::string keys_of(const sp::State& s) {
  auto k = s.keys();
  std::sort(k.begin(), k.end());
  std::string out;
  for (const auto& x : k) out += (out.empty() ? "" : ",") + x;
  return out;
}

std::string int_of(const sp::State& s, const std::string& key) { return std::to_string(s.get<int>(key)); }

Register st_sum_parallel{{"st_sum_parallel", false, [](Ctx& c) {
                            sp::StateSchema s = trace_schema();
                            s.field("total", sp::reducers::add, 0);
                            sp::StateGraph g(s);
                            int i = 1;
                            for (std::string n : {"a", "b", "c"}) {
                              g.add_node(n, [n, i](const sp::State&) { return json{{"total", i}, {"trace", {n}}}; });
                              g.add_edge(sp::START, n);
                              ++i;
                            }
                            g.add_node("j", [](const sp::State& st) { return json{{"trace", {"j:total=" + int_of(st, "total")}}}; });
                            g.add_edge({"a", "b", "c"}, "j");
                            auto app = g.compile(c.plain());
                            stream(app, json{{"total", 10}}, {}, {Mode::updates, Mode::values});
                            invoke(app, json{{"n", 1}});
                          }}};

Register st_custom_max{{"st_custom_max", false, [](Ctx& c) {
                          sp::StateSchema s = trace_schema();
                          s.field("best", max_reducer, 0);
                          sp::StateGraph g(s);
                          std::vector<std::pair<std::string, int>> ps{{"p1", 5}, {"p2", 9}, {"p3", 3}};
                          for (auto [n, v] : ps) {
                            g.add_node(n, [v](const sp::State&) { return json{{"best", v}}; });
                            g.add_edge(sp::START, n);
                          }
                          g.add_node("low", [](const sp::State& st) {
                            return json{{"best", 2}, {"trace", {"low:best=" + int_of(st, "best")}}};
                          });
                          g.add_node("last", [](const sp::State& st) { return json{{"trace", {"last:best=" + int_of(st, "best")}}}; });
                          g.add_edge({"p1", "p2", "p3"}, "low").add_edge("low", "last");
                          auto app = g.compile(c.plain());
                          stream(app, json{{"best", 4}}, {}, {Mode::updates, Mode::values});
                          stream(app, json{{"best", 20}}, {}, {Mode::values});
                        }}};

Register st_order_pull{{"st_order_pull", false, [](Ctx& c) {
                          sp::StateSchema s = trace_schema();
                          s.field("log", join_reducer, "");
                          sp::StateGraph g(s);
                          for (std::string n : {"zeta", "alpha", "mid"}) {
                            g.add_node(n, [n](const sp::State&) { return json{{"log", n}}; });
                            g.add_edge(sp::START, n);
                          }
                          g.add_node("end", [](const sp::State& st) {
                            return json{{"log", "end"}, {"trace", {"end:" + st.get<std::string>("log")}}};
                          });
                          g.add_edge({"zeta", "alpha", "mid"}, "end");
                          stream(g.compile(c.plain()), json{{"log", "in"}}, {}, {Mode::updates, Mode::values});
                        }}};

Register st_order_send{{"st_order_send", false, [](Ctx& c) {
                          sp::StateSchema s = trace_schema();
                          s.field("log", join_reducer, "");
                          sp::StateGraph g(s);
                          g.add_node("w", [](const sp::State& st) { return json{{"log", "w" + int_of(st, "n")}}; });
                          g.add_node("p", [](const sp::State&) { return json{{"log", "p"}}; });
                          g.add_node("q", [](const sp::State&) { return json{{"log", "q"}}; });
                          g.add_node("z", [](const sp::State& st) { return json{{"trace", {"z:" + st.get<std::string>("log")}}}; });
                          g.add_conditional_edges(sp::START, [](const sp::State&) {
                            std::vector<sp::Send> sends;
                            for (int n : {3, 1, 2}) sends.push_back({"w", json{{"n", n}}});
                            return sends;
                          });
                          g.add_edge(sp::START, "q").add_edge(sp::START, "p");
                          g.add_edge({"p", "q"}, "z");
                          stream(g.compile(c.plain()), json{{"n", 0}}, {}, {Mode::updates, Mode::values});
                        }}};

Register st_merge_parallel{{"st_merge_parallel", false, [](Ctx& c) {
                              sp::StateSchema s = trace_schema();
                              s.field("doc", sp::reducers::merge, json{{"base", 0}});
                              sp::StateGraph g(s);
                              g.add_node("b", [](const sp::State&) {
                                return json{{"doc", {{"x", 1}, {"shared", "b"}, {"nested", {{"p", 1}}}}}};
                              });
                              g.add_node("a", [](const sp::State&) {
                                return json{{"doc", {{"y", 2}, {"shared", "a"}, {"nested", {{"q", 2}}}}}};
                              });
                              g.add_node("c", [](const sp::State&) {
                                return json{{"doc", {{"base", nullptr}, {"list", json::array({1, 2})}}}};
                              });
                              g.add_node("d", [](const sp::State&) {
                                return json{{"doc", {{"list", json::array({3})}, {"nested", json::object()}}}};
                              });
                              g.add_edge(sp::START, "b").add_edge(sp::START, "a").add_edge(sp::START, "c");
                              g.add_edge({"a", "b", "c"}, "d");
                              stream(g.compile(c.plain()), json{{"doc", {{"in", true}}}}, {}, {Mode::updates, Mode::values});
                            }}};

Register st_overwrite_parallel{{"st_overwrite_parallel", false, [](Ctx& c) {
                                  sp::StateGraph g(trace_schema());
                                  g.add_node("a", tracer("a"));
                                  g.add_node("b", [](const sp::State&) { return json{{"trace", sp::Overwrite{json::array({"reset"})}}}; });
                                  g.add_node("c", tracer("c"));
                                  g.add_node("d", [](const sp::State& st) { return json{{"trace", {"d:" + std::to_string(st["trace"].size())}}}; });
                                  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge(sp::START, "c");
                                  g.add_edge({"a", "b", "c"}, "d");
                                  stream(g.compile(c.plain()), json{{"trace", {"in"}}}, {}, {Mode::updates, Mode::values});
                                  sp::StateGraph g2(trace_schema());
                                  g2.add_node("x", [](const sp::State&) { return json{{"trace", sp::Overwrite{json::array({"x"})}}}; });
                                  g2.add_node("y", [](const sp::State&) { return json{{"trace", sp::Overwrite{json::array({"y"})}}}; });
                                  g2.add_edge(sp::START, "x").add_edge(sp::START, "y");
                                  stream(g2.compile(c.plain()), json{{"n", 1}}, {}, {Mode::values});
                                }}};

Register st_null_nested{{"st_null_nested", false, [](Ctx& c) {
                           sp::StateSchema s = trace_schema();
                           s.field("doc").field("extra");
                           sp::StateGraph g(s);
                           g.add_node("a", [](const sp::State&) {
                             return json{{"n", nullptr}, {"extra", json::array({json::array({1, 2}), json::object(), nullptr})}};
                           });
                           g.add_node("b", [](const sp::State& st) {
                             std::string seen = st.contains("n") ? (st["n"].is_null() ? "null" : "value") : "absent";
                             return json{{"trace", {"b:n=" + seen}}, {"doc", {{"a", nullptr}}}};
                           });
                           g.add_node("c", [](const sp::State& st) {
                             return json{{"trace", {"c:" + st["doc"].dump() + ":" + std::to_string(st["extra"].size())}}};
                           });
                           g.add_edge(sp::START, "a").add_edge("a", "b").add_edge("b", "c");
                           auto app = g.compile(c.plain());
                           json input = {{"n", 1}, {"doc", {{"a", {{"b", json::array({1, {{"c", nullptr}}})}}}, {"list", json::array()}}}};
                           stream(app, input, {}, {Mode::updates, Mode::values});
                           invoke(app, json{{"n", nullptr}, {"doc", nullptr}});
                         }}};

Register st_input_keys{{"st_input_keys", false, [](Ctx& c) {
                          sp::StateSchema s = trace_schema();
                          s.field("doc").field("total", sp::reducers::add, 0);
                          sp::StateGraph g(s);
                          g.add_node("a", [](const sp::State& st) {
                            return json{{"trace", {"a:" + keys_of(st)}}, {"doc", "d"}, {"total", 1}};
                          }, {.input_keys = {"doc", "n"}});
                          g.add_node("b", [](const sp::State& st) {
                            return json{{"trace", {"b:" + keys_of(st) + ":total=" + int_of(st, "total")}}, {"total", 2}};
                          }, {.input_keys = {"total"}});
                          g.add_node("c", [](const sp::State& st) { return json{{"trace", {"c:" + keys_of(st)}}}; });
                          g.add_edge(sp::START, "a").add_edge("a", "b").add_edge("b", "c");
                          stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                        }}};

Register st_defaults{{"st_defaults", false, [](Ctx& c) {
                        sp::StateSchema s;
                        s.field("trace", sp::reducers::append, json::array({"seed"}))
                            .field("total", sp::reducers::add, 5)
                            .field("tags", sp::reducers::merge, json{{"k", "v"}})
                            .field("log", join_reducer, "start")
                            .field("n");
                        sp::StateGraph g(s);
                        g.add_node("a", [](const sp::State& st) {
                          return json{{"trace", {"a:" + keys_of(st) + ":" + int_of(st, "total") + ":" + st.get<std::string>("log")}},
                                      {"total", 1}};
                        });
                        g.add_edge(sp::START, "a");
                        auto app = g.compile(c.plain());
                        stream(app, json::object(), {}, {Mode::updates, Mode::values});
                        invoke(app, json{{"total", 1}, {"tags", {{"x", 1}}}, {"log", "in"}, {"trace", {"t"}}, {"n", 0}});
                      }}};

Register st_command_update_reducer{{"st_command_update_reducer", false, [](Ctx& c) {
                                      sp::StateSchema s = trace_schema();
                                      s.field("total", sp::reducers::add, 0);
                                      sp::StateGraph g(s);
                                      g.add_node("a", [](const sp::State&) {
                                        return sp::Command{.update = {{"total", 5}, {"trace", {"a"}}}, .go_to = "c"};
                                      }, {.ends = {"c"}});
                                      g.add_node("b", [](const sp::State&) { return json{{"total", 7}, {"trace", {"b"}}}; });
                                      g.add_node("c", [](const sp::State& st) {
                                        return json{{"trace", {"c:total=" + int_of(st, "total")}}, {"total", 100}};
                                      });
                                      g.add_edge(sp::START, "a").add_edge(sp::START, "b");
                                      auto app = g.compile(c.plain());
                                      stream(app, json{{"total", 1}}, {}, {Mode::updates, Mode::values});
                                      stream(app, sp::Command{.update = {{"total", 3}, {"trace", {"cmd"}}}, .go_to = "c"}, {},
                                             {Mode::updates, Mode::values});
                                    }}};

Register st_update_state_reducer{{"st_update_state_reducer", true, [](Ctx& c) {
                                    sp::StateSchema s = trace_schema();
                                    s.field("total", sp::reducers::add, 0).field("tags", sp::reducers::merge, json::object());
                                    sp::StateGraph g(s);
                                    g.add_node("a", [](const sp::State&) { return json{{"total", 1}, {"trace", {"a"}}}; });
                                    g.add_node("b", [](const sp::State& st) {
                                      return json{{"total", 2}, {"tags", {{"b", 1}}}, {"trace", {"b:total=" + int_of(st, "total")}}};
                                    });
                                    g.add_edge(sp::START, "a").add_edge("a", "b");
                                    auto app = g.compile(c.opts());
                                    invoke(app, json{{"total", 10}}, thread());
                                    update(app, thread(), json{{"total", 100}, {"tags", {{"u", 1}}}});
                                    state(app, thread());
                                    update(app, thread(), json{{"total", 1000}, {"trace", {"ua"}}}, "a");
                                    state(app, thread());
                                    stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
                                    update(app, thread(), json{{"total", sp::Overwrite{0}}, {"tags", {{"b", 2}}}});
                                    state(app, thread());
                                    update(app, thread("t2"), json{{"total", 4}, {"n", nullptr}});
                                    state(app, thread("t2"));
                                  }}};

void bulk(const sp::CompiledStateGraph& app, const sp::RunConfig& cfg,
          const std::vector<std::vector<sp::StateUpdate>>& steps) {
  try {
    sp::RunConfig c = app.bulk_update_state(cfg, steps);
    json configurable = {{"thread_id", c.thread_id}, {"checkpoint_ns", c.checkpoint_ns}};
    if (c.checkpoint_id) configurable["checkpoint_id"] = *c.checkpoint_id;
    emit(json{{"config", {{"configurable", configurable}}}});
  } catch (...) {
    emit(error_line(std::current_exception()));
  }
}

Register st_bulk_update_order{{"st_bulk_update_order", true, [](Ctx& c) {
                                 sp::StateSchema s = trace_schema();
                                 s.field("log", join_reducer, "").field("total", sp::reducers::add, 0);
                                 sp::StateGraph g(s);
                                 for (std::string n : {"zeta", "alpha"}) {
                                   g.add_node(n, [n](const sp::State&) { return json{{"log", n}}; });
                                   g.add_edge(sp::START, n);
                                 }
                                 g.add_node("fin", [](const sp::State& st) {
                                   return json{{"trace", {"fin:" + st.get<std::string>("log") + ":" + int_of(st, "total")}}};
                                 });
                                 g.add_edge({"zeta", "alpha"}, "fin");
                                 auto app = g.compile(c.opts());
                                 invoke(app, json{{"log", "in"}}, thread());
                                 bulk(app, thread(),
                                      {{{json{{"log", "Z"}, {"total", 1}}, "zeta"}, {json{{"log", "A"}, {"total", 2}}, "alpha"}},
                                       {{json{{"log", "F"}}, "fin"}}});
                                 state(app, thread());
                                 bulk(app, thread("t2"),
                                      {{{json{{"log", "Z"}}, "zeta"}, {json{{"log", "A"}, {"total", 2}}, "alpha"}}});
                                 state(app, thread("t2"));
                                 stream(app, json(nullptr), thread("t2"), {Mode::updates, Mode::values});
                               }}};

json msg(const std::string& type, const std::string& content, const std::string& id) {
  return json{{"type", type}, {"content", content}, {"id", id}};
}

Register st_messages_update_remove{{"st_messages_update_remove", true, [](Ctx& c) {
                                      sp::StateSchema s;
                                      s.field("messages", sp::reducers::add_messages, json::array());
                                      sp::StateGraph g(s);
                                      g.add_node("bot", [](const sp::State&) { return json{{"messages", {msg("ai", "hi", "a1")}}}; });
                                      g.add_node("ask", [](const sp::State& st, sp::Runtime& rt) {
                                        std::string v = sp::interrupt(rt, "ok?").get<std::string>();
                                        return json{{"messages", {msg("ai", "ask:" + v + ":" + std::to_string(st["messages"].size()), "a2")}}};
                                      });
                                      g.add_node("after", [](const sp::State& st) {
                                        std::string ids;
                                        for (const auto& m : st["messages"]) ids += m["id"].get<std::string>() + ",";
                                        return json{{"messages", {msg("ai", "after:" + ids, "a3")}}};
                                      });
                                      g.add_edge(sp::START, "bot").add_edge("bot", "ask").add_edge("ask", "after");
                                      auto app = g.compile(c.opts());
                                      stream(app, json{{"messages", {msg("human", "hello", "h1")}}}, thread(), {Mode::updates});
                                      update(app, thread(), json{{"messages", {{{"type", "remove"}, {"id", "h1"}}}}});
                                      state(app, thread());
                                      update(app, thread(), json{{"messages", {msg("ai", "HI", "a1"), msg("human", "more", "h2")}}});
                                      state(app, thread());
                                      stream(app, sp::Command{.resume = "yes"}, thread(), {Mode::updates, Mode::values});
                                      update(app, thread(),
                                             json{{"messages", {{{"type", "remove"}, {"id", "__remove_all__"}}, msg("human", "fresh", "f1")}}});
                                      state(app, thread());
                                    }}};

Register st_messages_parallel{{"st_messages_parallel", false, [](Ctx& c) {
                                 sp::StateSchema s;
                                 s.field("messages", sp::reducers::add_messages, json::array());
                                 sp::StateGraph g(s);
                                 g.add_node("y", [](const sp::State&) {
                                   return json{{"messages", {msg("human", "replaced by y", "h1"), msg("ai", "from y", "y1")}}};
                                 });
                                 g.add_node("x", [](const sp::State&) {
                                   return json{{"messages", {msg("ai", "from x", "x1"), msg("human", "replaced by x", "h1")}}};
                                 });
                                 g.add_node("j", [](const sp::State& st) {
                                   std::string ids;
                                   for (const auto& m : st["messages"]) ids += m["id"].get<std::string>() + ",";
                                   return json{{"messages", {msg("ai", "j:" + ids, "j1")}}};
                                 });
                                 g.add_edge(sp::START, "y").add_edge(sp::START, "x").add_edge({"x", "y"}, "j");
                                 stream(g.compile(c.plain()), json{{"messages", {msg("human", "q", "h1")}}}, {},
                                        {Mode::updates, Mode::values});
                               }}};

Register st_update_join_target{{"st_update_join_target", true, [](Ctx& c) {
                                  sp::StateGraph g(trace_schema());
                                  for (std::string n : {"zeta", "alpha", "fin", "solo", "after"}) g.add_node(n, tracer(n));
                                  g.add_edge(sp::START, "zeta").add_edge(sp::START, "alpha").add_edge({"zeta", "alpha"}, "fin");
                                  g.add_edge(sp::START, "solo").add_edge("solo", "after");
                                  auto app = g.compile(c.opts());
                                  invoke(app, json{{"n", 1}}, thread());
                                  for (auto [n, v] : std::vector<std::pair<std::string, int>>{
                                           {"zeta", 2}, {"alpha", 3}, {"fin", 4}, {"solo", 5}, {"after", 6}}) {
                                    update(app, thread(), json{{"n", v}}, n);
                                    state(app, thread());
                                  }
                                  stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
                                }}};

}  // namespace
