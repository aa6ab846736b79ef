// More control flow, Command and interrupt scenarios: resume with update, goto END, Sends that
// return Commands, several interrupts resumed by a map, update_state around interrupts and
// conditional edges, remaining steps and the recursion limit (also on resume), retries beside a
// failing sibling and retry_on, defer after Sends, empty updates, END among router results,
// null input on a new thread, a new input after a failure, debug/tasks on failure and updates on
// an interrupt (js/<name>.mjs are their LangGraph.js twins).
#include <atomic>
#include <map>

#include "transcript.hpp"

namespace {
using namespace diff;


sp::RunConfig limited(const std::string& id, int limit) {
  sp::RunConfig c = thread(id);
  c.recursion_limit = limit;
  return c;
}

/// a -> ask -> c (ask_graph) on the scenario's saver.
sp::CompiledStateGraph ask_chain(Ctx& c) { return ask_graph().compile(c.opts()); }

Register resume_with_update{{"resume_with_update", true, [](Ctx& c) {
                               auto app = ask_chain(c);
                               stream(app, json{{"n", 1}}, thread(), {Mode::updates, Mode::values});
                               stream(app, sp::Command{.update = {{"n", 5}, {"trace", {"upd"}}}, .resume = "yes"}, thread(),
                                      {Mode::updates, Mode::values});
                               state(app, thread());
                             }}};

Register command_goto_end{{"command_goto_end", false, [](Ctx& c) {
                             sp::StateGraph g(trace_schema());
                             g.add_node("a", [](const sp::State&) {
                               return sp::Command{.update = {{"trace", {"a"}}}, .go_to = sp::END};
                             }, {.ends = {"b"}});
                             g.add_node("b", tracer("b"));
                             g.add_edge(sp::START, "a");
                             stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                             sp::StateGraph g2(trace_schema());
                             g2.add_node("a", [](const sp::State&) {
                               return sp::Command{.update = {{"trace", {"a"}}}, .go_to = sp::END};
                             });
                             g2.add_node("b", tracer("b"));
                             g2.add_edge(sp::START, "a").add_edge("a", "b");
                             stream(g2.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                             sp::StateGraph g3(trace_schema());
                             g3.add_node("a", [](const sp::State&) {
                               return sp::Command{.update = {{"trace", {"a"}}},
                                                  .go_to = {sp::Send{"w", {{"n", 2}}}, std::string("b"), sp::END,
                                                            sp::Send{"w", {{"n", 3}}}}};
                             }, {.ends = {"b", "w"}});
                             g3.add_node("b", tracer("b"));
                             g3.add_node("w", [](const sp::State& s) { return json{{"trace", {"w" + n_of(s)}}}; });
                             g3.add_edge(sp::START, "a");
                             stream(g3.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                           }}};

Register send_command{{"send_command", false, [](Ctx& c) {
                         sp::StateGraph g(trace_schema());
                         g.add_node("w", [](const sp::State& s) {
                           int n = s.get<int>("n");
                           sp::Route to = n == 1 ? sp::Route("odd")
                                                 : sp::Route{std::string("even"), sp::Send{"w2", {{"n", n * 10}}}};
                           return sp::Command{.update = {{"trace", {"w" + std::to_string(n)}}}, .go_to = to};
                         }, {.ends = {"odd", "even", "w2"}});
                         g.add_node("odd", tracer("odd")).add_node("even", tracer("even"));
                         g.add_node("w2", [](const sp::State& s) { return json{{"trace", {"w2:" + n_of(s)}}}; });
                         g.add_conditional_edges(sp::START, [](const sp::State&) {
                           return std::vector<sp::Send>{{"w", {{"n", 1}}}, {"w", {{"n", 2}}}};
                         });
                         stream(g.compile(c.plain()), json{{"n", 0}}, {}, {Mode::updates, Mode::values});
                       }}};

sp::NodeFn asker(const std::string& n) {
  return [n](const sp::State&, sp::Runtime& rt) {
    return json{{"trace", {n + ":" + sp::interrupt(rt, "for " + n).get<std::string>()}}};
  };
}

Register parallel_resume_map{{"parallel_resume_map", true, [](Ctx& c) {
                                sp::StateGraph g(trace_schema());
                                g.add_node("x", asker("x")).add_node("y", asker("y"));
                                g.add_node("z", tracer("z")).add_node("j", tracer("j"));
                                g.add_edge(sp::START, "x").add_edge(sp::START, "y").add_edge(sp::START, "z");
                                g.add_edge({"x", "y"}, "j");
                                auto app = g.compile(c.opts());
                                stream(app, json{{"n", 1}}, thread(), {Mode::updates, Mode::values});
                                std::map<std::string, std::string> ids;
                                for (const auto& t : app.get_state(thread()).tasks)
                                  if (!t.interrupts.empty()) ids[t.name] = t.interrupts[0].id;
                                stream(app, sp::Command{.resume = json{{ids["x"], "X"}, {ids["y"], "Y"}}}, thread(),
                                       {Mode::updates, Mode::values});
                                state(app, thread());
                              }}};

Register send_interrupts_map{{"send_interrupts_map", true, [](Ctx& c) {
                                sp::StateGraph g(trace_schema());
                                g.add_node("w", [](const sp::State& s, sp::Runtime& rt) {
                                  int n = s.get<int>("n");
                                  if (n == 2) return json{{"trace", {"w2"}}};
                                  std::string v = sp::interrupt(rt, "need " + std::to_string(n)).get<std::string>();
                                  return json{{"trace", {"w" + std::to_string(n) + ":" + v}}};
                                });
                                g.add_node("z", tracer("z"));
                                g.add_conditional_edges(sp::START, [](const sp::State&) {
                                  std::vector<sp::Send> sends;
                                  for (int n : {1, 2, 3}) sends.push_back({"w", json{{"n", n}}});
                                  return sends;
                                });
                                g.add_edge("w", "z");
                                auto app = g.compile(c.opts());
                                auto ids_of = [&](const std::string& t) {
                                  std::map<std::string, std::string> ids;
                                  for (const auto& task : app.get_state(thread(t)).tasks)
                                    for (const auto& i : task.interrupts) ids[i.value.get<std::string>()] = i.id;
                                  return ids;
                                };
                                stream(app, json{{"n", 0}}, thread("t1"), {Mode::updates});
                                auto ids = ids_of("t1");
                                stream(app, sp::Command{.resume = json{{ids["need 3"], "C"}}}, thread("t1"),
                                       {Mode::updates, Mode::values});
                                state(app, thread("t1"));
                                stream(app, sp::Command{.resume = json{{ids["need 1"], "A"}}}, thread("t1"),
                                       {Mode::updates, Mode::values});
                                state(app, thread("t1"));
                                stream(app, json{{"n", 0}}, thread("t2"), {Mode::updates});
                                ids = ids_of("t2");
                                stream(app, sp::Command{.resume = json{{ids["need 1"], "A"}, {ids["need 3"], "C"}}},
                                       thread("t2"), {Mode::updates, Mode::values});
                                state(app, thread("t2"));
                              }}};

Register interrupt_update_resume{{"interrupt_update_resume", true, [](Ctx& c) {
                                    auto app = ask_chain(c);
                                    stream(app, json{{"n", 1}}, thread("t1"), {Mode::updates});
                                    update(app, thread("t1"), json{{"n", 5}});
                                    state(app, thread("t1"));
                                    stream(app, sp::Command{.resume = "yes"}, thread("t1"), {Mode::updates, Mode::values});
                                    stream(app, json{{"n", 1}}, thread("t2"), {Mode::updates});
                                    update(app, thread("t2"), json{{"trace", {"manual"}}, {"n", 9}}, "ask");
                                    state(app, thread("t2"));
                                    stream(app, json(nullptr), thread("t2"), {Mode::updates, Mode::values});
                                    state(app, thread("t2"));
                                  }}};

Register update_state_conditional{{"update_state_conditional", true, [](Ctx& c) {
                                     sp::StateGraph g(trace_schema());
                                     for (std::string n : {"r", "x", "y"}) g.add_node(n, tracer(n));
                                     g.add_edge(sp::START, "r");
                                     g.add_conditional_edges("r", [](const sp::State& s) -> sp::Route {
                                       int n = s.get<int>("n");
                                       if (n > 10) return "x";
                                       if (n < 0) return sp::END;
                                       return "y";
                                     });
                                     auto app = g.compile(c.opts());
                                     invoke(app, json{{"n", 1}}, thread("t1"));
                                     update(app, thread("t1"), json{{"n", 42}}, "r");
                                     state(app, thread("t1"));
                                     stream(app, json(nullptr), thread("t1"), {Mode::updates, Mode::values});
                                     invoke(app, json{{"n", 1}}, thread("t2"));
                                     update(app, thread("t2"), json{{"n", -1}}, "r");
                                     state(app, thread("t2"));
                                     update(app, thread("t3"), json{{"n", 5}}, "r");
                                     state(app, thread("t3"));
                                     stream(app, json(nullptr), thread("t3"), {Mode::updates, Mode::values});
                                   }}};

Register remaining_steps{{"remaining_steps", true, [](Ctx& c) {
                            sp::StateGraph g(trace_schema());
                            g.add_node("gate", [](const sp::State& s, sp::Runtime& rt) {
                              std::string v = s.get<int>("n") == 1 ? sp::interrupt(rt, "go?").get<std::string>() : "-";
                              return json{{"trace", {"gate:" + v}}};
                            });
                            g.add_node("a", [](const sp::State&, sp::Runtime& rt) {
                              auto r = rt.remaining_steps();
                              return json{{"trace", {"r" + std::to_string(r)}}, {"n", r}};
                            });
                            g.add_edge(sp::START, "gate").add_edge("gate", "a");
                            g.add_conditional_edges("a", [](const sp::State& s) { return s.get<int>("n") <= 2 ? sp::END : "a"; });
                            auto app = g.compile(c.opts());
                            stream(app, json{{"n", 0}}, limited("t1", 6), {Mode::updates});
                            stream(app, json{{"n", 0}}, limited("t1", 7), {Mode::updates});
                            stream(app, json{{"n", 1}}, limited("t2", 8), {Mode::updates});
                            stream(app, sp::Command{.resume = "go"}, limited("t2", 6), {Mode::updates});
                          }}};

Register recursion_parallel{{"recursion_parallel", true, [](Ctx& c) {
                               sp::StateGraph g(trace_schema());
                               for (std::string n : {"a", "a2", "a3", "a4", "b", "b2"}) g.add_node(n, tracer(n));
                               g.add_edge(sp::START, "a").add_edge(sp::START, "b").add_edge("a", "a2").add_edge("a2", "a3");
                               g.add_edge("a3", "a4").add_edge("b", "b2");
                               auto plain = g.compile(c.plain());
                               stream(plain, json{{"n", 1}}, {.recursion_limit = 3}, {Mode::updates});
                               stream(plain, json{{"n", 1}}, {.recursion_limit = 4}, {Mode::updates});
                               auto app = g.compile(c.opts({.interrupt_before = {"a2"}}));
                               stream(app, json{{"n", 1}}, thread("t1"), {Mode::updates});
                               stream(app, json(nullptr), limited("t1", 2), {Mode::updates});
                               state(app, thread("t1"));
                               stream(app, json{{"n", 1}}, thread("t2"), {Mode::updates});
                               stream(app, json(nullptr), limited("t2", 1), {Mode::updates});
                               state(app, thread("t2"));
                             }}};

struct Calls {
  std::atomic<int> flaky{0}, ok{0}, picky{0};
  json to_json() const { return json{{"flaky", flaky.load()}, {"ok", ok.load()}, {"picky", picky.load()}}; }
};

Register retry_sibling{{"retry_sibling", false, [](Ctx& c) {
                          auto calls = std::make_shared<Calls>();
                          sp::StateGraph g(trace_schema());
                          g.add_node("ok", [calls](const sp::State&) {
                            ++calls->ok;
                            return json{{"trace", {"ok"}}};
                          });
                          g.add_node("flaky", [calls](const sp::State&) -> json {
                            int k = ++calls->flaky;
                            throw std::runtime_error("down " + std::to_string(k));
                          }, {.retry = quick_retry(3)});
                          g.add_node("after", tracer("after"));
                          g.add_edge(sp::START, "ok").add_edge(sp::START, "flaky").add_edge("ok", "after");
                          stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                          emit(calls->to_json());
                          sp::StateGraph g2(trace_schema());
                          sp::RetryPolicy picky_retry = quick_retry(5);
                          picky_retry.retry_on = [](std::exception_ptr e) {
                            try {
                              std::rethrow_exception(e);
                            } catch (const std::runtime_error& err) {
                              return std::string(err.what()) == "transient";
                            } catch (...) {
                              return false;
                            }
                          };
                          g2.add_node("picky", [calls](const sp::State&) -> json {
                            int k = ++calls->picky;
                            if (k < 3) throw std::runtime_error(k == 1 ? "transient" : "fatal");
                            return json{{"trace", {"picky"}}};
                          }, {.retry = picky_retry});
                          g2.add_edge(sp::START, "picky");
                          stream(g2.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                          emit(calls->to_json());
                        }}};

Register defer_send{{"defer_send", false, [](Ctx& c) {
                       sp::StateGraph g(trace_schema());
                       g.add_node("fan", tracer("fan"));
                       g.add_node("w", [](const sp::State& s) { return json{{"trace", {"w" + n_of(s)}}}; });
                       g.add_node("long1", tracer("long1")).add_node("long2", tracer("long2"));
                       g.add_node("final", tracer("final"), {.defer = true});
                       g.add_edge(sp::START, "fan");
                       g.add_conditional_edges("fan", [](const sp::State&) {
                         return sp::Route{sp::Send{"w", {{"n", 1}}}, sp::Send{"w", {{"n", 2}}}, std::string("long1")};
                       });
                       g.add_edge("long1", "long2").add_edge("long2", "final").add_edge("w", "final");
                       stream(g.compile(c.plain()), json{{"n", 0}}, {}, {Mode::updates, Mode::values});
                     }}};

Register node_returns_empty{{"node_returns_empty", false, [](Ctx& c) {
                               sp::StateGraph g(trace_schema());
                               g.add_node("empty", [](const sp::State&) { return json::object(); });
                               g.add_node("w", tracer("w")).add_node("after", tracer("after"));
                               g.add_edge(sp::START, "empty").add_edge(sp::START, "w").add_edge("empty", "after");
                               stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                               sp::StateGraph solo(trace_schema());
                               solo.add_node("empty", [](const sp::State&) { return json::object(); });
                               solo.add_edge(sp::START, "empty");
                               auto app = solo.compile(c.plain());
                               stream(app, json{{"n", 1}}, {}, {Mode::updates, Mode::values, Mode::tasks});
                               invoke(app, json{{"n", 2}});
                             }}};

Register conditional_end_with_nodes{{"conditional_end_with_nodes", false, [](Ctx& c) {
                                       sp::StateGraph g(trace_schema());
                                       for (std::string n : {"r", "x", "y"}) g.add_node(n, tracer(n));
                                       g.add_edge(sp::START, "r");
                                       g.add_conditional_edges("r", [](const sp::State& s) -> sp::Route {
                                         int n = s.get<int>("n");
                                         if (n == 1) return std::vector<std::string>{sp::END, "x", "y"};
                                         if (n == 2) return std::vector<std::string>{"x", sp::END};
                                         return std::vector<std::string>{sp::END};
                                       });
                                       auto app = g.compile(c.plain());
                                       for (int n : {1, 2, 3}) stream(app, json{{"n", n}}, {}, {Mode::updates, Mode::values});
                                     }}};

Register null_input_fresh{{"null_input_fresh", true, [](Ctx& c) {
                             sp::StateGraph g(trace_schema());
                             g.add_node("a", tracer("a"));
                             g.add_edge(sp::START, "a");
                             auto app = g.compile(c.opts());
                             invoke(app, json(nullptr), thread("fresh"));
                             stream(app, json(nullptr), thread("fresh2"), {Mode::updates, Mode::values});
                             state(app, thread("fresh"));
                             invoke(g.compile(c.plain()), json(nullptr));
                           }}};

Register input_after_failure{{"input_after_failure", true, [](Ctx& c) {
                                auto calls = std::make_shared<std::atomic<int>>(0);
                                sp::StateGraph g(trace_schema());
                                g.add_node("a", tracer("a"));
                                g.add_node("flaky", [calls](const sp::State& s) {
                                  ++*calls;
                                  if (s.get<int>("n") == 1) throw std::runtime_error("n is 1");
                                  return json{{"trace", {"flaky" + n_of(s)}}};
                                });
                                g.add_node("z", tracer("z"));
                                g.add_edge(sp::START, "a").add_edge("a", "flaky").add_edge("flaky", "z");
                                auto app = g.compile(c.opts());
                                stream(app, json{{"n", 1}}, thread("t1"), {Mode::updates});
                                state(app, thread("t1"));
                                stream(app, json{{"n", 2}}, thread("t1"), {Mode::updates, Mode::values});
                                state(app, thread("t1"));
                                emit(json{{"calls", calls->load()}});
                              }}};

Register failure_debug_tasks{{"failure_debug_tasks", true, [](Ctx& c) {
                                sp::StateGraph g(trace_schema());
                                g.add_node("a", tracer("a"));
                                g.add_node("boom", [](const sp::State&) -> json { throw std::runtime_error("boom"); });
                                g.add_edge(sp::START, "a").add_edge("a", "boom");
                                stream(g.compile(c.opts()), json{{"n", 1}}, thread("t1"), {Mode::debug});
                                stream(g.compile(c.opts()), json{{"n", 1}}, thread("t2"), {Mode::tasks});
                                stream(g.compile(c.plain()), json{{"n", 1}}, {}, {Mode::tasks});
                              }}};

struct EmptyCalls {
  std::atomic<int> e{0}, e2{0};
  json to_json() const { return json{{"e", e.load()}, {"e2", e2.load()}}; }
};

Register updates_interrupt{{"updates_interrupt", true, [](Ctx& c) {
                              auto calls = std::make_shared<EmptyCalls>();
                              sp::StateGraph g(trace_schema());
                              g.add_node("ask", [](const sp::State&, sp::Runtime& rt) {
                                return json{{"trace", {"ask:" + sp::interrupt(rt, json{{"q", "ok?"}}).get<std::string>()}}};
                              });
                              g.add_node("w", tracer("w"));
                              g.add_node("e", [calls](const sp::State&) {
                                ++calls->e;
                                return json::object();
                              });
                              g.add_node("e2", [calls](const sp::State&) {
                                ++calls->e2;
                                return json::object();
                              });
                              g.add_node("f", tracer("f"));
                              // LangGraph.js lists a snapshot's tasks in the order the nodes were added (name order in js/).
                              g.add_edge(sp::START, "ask").add_edge(sp::START, "e").add_edge(sp::START, "e2");
                              g.add_edge(sp::START, "w").add_edge("e2", "f");
                              auto app = g.compile(c.opts());
                              stream(app, json{{"n", 1}}, thread("t1"), {Mode::updates});
                              emit(calls->to_json());
                              state(app, thread("t1"));
                              stream(app, sp::Command{.resume = "fine"}, thread("t1"), {Mode::updates});
                              emit(calls->to_json());
                              invoke(app, json{{"n", 1}}, thread("t2"));
                              invoke(app, sp::Command{.resume = "fine"}, thread("t2"));
                              emit(calls->to_json());
                            }}};

}  // namespace

namespace {
using namespace diff;

Register resume_with_goto{{"resume_with_goto", true, [](Ctx& c) {
                             sp::StateGraph g(trace_schema());
                             g.add_node("a", tracer("a"));
                             g.add_node("ask", [](const sp::State&, sp::Runtime& rt) {
                               return json{{"trace", {"ask:" + sp::interrupt(rt, "q").get<std::string>()}}};
                             });
                             g.add_node("c", tracer("c")).add_node("side", tracer("side"));
                             g.add_edge(sp::START, "a").add_edge("a", "ask").add_edge("ask", "c").add_edge("c", "side");
                             auto app = g.compile(c.opts());
                             stream(app, json{{"n", 1}}, thread(), {Mode::updates});
                             stream(app, sp::Command{.go_to = "side", .resume = "yes"}, thread(), {Mode::updates, Mode::values});
                             state(app, thread());
                           }}};

Register no_writes_resume_modes{{"no_writes_resume_modes", true, [](Ctx& c) {
                                   sp::StateGraph g(trace_schema());
                                   g.add_node("quiet", [](const sp::State&) { return json::object(); });
                                   g.add_node("ask", [](const sp::State&, sp::Runtime& rt) {
                                     return json{{"trace", {"ask:" + sp::interrupt(rt, "q").get<std::string>()}}};
                                   });
                                   g.add_node("z", tracer("z"));
                                   g.add_edge(sp::START, "quiet").add_edge(sp::START, "ask").add_edge({"quiet", "ask"}, "z");
                                   auto app = g.compile(c.opts());
                                   stream(app, json{{"n", 1}}, thread(), {Mode::checkpoints, Mode::tasks});
                                   state(app, thread());
                                   stream(app, sp::Command{.resume = "r"}, thread(), {Mode::checkpoints, Mode::tasks});
                                   history(app, thread());
                                   stream(app, json{{"n", 1}}, thread("t2"), {Mode::debug});
                                   stream(app, sp::Command{.resume = "r"}, thread("t2"), {Mode::debug});
                                 }}};

}  // namespace
