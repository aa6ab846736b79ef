// Scenarios about graph structure and execution: joins, branches, conditional edges, Send,
// Command, recursion limits, retries, failures, max_concurrency, defer, Overwrite,
// add_messages, errors (js/<name>.mjs are their LangGraph.js twins).
#include <atomic>

#include "transcript.hpp"

namespace {
using namespace diff;

Register join_fan_in{{"join_fan_in", false, [](Ctx& c) {
                        sp::StateGraph g(trace_schema());
                        for (std::string n : {"a", "b", "c", "j"}) g.add_node(n, tracer(n));
                        g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge(sp::START, "c");
                        g.add_edge({"a", "b", "c"}, "j");
                        stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                      }}};

Register uneven_branches{{"uneven_branches", false, [](Ctx& c) {
                            sp::StateGraph g(trace_schema());
                            for (std::string n : {"a", "b", "b2", "c"}) g.add_node(n, tracer(n));
                            g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("b", "b2");
                            g.add_edge("a", "c").add_edge("b2", "c");
                            stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                          }}};

Register uneven_join{{"uneven_join", false, [](Ctx& c) {
                        sp::StateGraph g(trace_schema());
                        for (std::string n : {"a", "b", "b2", "c"}) g.add_node(n, tracer(n));
                        g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("b", "b2");
                        g.add_edge({"a", "b2"}, "c");
                        auto app = g.compile(c.plain());
                        stream(app, json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                        invoke(app, json{{"n", 2}});
                      }}};

Register conditional_path_map{{"conditional_path_map", false, [](Ctx& c) {
                                 sp::StateGraph g(trace_schema());
                                 for (std::string n : {"start", "yes", "no"}) g.add_node(n, tracer(n));
                                 g.add_edge(sp::START, "start");
                                 g.add_conditional_edges(
                                     "start", [](const sp::State& s) { return s.get<int>("n") > 0 ? "positive" : "other"; },
                                     {{"positive", "yes"}, {"other", "no"}});
                                 auto app = g.compile(c.plain());
                                 stream(app, json{{"n", 1}}, {}, {Mode::updates});
                                 stream(app, json{{"n", -1}}, {}, {Mode::updates});
                               }}};

Register conditional_no_map{{"conditional_no_map", false, [](Ctx& c) {
                               sp::StateGraph g(trace_schema());
                               for (std::string n : {"r", "x", "y", "z"}) g.add_node(n, tracer(n));
                               g.add_edge(sp::START, "r");
                               g.add_conditional_edges("r", [](const sp::State& s) -> sp::Route {
                                 int n = s.get<int>("n");
                                 if (n == 0) return sp::END;
                                 if (n == 1) return std::vector<std::string>{"z", "x"};
                                 return "y";
                               });
                               auto app = g.compile(c.plain());
                               for (int n : {0, 1, 2}) stream(app, json{{"n", n}}, {}, {Mode::updates, Mode::values});
                             }}};

Register conditional_list_outside{{"conditional_list_outside", false, [](Ctx& c) {
                                     sp::StateGraph g(trace_schema());
                                     for (std::string n : {"r", "x", "y"}) g.add_node(n, tracer(n));
                                     g.add_edge(sp::START, "r").add_edge("x", "y");
                                     g.add_conditional_edges(
                                         "r", [](const sp::State& s) { return s.get<int>("n") == 1 ? "x" : "y"; },
                                         std::vector<std::string>{"x"});
                                     auto app = g.compile(c.plain());
                                     stream(app, json{{"n", 1}}, {}, {Mode::updates});
                                     stream(app, json{{"n", 2}}, {}, {Mode::updates});
                                   }}};

Register conditional_entry{{"conditional_entry", false, [](Ctx& c) {
                              sp::StateGraph g(trace_schema());
                              g.add_node("x", tracer("x")).add_node("y", tracer("y"));
                              g.set_conditional_entry_point([](const sp::State& s) { return s.get<int>("n") ? "x" : "y"; });
                              auto app = g.compile(c.plain());
                              stream(app, json{{"n", 1}}, {}, {Mode::updates});
                              stream(app, json{{"n", 0}}, {}, {Mode::updates});
                            }}};

Register send_map_reduce{{"send_map_reduce", false, [](Ctx& c) {
                            sp::StateSchema s;
                            s.field("items").field("i").field("results", sp::reducers::append, json::array());
                            sp::StateGraph g(s);
                            g.add_node("worker", [](const sp::State& st) { return json{{"results", {st.get<int>("i") * 10}}}; });
                            g.add_node("reduce", [](const sp::State& st) {
                              int sum = 0;
                              for (const auto& v : st["results"]) sum += v.get<int>();
                              return json{{"results", {sum}}};
                            });
                            g.add_conditional_edges(sp::START, [](const sp::State& st) {
                              std::vector<sp::Send> sends;
                              for (const auto& i : st["items"]) sends.push_back({"worker", json{{"i", i}}});
                              return sends;
                            });
                            g.add_edge("worker", "reduce");
                            stream(g.compile(c.plain()), json{{"items", {1, 2, 3}}}, {}, {Mode::updates, Mode::values});
                          }}};

Register send_with_pull{{"send_with_pull", false, [](Ctx& c) {
                           sp::StateGraph g(trace_schema());
                           for (std::string n : {"a", "b", "z"}) g.add_node(n, tracer(n));
                           g.add_node("w", [](const sp::State& s) { return json{{"trace", {"w" + std::to_string(s.get<int>("n"))}}}; });
                           g.add_edge(sp::START, "a");
                           g.add_conditional_edges("a", [](const sp::State&) {
                             return sp::Route{sp::Send{"w", {{"n", 1}}}, sp::Send{"w", {{"n", 2}}}, std::string("z"),
                                              std::string("b")};
                           });
                           stream(g.compile(c.plain()), json{{"n", 0}}, {}, {Mode::updates, Mode::values});
                         }}};

Register command_goto{{"command_goto", false, [](Ctx& c) {
                         sp::StateGraph g(trace_schema());
                         g.add_node("a", [](const sp::State&) {
                           return sp::Command{.update = {{"trace", {"a"}}},
                                              .go_to = {std::string("b"), sp::Send{"c", {{"n", 7}}}}};
                         }, {.ends = {"b", "c"}});
                         g.add_node("b", tracer("b"));
                         g.add_node("c", [](const sp::State& s) { return json{{"trace", {"c" + std::to_string(s.get<int>("n"))}}}; });
                         g.add_edge(sp::START, "a");
                         stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                       }}};

Register recursion_limit{{"recursion_limit", false, [](Ctx& c) {
                            sp::StateGraph g(trace_schema());
                            g.add_node("a", [](const sp::State& s) { return json{{"n", s.get<int>("n") + 1}}; });
                            g.add_edge(sp::START, "a");
                            g.add_conditional_edges("a", [](const sp::State& s) { return s.get<int>("n") >= 4 ? sp::END : "a"; });
                            auto app = g.compile(c.plain());
                            invoke(app, json{{"n", 0}}, {.recursion_limit = 5});
                            stream(app, json{{"n", 0}}, {.recursion_limit = 4}, {Mode::updates});
                          }}};

Register retry_success{{"retry_success", false, [](Ctx& c) {
                          auto calls = std::make_shared<std::atomic<int>>(0);
                          sp::StateGraph g(trace_schema());
                          g.add_node("flaky", [calls](const sp::State&) {
                            int k = ++*calls;
                            if (k < 3) throw std::runtime_error("temporary outage");
                            return json{{"trace", {"ok" + std::to_string(k)}}};
                          }, {.retry = quick_retry(3)});
                          g.add_edge(sp::START, "flaky");
                          stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                        }}};

Register retry_exhausted{{"retry_exhausted", false, [](Ctx& c) {
                            auto calls = std::make_shared<std::atomic<int>>(0);
                            sp::StateGraph g(trace_schema());
                            g.add_node("a", tracer("a"));
                            g.add_node("flaky", [calls](const sp::State&) -> json {
                              ++*calls;
                              throw std::runtime_error("still down");
                            }, {.retry = quick_retry(2)});
                            g.add_edge(sp::START, "a").add_edge("a", "flaky");
                            stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                            emit(json{{"calls", calls->load()}});
                          }}};

Register failure_mid_step{{"failure_mid_step", false, [](Ctx& c) {
                             sp::StateGraph g(trace_schema());
                             g.add_node("boom", [](const sp::State&) -> json { throw std::runtime_error("boom"); });
                             g.add_node("ok", tracer("ok")).add_node("after", tracer("after"));
                             g.add_edge(sp::START, "boom").add_edge(sp::START, "ok").add_edge("ok", "after");
                             stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                           }}};

Register max_concurrency{{"max_concurrency", false, [](Ctx& c) {
                            sp::StateGraph g(trace_schema());
                            for (std::string n : {"p1", "p2", "p3", "p4", "p5"})
                              g.add_node(n, tracer(n)).add_edge(sp::START, n).add_edge(n, "end");
                            g.add_node("end", tracer("end"));
                            stream(g.compile(c.plain()), json{{"n", 1}}, {.max_concurrency = 2}, {Mode::updates, Mode::values});
                          }}};

Register defer{{"defer", false, [](Ctx& c) {
                  sp::StateGraph g(trace_schema());
                  for (std::string n : {"a", "a2", "b"}) g.add_node(n, tracer(n));
                  g.add_node("d", tracer("d"), {.defer = true});
                  g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("a", "a2").add_edge("a2", "d").add_edge("b", "d");
                  stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                  sp::StateGraph j(trace_schema());
                  for (std::string n : {"a", "b", "b2", "b3"}) j.add_node(n, tracer(n));
                  j.add_node("d", tracer("d"), {.defer = true});
                  j.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("b", "b2").add_edge("b2", "b3");
                  j.add_edge({"a", "b"}, "d");
                  stream(j.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                }}};

Register overwrite{{"overwrite", false, [](Ctx& c) {
                      sp::StateGraph g(trace_schema());
                      g.add_node("a", tracer("a"));
                      g.add_node("b", [](const sp::State&) { return json{{"trace", sp::Overwrite{json::array({"reset"})}}}; });
                      g.add_node("c", [](const sp::State&) { return json{{"trace", {{"__overwrite__", {"again"}}}}}; });
                      g.add_node("d", tracer("d"));
                      g.add_edge(sp::START, "a").add_edge("a", "b").add_edge("b", "c").add_edge("c", "d");
                      stream(g.compile(c.plain()), json{{"n", 1}, {"trace", {"in"}}}, {}, {Mode::values});
                    }}};

Register lastvalue_conflict{{"lastvalue_conflict", false, [](Ctx& c) {
                               sp::StateGraph g(trace_schema());
                               g.add_node("left", [](const sp::State&) { return json{{"n", 5}}; });
                               g.add_node("right", [](const sp::State&) { return json{{"n", 6}}; });
                               g.add_edge(sp::START, "left").add_edge(sp::START, "right");
                               stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::values});
                             }}};

Register unknown_key{{"unknown_key", false, [](Ctx& c) {
                        sp::StateGraph g(trace_schema());
                        g.add_node("plan", [](const sp::State&) { return json{{"totl", 1}, {"trace", {"plan"}}}; });
                        g.add_edge(sp::START, "plan");
                        stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                      }}};

Register command_input_plain{{"command_input_plain", false, [](Ctx& c) {
                                sp::StateGraph g(trace_schema());
                                g.add_node("a", tracer("a")).add_node("b", tracer("b"));
                                g.add_edge(sp::START, "a").add_edge("a", "b");
                                stream(g.compile(c.plain()), sp::Command{.update = {{"n", 3}}, .go_to = "b"}, {},
                                       {Mode::updates, Mode::values});
                              }}};

Register interrupt_plain{{"interrupt_plain", false, [](Ctx& c) {
                            sp::StateGraph g(trace_schema());
                            g.add_node("ask", [](const sp::State&, sp::Runtime& rt) {
                              return json{{"trace", {sp::interrupt(rt, "why?")}}};
                            });
                            g.add_edge(sp::START, "ask");
                            stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates});
                          }}};

