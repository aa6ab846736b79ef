// Scenarios with a checkpointer: interrupts and resume, interrupt_before/after, failure and
// resume, update_state, history, time travel, subgraphs (js/<name>.mjs are their LangGraph.js
// twins). Each runs on every saver; the LangGraph.js side always runs on MemorySaver.
#include <atomic>

#include "transcript.hpp"

namespace {
using namespace diff;

using TUpdate = sp::Update<Trace>;
TUpdate trace_of(std::string s) { return TUpdate().set<&Trace::trace>(std::vector<std::string>{std::move(s)}); }

sp::StateGraph chain_graph(std::vector<std::string> names) {
  sp::StateGraph g(trace_schema());
  for (const auto& n : names) g.add_node(n, tracer(n));
  g.add_edge(sp::START, names[0]);
  for (std::size_t i = 0; i + 1 < names.size(); ++i) g.add_edge(names[i], names[i + 1]);
  return g;
}

void interrupt_resume_steps(const sp::CompiledStateGraph& app) {
  stream(app, json{{"n", 1}}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
  stream(app, sp::Command{.resume = "yes"}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
  history(app, thread());
}

Register interrupt_resume{{"interrupt_resume", true,
                           [](Ctx& c) {
                             sp::StateGraph g(trace_schema());
                             g.add_node("a", tracer("a")).add_node("c", tracer("c"));
                             g.add_node("ask", [](const sp::State&, sp::Runtime& rt) {
                               json answer = sp::interrupt(rt, json{{"question", "ship it?"}});
                               return json{{"trace", {"answer:" + answer.get<std::string>()}}};
                             });
                             g.add_edge(sp::START, "a").add_edge("a", "ask").add_edge("ask", "c");
                             interrupt_resume_steps(g.compile(c.opts()));
                           },
                           [](Ctx& c) {
                             sp::TypedStateGraph<Trace> g;
                             g.add_node("a", [](const Trace&) { return trace_of("a"); });
                             g.add_node("c", [](const Trace&) { return trace_of("c"); });
                             g.add_node("ask", [](const Trace&, sp::Runtime& rt) {
                               json answer = sp::interrupt(rt, json{{"question", "ship it?"}});
                               return trace_of("answer:" + answer.get<std::string>());
                             });
                             g.add_edge(sp::START, "a").add_edge("a", "ask").add_edge("ask", "c");
                             interrupt_resume_steps(g.compile(c.opts()).json_graph());
                           }}};

Register interrupt_by_id{{"interrupt_by_id", true, [](Ctx& c) {
                            sp::StateGraph g(trace_schema());
                            for (std::string n : {"x", "y"}) {
                              g.add_node(n, [n](const sp::State&, sp::Runtime& rt) {
                                return json{{"trace", {n + ":" + sp::interrupt(rt, "for " + n).get<std::string>()}}};
                              });
                              g.add_edge(sp::START, n);
                            }
                            auto app = g.compile(c.opts());
                            stream(app, json{{"n", 1}}, thread(), {Mode::updates});
                            state(app, thread());
                            std::map<std::string, std::string> ids;
                            for (const auto& t : app.get_state(thread()).tasks) ids[t.name] = t.interrupts.at(0).id;
                            stream(app, sp::Command{.resume = json{{ids["y"], "Y"}}}, thread(), {Mode::updates});
                            state(app, thread());
                            invoke(app, sp::Command{.resume = json{{ids["x"], "X"}}}, thread());
                          }}};

Register interrupt_twice{{"interrupt_twice", true, [](Ctx& c) {
                            sp::StateGraph g(trace_schema());
                            g.add_node("form", [](const sp::State&, sp::Runtime& rt) {
                              json name = sp::interrupt(rt, "name?");
                              json age = sp::interrupt(rt, "age?");
                              return json{{"trace", {name.get<std::string>() + "/" + age.dump()}}};
                            });
                            g.add_edge(sp::START, "form");
                            auto app = g.compile(c.opts());
                            stream(app, json{{"n", 1}}, thread(), {Mode::updates});
                            stream(app, sp::Command{.resume = "ada"}, thread(), {Mode::updates});
                            state(app, thread());
                            stream(app, sp::Command{.resume = 36}, thread(), {Mode::updates, Mode::values});
                          }}};

Register interrupt_before_after{{"interrupt_before_after", true, [](Ctx& c) {
                                   auto app = chain_graph({"a", "b", "c"})
                                                  .compile(c.opts({.interrupt_before = {"c"}, .interrupt_after = {"a"}}));
                                   stream(app, json{{"n", 1}}, thread(), {Mode::updates, Mode::values});
                                   state(app, thread());
                                   stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
                                   state(app, thread());
                                   stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
                                   state(app, thread());
                                 }}};

Register interrupt_per_call{{"interrupt_per_call", true, [](Ctx& c) {
                               auto app = chain_graph({"a", "b"}).compile(c.opts());
                               sp::RunConfig cfg = thread();
                               cfg.interrupt_before = std::vector<std::string>{"b"};
                               stream(app, json{{"n", 1}}, cfg, {Mode::updates});
                               state(app, thread());
                               stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
                             }}};

struct Runs {
  std::atomic<int> ok{0}, flaky{0};
};

Register failure_resume{{"failure_resume", true,
                         [](Ctx& c) {
                           auto runs = std::make_shared<Runs>();
                           sp::StateGraph g(trace_schema());
                           g.add_node("ok", [runs](const sp::State&) {
                             ++runs->ok;
                             return json{{"trace", {"ok"}}};
                           });
                           g.add_node("flaky", [runs](const sp::State&) {
                             if (++runs->flaky == 1) throw std::runtime_error("first time fails");
                             return json{{"trace", {"flaky"}}};
                           });
                           g.add_node("after", tracer("after"));
                           g.add_edge(sp::START, "ok").add_edge(sp::START, "flaky").add_edge({"ok", "flaky"}, "after");
                           auto app = g.compile(c.opts());
                           stream(app, json{{"n", 1}}, thread(), {Mode::values});
                           state(app, thread());
                           stream(app, json(nullptr), thread(), {Mode::values});
                           emit(json{{"okRuns", runs->ok.load()}, {"flakyRuns", runs->flaky.load()}});
                         },
                         [](Ctx& c) {
                           auto runs = std::make_shared<Runs>();
                           sp::TypedStateGraph<Trace> g;
                           g.add_node("ok", [runs](const Trace&) {
                             ++runs->ok;
                             return trace_of("ok");
                           });
                           g.add_node("flaky", [runs](const Trace&) {
                             if (++runs->flaky == 1) throw std::runtime_error("first time fails");
                             return trace_of("flaky");
                           });
                           g.add_node("after", [](const Trace&) { return trace_of("after"); });
                           g.add_edge(sp::START, "ok").add_edge(sp::START, "flaky").add_edge({"ok", "flaky"}, "after");
                           auto typed_app = g.compile(c.opts());
                           const auto& app = typed_app.json_graph();
                           stream(app, json{{"n", 1}}, thread(), {Mode::values});
                           state(app, thread());
                           stream(app, json(nullptr), thread(), {Mode::values});
                           emit(json{{"okRuns", runs->ok.load()}, {"flakyRuns", runs->flaky.load()}});
                         }}};

Register update_state_as_node{{"update_state_as_node", true, [](Ctx& c) {
                                 auto app = chain_graph({"a", "b", "c"}).compile(c.opts({.interrupt_before = {"b"}}));
                                 stream(app, json{{"n", 1}}, thread(), {Mode::updates});
                                 update(app, thread(), json{{"n", 42}, {"trace", {"edited"}}}, "a");
                                 state(app, thread());
                                 update(app, thread(), json{{"n", 43}});
                                 state(app, thread());
                                 stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
                               }}};

Register update_state_new_thread{{"update_state_new_thread", true, [](Ctx& c) {
                                    auto app = chain_graph({"a"}).compile(c.opts());
                                    update(app, thread(), json{{"n", 7}});
                                    state(app, thread());
                                    stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
                                    history(app, thread());
                                  }}};

sp::RunConfig at(const sp::StateSnapshot& s) {
  sp::RunConfig c = thread(s.config.thread_id);
  c.checkpoint_id = s.config.checkpoint_id;
  return c;
}

Register time_travel{{"time_travel", true, [](Ctx& c) {
                        auto app = chain_graph({"a", "b", "c"}).compile(c.opts());
                        stream(app, json{{"n", 1}}, thread(), {Mode::updates});
                        sp::RunConfig before_b;
                        for (const auto& s : app.get_state_history(thread()))
                          if (!s.next.empty() && s.next[0] == "b") before_b = at(s);
                        stream(app, json(nullptr), before_b, {Mode::updates, Mode::values});
                        history(app, thread());
                        auto forked = update(app, before_b, json{{"n", 99}});
                        if (forked) stream(app, json(nullptr), *forked, {Mode::updates, Mode::values});
                        state(app, thread());
                      }}};

Register history_filter{{"history_filter", true, [](Ctx& c) {
                           auto app = chain_graph({"a", "b"}).compile(c.opts());
                           invoke(app, json{{"n", 1}}, thread());
                           invoke(app, json{{"n", 2}}, thread());
                           history(app, thread(), json{{"source", "input"}});
                           history(app, thread(), nullptr, std::nullopt, 2);
                           auto all = app.get_state_history(thread());
                           history(app, thread(), nullptr, all.at(3).config.checkpoint_id, 3);
                         }}};

sp::TypedStateGraph<Trace> typed_chain(std::vector<std::string> names) {
  sp::TypedStateGraph<Trace> g;
  for (const auto& n : names) g.add_node(n, [n](const Trace&) { return trace_of(n); });
  g.add_edge(sp::START, names[0]);
  for (std::size_t i = 0; i + 1 < names.size(); ++i) g.add_edge(names[i], names[i + 1]);
  return g;
}

void resume_finished_steps(const sp::CompiledStateGraph& app) {
  invoke(app, json{{"n", 1}}, thread());
  invoke(app, json(nullptr), thread());
  invoke(app, sp::Command{.resume = "late"}, thread());
}

Register resume_finished{{"resume_finished", true,
                          [](Ctx& c) { resume_finished_steps(chain_graph({"a"}).compile(c.opts())); },
                          [](Ctx& c) { resume_finished_steps(typed_chain({"a"}).compile(c.opts()).json_graph()); }}};

Register send_interrupt{{"send_interrupt", true, [](Ctx& c) {
                           sp::StateGraph g(trace_schema());
                           g.add_node("w", [](const sp::State& s, sp::Runtime& rt) {
                             int n = s.get<int>("n");
                             if (n == 2) return json{{"trace", {"w2:" + sp::interrupt(rt, "need input for 2").get<std::string>()}}};
                             return json{{"trace", {"w" + std::to_string(n)}}};
                           });
                           g.add_conditional_edges(sp::START, [](const sp::State&) {
                             std::vector<sp::Send> sends;
                             for (int n : {1, 2, 3}) sends.push_back({"w", json{{"n", n}}});
                             return sends;
                           });
                           auto app = g.compile(c.opts());
                           stream(app, json{{"n", 0}}, thread(), {Mode::updates, Mode::values});
                           state(app, thread());
                           stream(app, sp::Command{.resume = "ok"}, thread(), {Mode::updates, Mode::values});
                         }}};

void command_input_steps(const sp::CompiledStateGraph& app) {
  invoke(app, json{{"n", 1}}, thread());
  stream(app, sp::Command{.update = {{"n", 5}}, .go_to = "b"}, thread(), {Mode::updates, Mode::values});
  state(app, thread());
}

Register command_input{{"command_input", true,
                        [](Ctx& c) { command_input_steps(chain_graph({"a", "b"}).compile(c.opts())); },
                        [](Ctx& c) { command_input_steps(typed_chain({"a", "b"}).compile(c.opts()).json_graph()); }}};

Register new_input_on_paused{{"new_input_on_paused", true, [](Ctx& c) {
                                sp::StateGraph g(trace_schema());
                                g.add_node("a", tracer("a"));
                                g.add_node("ask", [](const sp::State&, sp::Runtime& rt) {
                                  return json{{"trace", {sp::interrupt(rt, "q")}}};
                                });
                                g.add_edge(sp::START, "a").add_edge("a", "ask");
                                auto app = g.compile(c.opts());
                                stream(app, json{{"n", 1}}, thread(), {Mode::updates});
                                stream(app, json{{"n", 2}}, thread(), {Mode::updates, Mode::values});
                                state(app, thread());
                              }}};

// Subgraphs are compiled with default options (the shared pool): a subgraph run waits for its
// own tasks, which the parent's one-worker pool could not run meanwhile.
Register subgraph_stream{{"subgraph_stream", true, [](Ctx& c) {
                            auto sub = chain_graph({"s1", "s2"}).compile();
                            sp::StateGraph g(trace_schema());
                            g.add_node("a", tracer("a")).add_node("sub", sub).add_node("z", tracer("z"));
                            g.add_edge(sp::START, "a").add_edge("a", "sub").add_edge("sub", "z");
                            auto app = g.compile({.checkpointer = c.saver});
                            sp::RunConfig cfg = thread();
                            cfg.subgraphs = true;
                            stream(app, json{{"n", 1}}, cfg, {Mode::updates, Mode::values});
                            stream(app, json{{"n", 2}}, thread(), {Mode::updates});
                            state(app, thread());
                          }}};

Register subgraph_interrupt{{"subgraph_interrupt", true, [](Ctx& c) {
                               sp::StateGraph s(trace_schema());
                               s.add_node("s1", tracer("s1"));
                               s.add_node("ask", [](const sp::State&, sp::Runtime& rt) {
                                 return json{{"trace", {"sub:" + sp::interrupt(rt, "inner question").get<std::string>()}}};
                               });
                               s.add_edge(sp::START, "s1").add_edge("s1", "ask");
                               sp::StateGraph g(trace_schema());
                               g.add_node("a", tracer("a")).add_node("sub", s.compile()).add_node("z", tracer("z"));
                               g.add_edge(sp::START, "a").add_edge("a", "sub").add_edge("sub", "z");
                               auto app = g.compile({.checkpointer = c.saver});
                               sp::RunConfig cfg = thread();
                               cfg.subgraphs = true;
                               stream(app, json{{"n", 1}}, cfg, {Mode::updates});
                               state(app, thread(), true);
                               stream(app, sp::Command{.resume = "fine"}, thread(), {Mode::updates, Mode::values});
                               state(app, thread());
                             }}};

Register subgraph_interrupt_before{{"subgraph_interrupt_before", true, [](Ctx& c) {
                                      auto sub = chain_graph({"s1", "s2"}).compile({.interrupt_before = {"s2"}});
                                      sp::StateGraph g(trace_schema());
                                      g.add_node("sub", sub).add_node("z", tracer("z"));
                                      g.add_edge(sp::START, "sub").add_edge("sub", "z");
                                      auto app = g.compile({.checkpointer = c.saver});
                                      stream(app, json{{"n", 1}}, thread(), {Mode::updates, Mode::values});
                                      state(app, thread());
                                      stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
                                    }}};

Register command_parent{{"command_parent", false, [](Ctx&) {
                           sp::StateGraph s(trace_schema());
                           s.add_node("s1", tracer("s1")).add_node("s3", tracer("s3"));
                           s.add_node("jump", [](const sp::State&) {
                             return sp::Command{.update = {{"trace", {"jump"}}}, .go_to = "target", .graph = sp::Command::PARENT};
                           });
                           s.add_edge(sp::START, "s1").add_edge("s1", "jump").add_edge("jump", "s3");
                           sp::StateGraph g(trace_schema());
                           g.add_node("sub", s.compile(), {.ends = {"target"}}).add_node("target", tracer("target"));
                           g.add_edge(sp::START, "sub");
                           stream(g.compile(), json{{"n", 1}}, {}, {Mode::updates, Mode::values});
                         }}};

}  // namespace
