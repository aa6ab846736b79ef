// The prebuilt agent and ToolNode against LangGraph.js' createReactAgent and ToolNode (ag_*;
// js/ag_*.mjs are the twins, helpers js/agent_helpers.mjs). Both sides talk to one scripted
// OpenAI-compatible server (tests/llm/openai_test_server) with the scenario's script,
// scripts/<scenario>.json: superstep's OpenAIChatModel to one started in this process,
// LangChain.js' ChatOpenAI to the program superstep-openai-test-server. Each scenario ends with
// the request bodies the server received ({"requests": [...]}, reduced by normalize.mjs).
#include <fstream>

#include <superstep/llm/openai_chat_model.hpp>
#include <superstep/prebuilt/react_agent.hpp>
#include <superstep/prebuilt/tool_node.hpp>

#include "llm/openai_test_server.hpp"
#include "transcript.hpp"

#ifndef SUPERSTEP_DIFFERENTIAL_DIR
#error "SUPERSTEP_DIFFERENTIAL_DIR must name tests/differential"
#endif

namespace {
using namespace diff;
using superstep::testing::OpenAITestServer;

/// The scenario's server, its script queued.
struct Server {
  OpenAITestServer server;
  explicit Server(const std::string& scenario) {
    std::ifstream in(std::string(SUPERSTEP_DIFFERENTIAL_DIR) + "/scripts/" + scenario + ".json");
    if (!in) throw std::runtime_error("no script for " + scenario);
    json replies = json::parse(in);
    for (const json& r : replies) server.push(superstep::testing::reply_from_json(r));
  }
  std::shared_ptr<sp::OpenAIChatModel> model() const {
    return std::make_shared<sp::OpenAIChatModel>(
        sp::OpenAIOptions{.model = "test-model", .base_url = server.base_url(), .api_key = "sk-test"});
  }
  void emit_requests() const {
    json all = json::array();
    for (json& r : server.requests()) all.push_back(std::move(r));
    emit(json{{"requests", std::move(all)}});
  }
};

json object_schema(json props, json required) {
  return json{{"type", "object"}, {"properties", std::move(props)}, {"required", std::move(required)}};
}

sp::Tool multiply() {
  return sp::Tool("multiply", "Multiplies two integers.",
                  object_schema({{"a", {{"type", "integer"}}}, {"b", {{"type", "integer"}}}}, {"a", "b"}),
                  [](const json& a) -> json { return a["a"].get<int64_t>() * a["b"].get<int64_t>(); });
}
sp::Tool weather() {
  return sp::Tool("weather", "The weather in a city.", object_schema({{"city", {{"type", "string"}}}}, {"city"}),
                  [](const json& a) -> json { return "sunny in " + a["city"].get<std::string>(); });
}
sp::Tool explode() {
  return sp::Tool("explode", "Always fails.", object_schema({{"what", {{"type", "string"}}}}, {"what"}),
                  [](const json& a) -> json { throw std::runtime_error("cannot " + a["what"].get<std::string>()); });
}
sp::Tool lookup() {
  return sp::Tool("lookup", "Looks a key up.", object_schema({{"key", {{"type", "string"}}}}, {"key"}),
                  [](const json& a) -> json { return json{{"key", a["key"]}, {"found", true}, {"tags", {"a", "b"}}}; });
}

/// A tool asking a human: "<action>: <answer>" (interrupt() inside the tool).
sp::Tool approve() {
  return sp::Tool("approve", "Asks a human to approve an action.", object_schema({{"action", {{"type", "string"}}}}, {"action"}),
                  [](json a, const sp::Runtime& rt) -> sp::Task<json> {
                    const std::string action = a["action"].get<std::string>();
                    json answer = sp::interrupt(rt, json{{"approve", action}});
                    co_return json(action + ": " + answer.get<std::string>());
                  });
}

/// A tool writing to the `custom` stream mode: one chunk per step, then "did <steps> steps".
sp::Tool progress() {
  return sp::Tool("progress", "Reports progress.", object_schema({{"steps", {{"type", "integer"}}}}, {"steps"}),
                  [](json a, const sp::Runtime& rt) -> sp::Task<json> {
                    const int64_t steps = a["steps"].get<int64_t>();
                    for (int64_t i = 1; i <= steps; ++i) rt.stream_writer(json{{"step", i}, {"of", steps}});
                    co_return json("did " + std::to_string(steps) + " steps");
                  });
}

json human(const std::string& text, const std::string& id) {
  return json{{"type", "human"}, {"content", text}, {"id", id}};
}
json ask(const std::string& text) { return json{{"messages", {human(text, "h1")}}}; }

/// As js/agent_helpers.mjs' details(): what the reduced messages do not show.
void emit_details(const json& messages) {
  json out = json::array();
  for (const json& j : messages) {
    sp::Message m = sp::Message::from_json(j);
    json d = {{"kind", std::string(sp::to_string(m.type))}};
    if (m.type == sp::MessageType::tool) d["status"] = m.status;
    if (m.type == sp::MessageType::ai) {
      json inv = json::array();
      for (const json& c : m.invalid_tool_calls)
        inv.push_back({{"id", c.value("id", json(nullptr))}, {"name", c.value("name", json(nullptr))},
                       {"args", c.value("args", json(nullptr))}, {"error", c.value("error", json(nullptr))}});
      d["invalid_tool_calls"] = inv;
      const json& u = m.usage_metadata;
      d["usage"] = u.is_object() ? json{{"input_tokens", u["input_tokens"]}, {"output_tokens", u["output_tokens"]},
                                        {"total_tokens", u["total_tokens"]}}
                                 : json(nullptr);
      const json& r = m.response_metadata;
      d["response"] = {{"finish_reason", r.value("finish_reason", json(nullptr))},
                       {"model_name", r.value("model_name", json(nullptr))},
                       {"model_provider", r.value("model_provider", json(nullptr))}};
    }
    out.push_back(std::move(d));
  }
  emit(json{{"details", std::move(out)}});
}

/// Invokes, prints the result and the messages' details.
void invoke_with_details(const sp::CompiledStateGraph& app, const json& input, const sp::RunConfig& cfg = {}) {
  try {
    json out = app.invoke(input, cfg);
    emit(json{{"result", out}});
    emit_details(out["messages"]);
  } catch (...) {
    emit(error_line(std::current_exception()));
  }
}

sp::ReactAgentOptions agent_opts(sp::ReactAgentOptions o = {}) {
  o.executor = one_worker();
  return o;
}

Register ag_one_tool{{"ag_one_tool", false, [](Ctx&) {
  Server s("ag_one_tool");
  auto agent = sp::create_react_agent(s.model(), {multiply()}, agent_opts());
  invoke_with_details(agent, ask("what is 6 times 7?"));
  s.emit_requests();
}}};

Register ag_parallel_tools{{"ag_parallel_tools", false, [](Ctx&) {
  Server s("ag_parallel_tools");
  auto agent = sp::create_react_agent(s.model(), {multiply(), weather()}, agent_opts());
  stream(agent, ask("6*7 and the weather in Paris?"), {}, {Mode::updates, Mode::values});
  s.emit_requests();
}}};

Register ag_tool_throws{{"ag_tool_throws", false, [](Ctx&) {
  Server s("ag_tool_throws");
  auto agent = sp::create_react_agent(s.model(), {explode()}, agent_opts());
  invoke_with_details(agent, ask("break it"));
  s.emit_requests();
}}};

Register ag_tool_throws_unhandled{{"ag_tool_throws_unhandled", false, [](Ctx&) {
  Server s("ag_tool_throws_unhandled");
  auto agent = sp::create_react_agent(s.model(), {explode()}, agent_opts({.tool_node = {.handle_tool_errors = false}}));
  stream(agent, ask("break it"), {}, {Mode::updates});
  s.emit_requests();
}}};

Register ag_unknown_tool{{"ag_unknown_tool", false, [](Ctx&) {
  Server s("ag_unknown_tool");
  auto agent = sp::create_react_agent(s.model(), {multiply()}, agent_opts());
  invoke_with_details(agent, ask("divide 6 by 3"));
  s.emit_requests();
}}};

Register ag_unknown_tool_unhandled{{"ag_unknown_tool_unhandled", false, [](Ctx&) {
  Server s("ag_unknown_tool_unhandled");
  auto agent = sp::create_react_agent(s.model(), {multiply()}, agent_opts({.tool_node = {.handle_tool_errors = false}}));
  invoke(agent, ask("divide 6 by 3"));
  s.emit_requests();
}}};

Register ag_invalid_args{{"ag_invalid_args", false, [](Ctx&) {
  Server s("ag_invalid_args");
  auto agent = sp::create_react_agent(s.model(), {multiply()}, agent_opts());
  invoke_with_details(agent, ask("six times 7"));
  s.emit_requests();
}}};

Register ag_invalid_args_unhandled{{"ag_invalid_args_unhandled", false, [](Ctx&) {
  Server s("ag_invalid_args_unhandled");
  auto agent = sp::create_react_agent(s.model(), {multiply()}, agent_opts({.tool_node = {.handle_tool_errors = false}}));
  invoke(agent, ask("six times 7"));
  s.emit_requests();
}}};

Register ag_malformed_args{{"ag_malformed_args", false, [](Ctx&) {
  Server s("ag_malformed_args");
  auto agent = sp::create_react_agent(s.model(), {multiply()}, agent_opts());
  invoke_with_details(agent, ask("6 times 7"));
  s.emit_requests();
}}};

Register ag_interrupt_before{{"ag_interrupt_before", true, [](Ctx& c) {
  Server s("ag_interrupt_before");
  auto agent = sp::create_react_agent(s.model(), {multiply()},
                                      agent_opts({.checkpointer = c.saver, .interrupt_before_tools = true}));
  stream(agent, ask("what is 6 times 7?"), thread(), {Mode::updates});
  state(agent, thread());
  stream(agent, json(nullptr), thread(), {Mode::updates, Mode::values});
  state(agent, thread());
  s.emit_requests();
}}};

Register ag_interrupt_edit_call{{"ag_interrupt_edit_call", true, [](Ctx& c) {
  Server s("ag_interrupt_edit_call");
  auto agent = sp::create_react_agent(s.model(), {multiply()},
                                      agent_opts({.checkpointer = c.saver, .interrupt_before_tools = true}));
  invoke(agent, ask("what is 6 times 7?"), thread());
  update(agent, thread(),
         json{{"messages",
               {{{"type", "ai"}, {"content", ""}, {"id", "chatcmpl-1"},
                 {"tool_calls", {{{"id", "call_1"}, {"name", "multiply"}, {"args", {{"a", 6}, {"b", 8}}}}}}}}}});
  invoke(agent, json(nullptr), thread());
  state(agent, thread());
  s.emit_requests();
}}};

Register ag_multi_turn{{"ag_multi_turn", true, [](Ctx& c) {
  Server s("ag_multi_turn");
  auto agent = sp::create_react_agent(s.model(), {multiply()}, agent_opts({.checkpointer = c.saver}));
  invoke(agent, ask("what is 6 times 7?"), thread());
  invoke(agent, json{{"messages", {human("and 2 times 3?", "h2")}}}, thread());
  state(agent, thread());
  history(agent, thread());
  s.emit_requests();
}}};

Register ag_stream_messages{{"ag_stream_messages", false, [](Ctx&) {
  Server s("ag_stream_messages");
  auto agent = sp::create_react_agent(s.model(), {multiply()}, agent_opts());
  stream(agent, ask("what is 6 times 7?"), {}, {Mode::messages});
  s.emit_requests();
}}};

Register ag_stream_messages_parallel{{"ag_stream_messages_parallel", false, [](Ctx&) {
  Server s("ag_stream_messages_parallel");
  auto agent = sp::create_react_agent(s.model(), {multiply(), weather()}, agent_opts());
  stream(agent, ask("6*7 and the weather in Rome?"), {}, {Mode::messages, Mode::updates});
  s.emit_requests();
}}};

Register ag_system_prompt{{"ag_system_prompt", false, [](Ctx&) {
  Server s("ag_system_prompt");
  auto agent = sp::create_react_agent(s.model(), {multiply()}, agent_opts({.prompt = "You multiply."}));
  stream(agent, ask("what is 6 times 7?"), {}, {Mode::values});
  s.emit_requests();
}}};

Register ag_named_agent{{"ag_named_agent", false, [](Ctx&) {
  Server s("ag_named_agent");
  auto agent = sp::create_react_agent(s.model(), {multiply()}, agent_opts({.name = "calc"}));
  stream(agent, ask("what is 6 times 7?"), {}, {Mode::updates});
  s.emit_requests();
}}};

Register ag_recursion_limit{{"ag_recursion_limit", false, [](Ctx&) {
  Server s("ag_recursion_limit");
  auto agent = sp::create_react_agent(s.model(), {multiply()}, agent_opts());
  stream(agent, ask("multiply forever"), {.recursion_limit = 5}, {Mode::updates});
  s.emit_requests();
}}};

Register ag_tool_object{{"ag_tool_object", false, [](Ctx&) {
  Server s("ag_tool_object");
  auto agent = sp::create_react_agent(s.model(), {lookup()}, agent_opts());
  invoke(agent, ask("look up k1"));
  s.emit_requests();
}}};

Register ag_custom_graph{{"ag_custom_graph", false, [](Ctx& c) {
  Server s("ag_custom_graph");
  auto model = s.model()->bind_tools({multiply(), weather()});
  sp::StateGraph g(sp::messages_state());
  g.add_node("model", [model](const sp::State& st, sp::Runtime& rt) -> sp::Task<sp::NodeResult> {
    sp::Task<sp::Message> call = model->ainvoke(sp::to_messages(st["messages"]), rt);
    sp::Message reply = co_await std::move(call);
    co_return json{{"messages", {reply}}};
  });
  g.add_node("tools", sp::ToolNode({multiply(), weather()}));
  g.add_edge(sp::START, "model");
  g.add_conditional_edges("model", sp::tools_condition);
  g.add_edge("tools", "model");
  auto app = g.compile(c.plain());
  stream(app, json{{"messages", {human("6*7 then weather", "h1")}}}, {}, {Mode::updates});
  s.emit_requests();
}}};

/// A tool message of a tool's own, with an id (so that both sides show the same one).
json own_tool_message(const std::string& text, const sp::ToolCall& call) {
  sp::Message m = sp::Message::tool(text, call.id);
  m.id = "tm-" + call.id;
  return m.to_json();
}

Register ag_tool_command{{"ag_tool_command", false, [](Ctx& c) {
  Server s("ag_tool_command");
  sp::Tool remember("remember", "Remembers the user's name.", object_schema({{"name", {{"type", "string"}}}}, {"name"}),
                    [](const json& a, const sp::ToolRuntime& rt) -> sp::ToolResult {
                      const std::string name = a["name"].get<std::string>();
                      return sp::Command{.update = {{"messages", {own_tool_message("saved " + name, rt.call)}}, {"user", name}}};
                    });
  sp::Tool count("count", "Counts.", object_schema({{"by", {{"type", "integer"}}}}, {"by"}),
                 [](const json& a, const sp::ToolRuntime& rt) -> sp::ToolResult {
                   const int64_t by = a["by"].get<int64_t>();
                   return sp::Command{.update = {{"count", by}, {"messages", {own_tool_message("counted " + std::to_string(by), rt.call)}}},
                                      .go_to = "after"};
                 });
  sp::Tool echo("echo", "Echoes.", object_schema({{"text", {{"type", "string"}}}}, {"text"}),
                [](json a, sp::ToolRuntime rt) -> sp::Task<sp::ToolResult> {
                  sp::Message m = sp::Message::tool("echo " + a["text"].get<std::string>(), rt.call.id);
                  m.id = "tm-" + rt.call.id;
                  m.name = "echo";
                  co_return m;
                });
  sp::Tool whoami("whoami", "Reads the state.", object_schema(json::object(), json::array()),
                  [](const json&, const sp::ToolRuntime& rt) -> sp::ToolResult {
                    return "user is " + (*rt.state)["user"].get<std::string>();
                  });
  sp::StateSchema schema = sp::messages_state();
  schema.field("user").field("count", sp::reducers::add, 0).field("trace", sp::reducers::append, json::array());
  sp::StateGraph g(schema);
  g.add_node("tools", sp::ToolNode({remember, count, echo, multiply(), whoami}), {.ends = {"after"}});
  g.add_node("after", [](const sp::State&) { return json{{"trace", {"after"}}}; });
  g.add_node("last", [](const sp::State&) { return json{{"trace", {"last"}}}; });
  g.add_edge(sp::START, "tools").add_edge("tools", "last").add_edge("after", sp::END).add_edge("last", sp::END);
  auto app = g.compile(c.plain());
  json calls = {{"type", "ai"}, {"content", ""}, {"id", "a1"},
                {"tool_calls", {{{"id", "c1"}, {"name", "remember"}, {"args", {{"name", "Ada"}}}},
                                {{"id", "c2"}, {"name", "multiply"}, {"args", {{"a", 2}, {"b", 3}}}},
                                {{"id", "c3"}, {"name", "count"}, {"args", {{"by", 2}}}},
                                {{"id", "c4"}, {"name", "echo"}, {"args", {{"text", "hi"}}}}}}};
  stream(app, json{{"messages", {human("go", "h1"), calls}}}, {}, {Mode::updates, Mode::values});
  json only = {{"type", "ai"}, {"content", ""}, {"id", "a2"},
               {"tool_calls", {{{"id", "c5"}, {"name", "remember"}, {"args", {{"name", "Bo"}}}},
                               {{"id", "c6"}, {"name", "count"}, {"args", {{"by", 1}}}},
                               {{"id", "c7"}, {"name", "whoami"}, {"args", json::object()}}}}};
  invoke(app, json{{"messages", {human("again", "h2"), only}}, {"user", "Zed"}});
  s.emit_requests();
}}};

Register ag_agent_state_command{{"ag_agent_state_command", false, [](Ctx&) {
  Server s("ag_agent_state_command");
  sp::Tool remember("remember", "Remembers the user's name.", object_schema({{"name", {{"type", "string"}}}}, {"name"}),
                    [](const json& a, const sp::ToolRuntime& rt) -> sp::ToolResult {
                      const std::string name = a["name"].get<std::string>();
                      return sp::Command{.update = {{"messages", {own_tool_message("saved " + name, rt.call)}}, {"user", name}}};
                    });
  sp::StateSchema schema = sp::messages_state();
  schema.field("user");
  auto agent = sp::create_react_agent(s.model(), {remember}, agent_opts({.state_schema = schema}));
  stream(agent, json{{"messages", {human("I am Ada", "h1")}}}, {}, {Mode::updates, Mode::values});
  s.emit_requests();
}}};

Register ag_tool_handoff{{"ag_tool_handoff", true, [](Ctx& c) {
  Server s("ag_tool_handoff");
  sp::Tool transfer("transfer", "Hands the conversation over.", json{{"type", "object"}, {"properties", json::object()}},
                    [](const json&, const sp::ToolRuntime& rt) -> sp::ToolResult {
                      return sp::Command{.update = {{"messages", {own_tool_message("transferred", rt.call)}}},
                                         .go_to = "other", .graph = sp::Command::PARENT};
                    });
  sp::StateGraph sub(sp::messages_state());
  sub.add_node("tools", sp::ToolNode({multiply(), transfer}));
  sub.add_edge(sp::START, "tools").add_edge("tools", sp::END);
  sp::StateGraph g(sp::messages_state());
  g.add_node("sub", sub.compile(), {.ends = {"other"}});
  g.add_node("other", [](const sp::State&) {
    return json{{"messages", {{{"type", "ai"}, {"content", "other here"}, {"id", "o1"}}}}};
  });
  g.add_edge(sp::START, "sub").add_edge("other", sp::END);
  auto app = g.compile(c.opts());
  json calls = {{"type", "ai"}, {"content", ""}, {"id", "a1"},
                {"tool_calls", {{{"id", "c1"}, {"name", "multiply"}, {"args", {{"a", 2}, {"b", 3}}}},
                                {{"id", "c2"}, {"name", "transfer"}, {"args", json::object()}}}}};
  stream(app, json{{"messages", {human("go", "h1"), calls}}}, with_subgraphs(), {Mode::updates});
  state(app, thread());
  s.emit_requests();
}}};

Register ag_tool_node_pending{{"ag_tool_node_pending", false, [](Ctx& c) {
  Server s("ag_tool_node_pending");
  sp::StateGraph g(sp::messages_state());
  g.add_node("tools", sp::ToolNode({multiply(), weather()}));
  g.add_edge(sp::START, "tools").add_edge("tools", sp::END);
  auto app = g.compile(c.plain());
  json msgs = {human("two things", "h1"),
               {{"type", "ai"}, {"content", ""}, {"id", "a1"},
                {"tool_calls", {{{"id", "c1"}, {"name", "multiply"}, {"args", {{"a", 2}, {"b", 3}}}},
                                {{"id", "c2"}, {"name", "weather"}, {"args", {{"city", "Oslo"}}}}}}},
               {{"type", "tool"}, {"content", "6"}, {"id", "t1"}, {"tool_call_id", "c1"}, {"name", "multiply"}},
               human("go on", "h2")};
  invoke(app, json{{"messages", msgs}});
  s.emit_requests();
}}};

Register ag_tool_interrupt{{"ag_tool_interrupt", true, [](Ctx& c) {
  Server s("ag_tool_interrupt");
  auto agent = sp::create_react_agent(s.model(), {approve()}, agent_opts({.checkpointer = c.saver}));
  stream(agent, json{{"messages", {human("deploy it", "h1")}}}, thread(), {Mode::updates});
  state(agent, thread());
  stream(agent, sp::Command{.resume = "yes"}, thread(), {Mode::updates, Mode::values});
  s.emit_requests();
}}};

Register ag_tool_interrupt_parallel{{"ag_tool_interrupt_parallel", true, [](Ctx& c) {
  Server s("ag_tool_interrupt_parallel");
  auto agent = sp::create_react_agent(s.model(), {multiply(), approve()}, agent_opts({.checkpointer = c.saver}));
  stream(agent, json{{"messages", {human("2*3 and deploy", "h1")}}}, thread(), {Mode::updates});
  state(agent, thread());
  stream(agent, sp::Command{.resume = "yes"}, thread(), {Mode::updates});
  state(agent, thread());
  s.emit_requests();
}}};

Register ag_reused_call_ids{{"ag_reused_call_ids", false, [](Ctx&) {
  Server s("ag_reused_call_ids");
  auto agent = sp::create_react_agent(s.model(), {multiply()}, agent_opts());
  stream(agent, json{{"messages", {human("2*3 then 4*5", "h1")}}}, {}, {Mode::updates});
  s.emit_requests();
}}};

Register ag_model_error{{"ag_model_error", false, [](Ctx&) {
  Server s("ag_model_error");
  auto agent = sp::create_react_agent(s.model(), {multiply()}, agent_opts());
  stream(agent, json{{"messages", {human("hi", "h1")}}}, {}, {Mode::updates});
  s.emit_requests();
}}};

Register ag_reject_call{{"ag_reject_call", true, [](Ctx& c) {
  Server s("ag_reject_call");
  auto agent = sp::create_react_agent(s.model(), {multiply()},
                                      agent_opts({.checkpointer = c.saver, .interrupt_before_tools = true}));
  invoke(agent, ask("what is 6 times 7?"), thread());
  update(agent, thread(),
         json{{"messages",
               {{{"type", "tool"}, {"content", "The user rejected this call."}, {"id", "t1"}, {"tool_call_id", "call_1"},
                 {"name", "multiply"}}}}},
         "tools");
  state(agent, thread());
  stream(agent, json(nullptr), thread(), {Mode::updates});
  state(agent, thread());
  s.emit_requests();
}}};

Register ag_agent_subgraph{{"ag_agent_subgraph", false, [](Ctx& c) {
  Server s("ag_agent_subgraph");
  auto agent = sp::create_react_agent(s.model(), {multiply()}, agent_opts());
  sp::StateGraph g(sp::messages_state());
  g.add_node("assistant", agent);
  g.add_edge(sp::START, "assistant").add_edge("assistant", sp::END);
  auto app = g.compile(c.plain());
  stream(app, ask("what is 6 times 7?"), with_subgraphs(sp::RunConfig{}), {Mode::updates, Mode::messages});
  s.emit_requests();
}}};

Register ag_astream_messages{{"ag_astream_messages", false, [](Ctx&) {
  Server s("ag_astream_messages");
  auto agent = sp::create_react_agent(s.model(), {multiply()}, agent_opts());
  try {
    (void)sp::sync_wait(adrain(agent.astream(ask("what is 6 times 7?"), {}, {Mode::messages, Mode::updates, Mode::values})));
  } catch (...) {
    emit(error_line(std::current_exception()));
  }
  s.emit_requests();
}}};

Register ag_tool_custom_stream{{"ag_tool_custom_stream", false, [](Ctx&) {
  Server s("ag_tool_custom_stream");
  auto agent = sp::create_react_agent(s.model(), {progress()}, agent_opts());
  stream(agent, json{{"messages", {human("work", "h1")}}}, {}, {Mode::custom, Mode::updates});
  s.emit_requests();
}}};

}  // namespace
