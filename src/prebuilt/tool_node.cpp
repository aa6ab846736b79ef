#include "superstep/prebuilt/tool_node.hpp"

#include <algorithm>
#include <atomic>
#include <optional>

#include "superstep/errors.hpp"
#include "superstep/interrupt.hpp"

namespace superstep {
namespace {

struct CallResult {
  ToolResult value = json();
  std::exception_ptr error;
};

internal::Detached run_call(const Tool& tool, const ToolCall& call, const Runtime& rt, const State* state,
                            std::function<void(CallResult)> done) {
  CallResult r;
  try {
    Task<ToolResult> run = tool.call(call, rt, state);  // named: see Tool::ainvoke
    r.value = co_await std::move(run);
  } catch (...) {
    r.error = std::current_exception();
  }
  done(std::move(r));
}

// LangGraph.js' texts for a call the tool cannot take.
std::string not_found(const std::string& tool) { return "Tool \"" + tool + "\" not found."; }
constexpr const char* kBadInput = "Received tool input did not match expected schema";
std::string fix_it(const std::string& what) { return "Error: " + what + "\n Please fix your mistakes."; }

Message error_message(std::string content, const ToolCall& call) {
  Message m = Message::tool(std::move(content), call.id, "error");
  m.name = call.name;
  return m;
}

}  // namespace

ToolNode::ToolNode(std::vector<Tool> tools, ToolNodeOptions options) : tools_(std::move(tools)), options_(std::move(options)) {
  for (std::size_t i = 0; i < tools_.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (tools_[i].name() == tools_[j].name()) throw Error("ToolNode: two tools are named '" + tools_[i].name() + "'");
}

Task<std::vector<Message>> ToolNode::run(const Message& ai, const Runtime& rt) const {
  Task<Answers> calls = answer(ai, rt, nullptr);
  Answers answers = co_await std::move(calls);
  if (!answers.commands.empty())
    throw Error("ToolNode::run: a tool returned a Command; use call_tools, or the ToolNode as the node");
  co_return std::move(answers.messages);
}

Task<std::vector<ToolResult>> ToolNode::call_tools(const Message& ai, const Runtime& rt, const State* state) const {
  Task<Answers> calls = answer(ai, rt, state);
  Answers answers = co_await std::move(calls);
  std::vector<ToolResult> out;
  out.reserve(answers.messages.size());
  for (std::size_t i = 0; i < answers.messages.size(); ++i) {
    if (!answers.commands.empty() && answers.commands[i]) out.emplace_back(std::move(*answers.commands[i]));
    else out.emplace_back(std::move(answers.messages[i]));
  }
  co_return out;
}

Task<ToolNode::Answers> ToolNode::answer(const Message& ai, const Runtime& rt, const State* state) const {
  const std::size_t n = ai.tool_calls.size();
  Answers answers;  // each call's answer, in call order
  answers.messages.resize(n);
  std::vector<CallResult> results(n);
  std::vector<const Tool*> chosen(n, nullptr);
  std::size_t to_run = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const ToolCall& call = ai.tool_calls[i];
    for (const Tool& t : tools_)
      if (t.name() == call.name) chosen[i] = &t;
    if (!chosen[i]) {
      if (!options_.handle_tool_errors) throw Error(not_found(call.name));  // LangGraph.js' text (NodeError names the node)
      answers.messages[i] = error_message(fix_it(not_found(call.name)), call);
      continue;
    }
    if (std::string bad = chosen[i]->validate(call.args); !bad.empty()) {
      if (!options_.handle_tool_errors) throw ToolArgumentError("tool '" + call.name + "': " + bad);
      answers.messages[i] = error_message(fix_it(kBadInput), call);
      chosen[i] = nullptr;
      continue;
    }
    ++to_run;
  }
  if (to_run > 0) {
    // Every call at once: all but the last start on the executor, the last on this thread
    // (one call costs no hand-off); blocking tools run where they start, async ones suspend.
    // The node resumes when the last one reports.
    auto all = await_callback<bool>(rt, [&](Completion<bool> all_done) {
      auto remaining = std::make_shared<std::atomic<std::size_t>>(to_run);
      std::size_t last = n;
      while (!chosen[last - 1]) --last;
      for (std::size_t i = 0; i < n; ++i) {
        if (!chosen[i]) continue;
        const Tool* tool = chosen[i];
        CallResult* slot = &results[i];
        const ToolCall* call = &ai.tool_calls[i];
        auto start = [tool, slot, call, &rt, state, remaining, all_done] {
          run_call(*tool, *call, rt, state, [slot, remaining, all_done](CallResult r) {
            *slot = std::move(r);
            if (remaining->fetch_sub(1) == 1) all_done.complete(true);
          });
        };
        if (i + 1 == last) start();
        else rt.post(std::move(start));
      }
    });
    co_await all;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!chosen[i]) continue;
    const ToolCall& call = ai.tool_calls[i];
    if (!results[i].error) {
      ToolResult& r = results[i].value;
      // As LangGraph.js' ToolNode: a tool's Command, or its own tool message, as it is.
      if (Command* c = r.command()) {
        if (answers.commands.empty()) answers.commands.resize(n);
        answers.commands[i] = std::move(*c);
        continue;
      }
      if (r.message() && r.message()->type == MessageType::tool) {
        answers.messages[i] = std::move(*r.message());
        continue;
      }
      Message m = Message::tool(Tool::content_of(r.value() ? *r.value() : r.message()->to_json()), call.id);
      m.name = call.name;
      answers.messages[i] = std::move(m);
      continue;
    }
    try {
      std::rethrow_exception(results[i].error);
    } catch (const GraphInterrupt&) {
      throw;  // a tool asked for a human: the run pauses
    } catch (const ToolArgumentError& e) {
      if (!options_.handle_tool_errors) throw;
      answers.messages[i] = error_message(options_.format_error ? options_.format_error(call.name, e) : fix_it(kBadInput), call);
    } catch (const std::exception& e) {
      if (!options_.handle_tool_errors) throw;
      answers.messages[i] = error_message(options_.format_error ? options_.format_error(call.name, e) : fix_it(e.what()), call);
    } catch (...) {
      if (!options_.handle_tool_errors) throw;
      answers.messages[i] = error_message("Error: tool '" + call.name + "' failed with an unknown exception\n Please fix your mistakes.", call);
    }
  }
  co_return answers;
}

