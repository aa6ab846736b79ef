// More persistence and time travel scenarios: durability exit/sync/async and the history they
// leave (also around an interrupt), interrupt_before/after "*" stepped with null input, forks by
// update_state as a node at a past checkpoint, get_state on a past checkpoint with pending
// writes, a new input and null input at past checkpoints, a resume at a past paused checkpoint,
// two interrupts in one node answered one at a time, update_state while a Send is paused and
// with null values, history filters combined with before and limit, streaming a resume right
// after update_state, a failure under durability exit, a "__copy__" fork and bulk_update_state
// (js/<name>.mjs are their LangGraph.js twins).
#include <atomic>
#include <stdexcept>

#include "transcript.hpp"

namespace {
using namespace diff;

sp::StateGraph chain(std::vector<std::string> names) {
  sp::StateGraph g(trace_schema());
  for (const auto& n : names) g.add_node(n, tracer(n));
  g.add_edge(sp::START, names[0]);
  for (std::size_t i = 0; i + 1 < names.size(); ++i) g.add_edge(names[i], names[i + 1]);
  return g;
}


/// a -> (b, c) -> d: a fan-out and a join.
sp::StateGraph diamond() {
  sp::StateGraph g(trace_schema());
  for (std::string n : {"a", "b", "c", "d"}) g.add_node(n, tracer(n));
  g.add_edge(sp::START, "a").add_edge("a", "b").add_edge("a", "c").add_edge({"b", "c"}, "d");
  return g;
}

sp::RunConfig with(sp::RunConfig c, sp::Durability d) {
  c.durability = d;
  return c;
}

sp::RunConfig at(const sp::StateSnapshot& s) {
  sp::RunConfig c = thread(s.config.thread_id);
  c.checkpoint_id = s.config.checkpoint_id;
  return c;
}

/// The history's first (newest) snapshot whose `next` is exactly `next`.
sp::RunConfig find_next(const sp::CompiledStateGraph& app, const sp::RunConfig& cfg, std::vector<std::string> next) {
  for (const auto& s : app.get_state_history(cfg))
    if (s.next == next) return at(s);
  return cfg;
}

Register px_durability_exit{{"px_durability_exit", true, [](Ctx& c) {
                               auto app = chain({"a", "b", "c"}).compile(c.opts());
                               stream(app, json{{"n", 1}}, with(thread(), sp::Durability::exit),
                                      {Mode::updates, Mode::values});
                               history(app, thread());
                               stream(app, json{{"n", 2}}, with(thread(), sp::Durability::exit), {Mode::updates});
                               history(app, thread());
                               state(app, thread());
                             }}};

Register px_durability_exit_interrupt{{"px_durability_exit_interrupt", true, [](Ctx& c) {
                                         auto app = ask_graph().compile(c.opts());
                                         auto cfg = with(thread(), sp::Durability::exit);
                                         stream(app, json{{"n", 1}}, cfg, {Mode::updates});
                                         state(app, thread());
                                         history(app, thread());
                                         stream(app, sp::Command{.resume = "yes"}, cfg, {Mode::updates, Mode::values});
                                         history(app, thread());
                                       }}};

Register px_durability_sync_async{{"px_durability_sync_async", true, [](Ctx& c) {
                                     auto app = chain({"a", "b", "c"}).compile(c.opts({.interrupt_before = {"b"}}));
                                     for (auto [id, d] : {std::pair{"t1", sp::Durability::sync},
                                                          std::pair{"t2", sp::Durability::async}}) {
                                       stream(app, json{{"n", 1}}, with(thread(id), d), {Mode::updates});
                                       history(app, thread(id));
                                       stream(app, json(nullptr), with(thread(id), d), {Mode::updates, Mode::values});
                                       history(app, thread(id));
                                     }
                                   }}};

Register px_interrupt_before_star{{"px_interrupt_before_star", true, [](Ctx& c) {
                                     auto app = diamond().compile(c.opts({.interrupt_before = {"*"}}));
                                     stream(app, json{{"n", 1}}, thread(), {Mode::updates});
                                     state(app, thread());
                                     for (int i = 0; i < 3; ++i) {
                                       stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
                                       state(app, thread());
                                     }
                                     history(app, thread());
                                   }}};

Register px_interrupt_after_star{{"px_interrupt_after_star", true, [](Ctx& c) {
                                    auto app = diamond().compile(c.opts());
                                    auto cfg = thread();
                                    cfg.interrupt_after = std::vector<std::string>{"*"};
                                    stream(app, json{{"n", 1}}, cfg, {Mode::updates});
                                    state(app, thread());
                                    stream(app, json(nullptr), cfg, {Mode::updates, Mode::values});
                                    state(app, thread());
                                    stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
                                    state(app, thread());
                                  }}};

Register px_fork_as_node{{"px_fork_as_node", true, [](Ctx& c) {
                            auto app = chain({"a", "b", "c"}).compile(c.opts());
                            invoke(app, json{{"n", 1}}, thread());
                            auto before_b = find_next(app, thread(), {"b"});
                            auto forked = update(app, before_b, json{{"trace", {"fork-b"}}, {"n", 2}}, "b");
                            if (forked) state(app, *forked);
                            if (forked) stream(app, json(nullptr), *forked, {Mode::updates, Mode::values});
                            history(app, thread());
                            state(app, before_b);
                          }}};

Register px_past_pending_writes{{"px_past_pending_writes", true, [](Ctx& c) {
                                   sp::StateGraph g(trace_schema());
                                   g.add_node("x", tracer("x"));
                                   g.add_node("y", [](const sp::State&, sp::Runtime& rt) {
                                     return json{{"trace", {"y:" + sp::interrupt(rt, "for y").get<std::string>()}}};
                                   });
                                   g.add_node("z", tracer("z"));
                                   g.add_edge(sp::START, "x").add_edge(sp::START, "y").add_edge({"x", "y"}, "z");
                                   auto app = g.compile(c.opts());
                                   stream(app, json{{"n", 1}}, thread(), {Mode::updates});
                                   auto paused = at(app.get_state(thread()));
                                   stream(app, sp::Command{.resume = "Y"}, thread(), {Mode::updates});
                                   state(app, paused);
                                   history(app, thread());
                                 }}};

Register px_new_input_at_past{{"px_new_input_at_past", true, [](Ctx& c) {
                                 auto app = chain({"a", "b"}).compile(c.opts());
                                 invoke(app, json{{"n", 1}}, thread());
                                 auto before_b = find_next(app, thread(), {"b"});
                                 stream(app, json{{"n", 7}, {"trace", {"in"}}}, before_b, {Mode::updates, Mode::values});
                                 history(app, thread());
                                 state(app, thread());
                               }}};

Register px_null_input_past{{"px_null_input_past", true, [](Ctx& c) {
                               auto app = chain({"a", "b", "c"}).compile(c.opts());
                               invoke(app, json{{"n", 1}}, thread());
                               auto input = find_next(app, thread(), {"__start__"});
                               auto before_c = find_next(app, thread(), {"c"});
                               stream(app, json(nullptr), input, {Mode::updates, Mode::values});
                               stream(app, json(nullptr), before_c, {Mode::updates, Mode::values});
                               history(app, thread());
                             }}};

Register px_resume_past_pause{{"px_resume_past_pause", true, [](Ctx& c) {
                                 auto app = ask_graph().compile(c.opts());
                                 stream(app, json{{"n", 1}}, thread(), {Mode::updates});
                                 auto paused = at(app.get_state(thread()));
                                 stream(app, sp::Command{.resume = "first"}, thread(), {Mode::updates});
                                 stream(app, sp::Command{.resume = "second"}, paused, {Mode::updates, Mode::values});
                                 state(app, thread());
                                 history(app, thread());
                               }}};

Register px_two_interrupts_stepwise{{"px_two_interrupts_stepwise", true, [](Ctx& c) {
                                       sp::StateGraph g(trace_schema());
                                       g.add_node("form", [](const sp::State&, sp::Runtime& rt) {
                                         std::string name = sp::interrupt(rt, "name?").get<std::string>();
                                         std::string age = sp::interrupt(rt, "age?").dump();
                                         return json{{"trace", {name + "/" + age}}};
                                       });
                                       g.add_node("after", tracer("after"));
                                       g.add_edge(sp::START, "form").add_edge("form", "after");
                                       auto app = g.compile(c.opts());
                                       stream(app, json{{"n", 1}}, thread(), {Mode::updates, Mode::values});
                                       state(app, thread());
                                       stream(app, sp::Command{.resume = "ada"}, thread(), {Mode::updates, Mode::values});
                                       state(app, thread());
                                       stream(app, sp::Command{.resume = 36}, thread(), {Mode::updates, Mode::values});
                                       state(app, thread());
                                       history(app, thread());
                                     }}};

Register px_update_send_paused{{"px_update_send_paused", true, [](Ctx& c) {
                                  sp::StateGraph g(trace_schema());
                                  g.add_node("w", [](const sp::State& s, sp::Runtime& rt) {
                                    int n = s.get<int>("n");
                                    if (n == 2) return json{{"trace", {"w2:" + sp::interrupt(rt, "need 2").get<std::string>()}}};
                                    return json{{"trace", {"w" + std::to_string(n)}}};
                                  });
                                  g.add_node("z", tracer("z"));
                                  g.add_conditional_edges(sp::START, [](const sp::State&) {
                                    return std::vector<sp::Send>{{"w", {{"n", 1}}}, {"w", {{"n", 2}}}};
                                  });
                                  g.add_edge("w", "z");
                                  auto app = g.compile(c.opts());
                                  stream(app, json{{"n", 0}}, thread(), {Mode::updates});
                                  update(app, thread(), json{{"trace", {"manual"}}}, "w");
                                  state(app, thread());
                                  stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
                                  state(app, thread());
                                }}};

Register px_update_null_values{{"px_update_null_values", true, [](Ctx& c) {
                                  auto app = ask_graph().compile(c.opts());
                                  stream(app, json{{"n", 1}}, thread("t1"), {Mode::updates});
                                  update(app, thread("t1"), json(nullptr));
                                  state(app, thread("t1"));
                                  stream(app, sp::Command{.resume = "yes"}, thread("t1"), {Mode::updates, Mode::values});
                                  invoke(app, json{{"n", 1}}, thread("t2"));
                                  invoke(app, sp::Command{.resume = "done"}, thread("t2"));
                                  update(app, thread("t2"), json(nullptr), "a");
                                  state(app, thread("t2"));
                                  stream(app, json(nullptr), thread("t2"), {Mode::updates});
                                  state(app, thread("t2"));
                                }}};

Register px_history_combined{{"px_history_combined", true, [](Ctx& c) {
                                auto app = chain({"a", "b"}).compile(c.opts());
                                invoke(app, json{{"n", 1}}, thread());
                                invoke(app, json{{"n", 2}}, thread());
                                history(app, thread(), json{{"source", "loop"}}, std::nullopt, 2);
                                history(app, thread(), json{{"step", 1}});
                                history(app, thread(), json{{"source", "loop"}, {"step", 2}});
                                auto all = app.get_state_history(thread());
                                history(app, thread(), json{{"source", "loop"}}, all.at(2).config.checkpoint_id);
                                history(app, thread(), json{{"source", "input"}}, all.at(1).config.checkpoint_id, 1);
                                history(app, thread(), nullptr, all.at(6).config.checkpoint_id, 5);
                                history(app, thread(), json{{"source", "update"}});
                              }}};

Register px_update_then_resume_stream{{"px_update_then_resume_stream", true, [](Ctx& c) {
                                         auto app = ask_graph().compile(c.opts());
                                         stream(app, json{{"n", 1}}, thread("t1"), {Mode::updates});
                                         update(app, thread("t1"), json{{"n", 5}, {"trace", {"edit"}}}, "a");
                                         state(app, thread("t1"));
                                         stream(app, sp::Command{.resume = "yes"}, thread("t1"), {Mode::values, Mode::updates});
                                         history(app, thread("t1"));
                                         stream(app, json{{"n", 1}}, thread("t2"), {Mode::updates});
                                         update(app, thread("t2"), json{{"n", 6}});
                                         stream(app, sp::Command{.resume = "ok"}, thread("t2"), {Mode::values, Mode::updates});
                                       }}};

Register px_durability_exit_failure{{"px_durability_exit_failure", true, [](Ctx& c) {
                                       static std::atomic<int> calls{0};
                                       calls = 0;
                                       sp::StateGraph g(trace_schema());
                                       g.add_node("a", tracer("a"));
                                       g.add_node("flaky", [](const sp::State&) {
                                         if (calls++ == 0) throw std::runtime_error("boom");
                                         return json{{"trace", {"flaky"}}};
                                       });
                                       g.add_node("c", tracer("c"));
                                       g.add_edge(sp::START, "a").add_edge("a", "flaky").add_edge("flaky", "c");
                                       auto app = g.compile(c.opts());
                                       auto cfg = with(thread(), sp::Durability::exit);
                                       stream(app, json{{"n", 1}}, cfg, {Mode::updates});
                                       state(app, thread());
                                       history(app, thread());
                                       stream(app, json(nullptr), cfg, {Mode::updates, Mode::values});
                                       history(app, thread());
                                     }}};

Register px_copy_fork{{"px_copy_fork", true, [](Ctx& c) {
                         auto app = chain({"a", "b", "c"}).compile(c.opts());
                         invoke(app, json{{"n", 1}}, thread());
                         auto before_b = find_next(app, thread(), {"b"});
                         auto copied = update(app, before_b, json(nullptr), "__copy__");
                         if (copied) state(app, *copied);
                         if (copied) stream(app, json(nullptr), *copied, {Mode::updates});
                         history(app, thread(), nullptr, std::nullopt, 4);
                       }}};

Register px_bulk_update{{"px_bulk_update", true, [](Ctx& c) {
                           auto app = diamond().compile(c.opts({.interrupt_before = {"b", "c"}}));
                           stream(app, json{{"n", 1}}, thread(), {Mode::updates});
                           try {
                             sp::RunConfig cfg = app.bulk_update_state(
                                 thread(), {{{json{{"trace", {"B"}}}, "b"}, {json{{"trace", {"C"}}}, "c"}},
                                            {{json{{"n", 9}}, "d"}}});
                             emit(json{{"config", {{"configurable", {{"thread_id", cfg.thread_id},
                                                                     {"checkpoint_ns", cfg.checkpoint_ns},
                                                                     {"checkpoint_id", *cfg.checkpoint_id}}}}}});
                           } catch (...) {
                             emit(error_line(std::current_exception()));
                           }
                           state(app, thread());
                           history(app, thread(), nullptr, std::nullopt, 3);
                           stream(app, json(nullptr), thread(), {Mode::updates, Mode::values});
                           auto t2 = thread("t2");
                           t2.interrupt_before = std::vector<std::string>{"d"};
                           stream(app, json{{"n", 1}}, t2, {Mode::updates});
                           update(app, thread("t2"), json{{"n", 9}}, "d");
                           state(app, thread("t2"));
                           stream(app, json(nullptr), thread("t2"), {Mode::updates, Mode::values});
                         }}};

}  // namespace
