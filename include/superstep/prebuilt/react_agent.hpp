// create_react_agent: LangGraph's prebuilt tool-calling (ReAct) agent.
//
//   auto agent = sp::create_react_agent(llm, {calculator, clock},
//                                       {.prompt = "You are a careful assistant.",
//                                        .checkpointer = saver});
//   json out = agent.invoke(json{{"messages", {"what is 6 * 7?"}}}, {.thread_id = "t1"});
//
// The graph is LangGraph's: START -> agent; agent -> tools when the reply calls tools, else END;
// tools -> agent. State: `messages` with add_messages. The agent node calls the model (bound to
// the tools) on the system prompt plus the messages, as a coroutine: no thread is held while
// the model thinks, and its tokens reach the `messages` stream mode. As LangGraph.js' agent,
// a tool loop that outlasts the recursion limit ends the run with GraphRecursionError. With a
// `step_budget`, the agent instead answers "Sorry, need more steps to process this request."
// when fewer than two steps of it remain and the model still asks for tools (LangGraph Python's
// remaining-steps rule), and the run ends normally.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "superstep/checkpoint/saver.hpp"
#include "superstep/executor.hpp"
#include "superstep/graph/compiled_state_graph.hpp"
#include "superstep/llm/chat_model.hpp"
#include "superstep/prebuilt/tool_node.hpp"

namespace superstep {

struct ReactAgentOptions {
  std::string prompt;                              ///< system prompt ("" = none)
  std::shared_ptr<CheckpointSaver> checkpointer;   ///< conversation memory, pauses
  std::shared_ptr<BaseStore> store;                ///< long-term memory for the tools (Runtime::store())
  bool interrupt_before_tools = false;             ///< pause for approval before running tools
  std::optional<int> step_budget;                  ///< supersteps one invocation may use (≤ recursion limit); see above
  ToolNodeOptions tool_node;                       ///< error handling of the tools node
  std::shared_ptr<ThreadPool> executor;            ///< default: the shared pool
  /// The agent's name: the graph's (errors, drawings; "react_agent" when empty) and, as in
  /// LangGraph, the `name` of every AI message the agent adds.
  std::string name;
  /// The agent's state (LangGraph's `state_schema`): default messages_state(). A schema of your
  /// own must hold `messages` (with add_messages); its other keys are what tools returning a
  /// Command may update (Tool::CallFn), and what a run's input and result carry.
  std::optional<StateSchema> state_schema;
};

/// The compiled agent graph (nodes "agent" and "tools").
CompiledStateGraph create_react_agent(std::shared_ptr<const ChatModel> model, std::vector<Tool> tools,
                                      ReactAgentOptions options = {});

}  // namespace superstep