Task<NodeResult> ToolNode::operator()(const State& state, Runtime& rt) const {
  const json* list = state.find(options_.messages_key);
  if (!list || !list->is_array() || list->empty())
    throw InvalidUpdateError("ToolNode: no messages in state key '" + options_.messages_key + "'");
  // As LangGraph's: the newest AI message's calls that no tool message answers yet.
  std::optional<Message> ai;
  std::vector<std::string> answered;
  for (auto it = list->rbegin(); it != list->rend() && !ai; ++it) {
    Message m = Message::from_json(*it);
    if (m.type == MessageType::tool) answered.push_back(std::move(m.tool_call_id));
    else if (m.type == MessageType::ai) ai = std::move(m);
  }
  if (!ai)
    throw InvalidUpdateError("ToolNode: no AI message in '" + options_.messages_key + "' (the newest is a " +
                             std::string(to_string(Message::from_json(list->back()).type)) + " message)");
  std::erase_if(ai->tool_calls, [&](const ToolCall& c) {
    return !c.id.empty() && std::find(answered.begin(), answered.end(), c.id) != answered.end();
  });
  Task<Answers> calls = answer(*ai, rt, &state);
  Answers replies = co_await std::move(calls);
  if (replies.commands.empty()) {
    json update = json::array();
    for (const Message& m : replies.messages) update.push_back(m.to_json());
    co_return json{{options_.messages_key, std::move(update)}};
  }
  // As LangGraph.js' ToolNode when a tool returned a Command: a list, in call order, of each
  // tool message as an update of its own and each Command as it is; Commands for the parent
  // graph that only send (a list of Sends) are merged into one, last.
  std::vector<ResultItem> items;
  std::optional<Command> parent_sends;
  for (std::size_t i = 0; i < replies.messages.size(); ++i) {
    if (Command* c = replies.commands[i] ? &*replies.commands[i] : nullptr) {
      bool sends = c->graph == Command::PARENT && !c->go_to.empty();
      for (const Destination& d : c->go_to.items()) sends = sends && std::holds_alternative<Send>(d);
      if (!sends) {
        items.emplace_back(std::move(*c));
      } else if (parent_sends) {
        for (Destination& d : c->go_to.items()) parent_sends->go_to.items().push_back(std::move(d));
      } else {
        parent_sends = Command{.graph = Command::PARENT};
        parent_sends->go_to = std::move(c->go_to);
      }
    } else {
      items.emplace_back(json{{options_.messages_key, json::array({replies.messages[i].to_json()})}});
    }
  }
  if (parent_sends) items.emplace_back(std::move(*parent_sends));
  co_return NodeResult(std::move(items));
}

std::string tools_condition(const State& state) {
  const json* list = state.find("messages");
  if (!list || !list->is_array() || list->empty()) return END;
  const json& last = list->back();
  if (!last.is_object()) return END;
  auto calls = last.find("tool_calls");
  const bool ai = last.value("type", "") == "ai" || last.value("role", "") == "assistant";
  return ai && calls != last.end() && calls->is_array() && !calls->empty() ? "tools" : END;
}

}  // namespace superstep
