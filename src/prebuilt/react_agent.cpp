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

  StateGraph g(messages_state());
  g.add_node("agent", [bound, system, budget](const State& s, Runtime& rt) -> Task<NodeResult> {
    std::vector<Message> input;
    if (system) input.push_back(*system);
    for (Message& m : to_messages(s["messages"])) input.push_back(std::move(m));
    Task<Message> call = bound->ainvoke(std::move(input), rt);
    Message reply = co_await std::move(call);
    int64_t remaining = rt.remaining_steps();
    if (budget) {
      const int64_t limit = rt.config().recursion_limit;
      remaining = std::min<int64_t>(remaining, remaining - (limit - *budget));
    }
    if (!reply.tool_calls.empty() && remaining < 2) {
      Message sorry = Message::ai("Sorry, need more steps to process this request.");
      sorry.id = reply.id;
      co_return json{{"messages", json::array({sorry.to_json()})}};
    }
    co_return json{{"messages", json::array({reply.to_json()})}};
  });
  if (!tools.empty()) {
    g.add_node("tools", [tool_node](const State& s, Runtime& rt) { return (*tool_node)(s, rt); });
    g.add_edge(START, "agent");
    g.add_conditional_edges("agent", tools_condition, {{"tools", "tools"}, {END, END}});
    g.add_edge("tools", "agent");
  } else {
    g.add_edge(START, "agent");
    g.add_edge("agent", END);
  }
  CompileOptions co;
  co.executor = options.executor;
  co.checkpointer = options.checkpointer;
  co.store = options.store;
  if (options.interrupt_before_tools && !tools.empty()) co.interrupt_before = {"tools"};
  co.name = options.name;
  return g.compile(co);
}

}  // namespace superstep
