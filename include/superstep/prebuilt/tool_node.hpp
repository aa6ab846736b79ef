// ToolNode and tools_condition: the tool-executing half of a tool-calling agent, as in
// LangGraph's prebuilt module.
//
//   g.add_node("tools", sp::ToolNode({add, search}));
//   g.add_conditional_edges("agent", sp::tools_condition);   // -> "tools" or END
//
// ToolNode runs the tool calls of the newest AI message in `messages` that no tool message
// answers yet, all at once (blocking tools on the run's executor, async tools as coroutines),
// and returns one tool message per call, in call order, as LangGraph.js' ToolNode. Nothing is dropped: an unknown tool, arguments that fail the tool's schema, or a
// tool that throws become a tool message with status "error" the model can read (unless error
// handling is turned off). A tool made with a call-seeing function (Tool::CallFn) may return
// its own tool message or a Command (a state update beside its tool message, a `go_to`, a
// handoff with graph=PARENT); ToolNode then returns a list of each call's tool message as an
// update and each Command as it is, as LangGraph.js' ToolNode (NodeResult's list). A ToolNode is
// immutable; one can serve many graphs and runs.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "superstep/llm/tool.hpp"
#include "superstep/messages/message.hpp"
#include "superstep/state.hpp"
#include "superstep/task.hpp"
#include "superstep/types.hpp"

namespace superstep {

struct ToolNodeOptions {
  /// How a failing tool call is reported. `true` (LangGraph.js's default): every error becomes
  /// an error tool message in LangGraph.js' texts ("Error: Tool \"x\" not found.", "Error:
  /// Received tool input did not match expected schema", "Error: <what>", each followed by
  /// "\n Please fix your mistakes."); `false`: each of them fails the node (NodeError).
  bool handle_tool_errors = true;
  /// Optional: the content of the error tool message for an exception (overrides the text).
  std::function<std::string(const std::string& tool, const std::exception& error)> format_error;
  /// The state key holding the messages.
  std::string messages_key = "messages";
};

class ToolNode {
 public:
  explicit ToolNode(std::vector<Tool> tools, ToolNodeOptions options = {});

  /// The node. Throws InvalidUpdateError when `messages` holds no AI message.
  Task<NodeResult> operator()(const State& state, Runtime& rt) const;

  /// Runs the tool calls of `ai` and returns their tool messages in call order. Throws Error
  /// when a tool returned a Command (use call_tools).
  Task<std::vector<Message>> run(const Message& ai, const Runtime& rt) const;
  /// Runs the tool calls of `ai` and returns, in call order, each one's tool message or the
  /// Command its tool returned. Call-seeing tools get `state` (the node's) in their ToolRuntime.
  Task<std::vector<ToolResult>> call_tools(const Message& ai, const Runtime& rt, const State* state = nullptr) const;

  const std::vector<Tool>& tools() const noexcept { return tools_; }

 private:
  struct Answers {
    std::vector<Message> messages;                // per call, in call order (empty where a Command is)
    std::vector<std::optional<Command>> commands;  // per call; empty unless a tool returned a Command
  };
  Task<Answers> answer(const Message& ai, const Runtime& rt, const State* state) const;

  std::vector<Tool> tools_;
  ToolNodeOptions options_;
};

/// Routes to "tools" when the last message (of `messages`) is an AI message with tool calls,
/// else to END.
std::string tools_condition(const State& state);

}  // namespace superstep