Register add_messages_ids{{"add_messages_ids", false, [](Ctx& c) {
                             sp::StateSchema s;
                             s.field("messages", sp::reducers::add_messages,
                                     json{{"type", "human"}, {"content", "single"}});
                             sp::StateGraph g(s);
                             g.add_node("a", [](const sp::State&) {
                               return json{{"messages", {{{"type", "ai"}, {"content", "no id yet"}}}}};
                             });
                             g.add_node("b", [](const sp::State&) {
                               return json{{"messages", {{"type", "ai"}, {"content", "one, not a list"}}}};
                             });
                             g.add_edge(sp::START, "a").add_edge("a", "b");
                             stream(g.compile(c.plain()), json::object(), {}, {Mode::updates, Mode::values});
                           }}};

Register add_messages{{"add_messages", false, [](Ctx& c) {
                         sp::StateSchema s;
                         s.field("messages", sp::reducers::add_messages, json::array());
                         sp::StateGraph g(s);
                         g.add_node("a", [](const sp::State&) {
                           return json{{"messages", {{{"type", "ai"}, {"content", "hello"}, {"id", "m2"}}}}};
                         });
                         g.add_node("b", [](const sp::State&) {
                           return json{{"messages", {{{"type", "ai"}, {"content", "hello again"}, {"id", "m2"}},
                                                     json::array({"human", "pair"})}}};
                         });
                         g.add_node("c", [](const sp::State&) {
                           return json{{"messages", {{{"type", "remove"}, {"id", "m1"}}}}};
                         });
                         g.add_edge(sp::START, "a").add_edge("a", "b").add_edge("b", "c");
                         stream(g.compile(c.plain()),
                                json{{"messages", {{{"type", "human"}, {"content", "hi"}, {"id", "m1"}}}}}, {},
                                {Mode::updates, Mode::values});
                         sp::StateGraph e(s);
                         e.add_node("echo", [](const sp::State&) { return json{{"messages", "reply"}}; });
                         e.add_edge(sp::START, "echo");
                         stream(e.compile(c.plain()), json{{"messages", "just text"}}, {}, {Mode::updates, Mode::values});
                       }}};

}  // namespace
