#include "superstep/prebuilt/react_agent.hpp"

#include "superstep/errors.hpp"
#include "superstep/graph/state_graph.hpp"

namespace superstep {

CompiledStateGraph create_react_agent(std::shared_ptr<const ChatModel> model, std::vector<Tool> tools,
                                      ReactAgentOptions options) {
  if (!model) throw Error("create_react_agent: no model");
  std::shared_ptr<const ChatModel> bound = tools.empty() ? model : model->bind_tools(tools);
  auto tool_node = std::make_shared<const ToolNode>(tools, options.tool_node);
  std::optional<Message> system;
  if (!options.prompt.empty()) system = Message::system(options.prompt);
  const std::optional<int> budget = options.step_budget;
  const std::string name = options.name;

  if (options.state_schema && !options.state_schema->find("messages"))
    throw Error("create_react_agent: state_schema has no 'messages' key");
  StateGraph g(options.state_schema ? *options.state_schema : messages_state());
  g.add_node("agent", [bound, system, budget, name](const State& s, Runtime& rt) -> Task<NodeResult> {
    std::vector<Message> input;
    if (system) input.push_back(*system);
    for (Message& m : to_messages(s["messages"])) input.push_back(std::move(m));
    Task<Message> call = bound->ainvoke(std::move(input), rt);
    Message reply = co_await std::move(call);
    if (!name.empty()) reply.name = name;  // as LangGraph's: the agent signs its messages
    // Only with a step budget: LangGraph.js' agent lets the recursion limit end the run.
    if (budget && !reply.tool_calls.empty()) {
      const int64_t limit = rt.config().recursion_limit;
      const int64_t remaining = std::min<int64_t>(rt.remaining_steps(), rt.remaining_steps() - (limit - *budget));
      if (remaining < 2) {
        Message sorry = Message::ai("Sorry, need more steps to process this request.");
        sorry.id = reply.id;
        sorry.name = reply.name;
        co_return json{{"messages", json::array({sorry.to_json()})}};
      }
    }
    co_return json{{"messages", json::array({reply.to_json()})}};
  });
  // As LangGraph.js' agent, with no tools too: a call the model makes up then gets its "not
  // found" answer.
  g.add_node("tools", [tool_node](const State& s, Runtime& rt) { return (*tool_node)(s, rt); });
  g.add_edge(START, "agent");
  g.add_conditional_edges("agent", tools_condition, {{"tools", "tools"}, {END, END}});
  g.add_edge("tools", "agent");
  CompileOptions co;
  co.executor = options.executor;
  co.checkpointer = options.checkpointer;
  co.store = options.store;
  if (options.interrupt_before_tools && !tools.empty()) co.interrupt_before = {"tools"};
  co.name = options.name.empty() ? "react_agent" : options.name;
  return g.compile(co);
}

}  // namespace superstep
