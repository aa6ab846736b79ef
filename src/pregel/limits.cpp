// Limits (include/superstep/limits.hpp): measuring values and checking a task's writes.
#include "pregel/limits.hpp"

#include <algorithm>

#include "pregel/executable_task.hpp"
#include "pregel/run_state.hpp"
#include "superstep/errors.hpp"

namespace superstep::internal {
namespace {

constexpr std::size_t kElementBytes = 8;  // a number, boolean, null, array or object

void add_size(const json& v, std::size_t& total, std::size_t stop) {
  switch (v.type()) {
    case json::value_t::string:
      total += v.get_ref<const json::string_t&>().size();
      return;
    case json::value_t::object:
      total += kElementBytes;
      for (const auto& [key, x] : v.get_ref<const json::object_t&>()) {
        if (total > stop) return;
        total += key.size();
        add_size(x, total, stop);
      }
      return;
    case json::value_t::array:
      total += kElementBytes;
      for (const json& x : v.get_ref<const json::array_t&>()) {
        if (total > stop) return;
        add_size(x, total, stop);
      }
      return;
    case json::value_t::binary:
      total += v.get_binary().size();
      return;
    default:
      total += kElementBytes;
  }
}

/// The content of one message in any form add_messages takes: a LangChain dict or OpenAI
/// message (`content`), a plain string (a human message), a [role, content] pair.
const json* content_of(const json& m) {
  if (m.is_string()) return &m;
  if (m.is_object()) {
    auto it = m.find("content");
    return it == m.end() ? nullptr : &*it;
  }
  if (m.is_array() && m.size() == 2 && m[0].is_string()) return &m[1];
  return nullptr;
}

void check_messages(const RunState& s, const ExecutableTask& t) {
  const Program& g = *s.g;
  if (g.message_keys.empty()) return;
  const std::size_t max = s.limits().max_message_bytes;
  auto check = [&](const json& m, int key) {
    const json* content = content_of(m);
    if (!content) return;
    std::size_t size = measured_size(*content, max);
    if (size > max) throw_limit(s, "max_message_bytes", max, size, t.node->name, g.state_keys[key]);
  };
  for (const auto& [key, v] : t.writes) {
    if (!v.is_json() || std::find(g.message_keys.begin(), g.message_keys.end(), key) == g.message_keys.end()) continue;
    const json& update = v.as_json();
    // A list of messages, or one message (add_messages reads an update that is a list as a list).
    if (update.is_array())
      for (const json& m : update) check(m, key);
    else
      check(update, key);
  }
}

}  // namespace

std::size_t measured_size(const json& v, std::size_t stop) {
  std::size_t total = 0;
  add_size(v, total, stop);
  return total;
}

void throw_limit(const RunState& s, const char* limit, std::size_t configured, std::size_t actual, std::string node,
                 std::string field) {
  throw LimitError(LimitError::Detail{limit, configured, actual, s.g->name, s.config.thread_id, std::move(node),
                                      std::move(field)});
}

void check_task_update(const RunState& s, const ExecutableTask& t) {
  const std::size_t max = s.limits().max_update_bytes;
  std::size_t total = 0;
  for (const auto& [key, v] : t.writes) {
    if (!v.is_json()) continue;
    total += s.g->state_keys[key].size();
    add_size(v.as_json(), total, max);
    if (total > max) throw_limit(s, "max_update_bytes", max, total, t.node->name, s.g->state_keys[key]);
  }
  for (const Send& send : t.sends) {
    total += send.node.size();
    add_size(send.arg, total, max);
    if (total > max) throw_limit(s, "max_update_bytes", max, total, t.node->name, "Send to '" + send.node + "'");
  }
  check_messages(s, t);
}

void check_stored_update(const RunState& s, const ExecutableTask& t,
                         const std::vector<std::pair<std::string, json>>& writes) {
  const std::size_t max = s.limits().max_update_bytes;
  std::size_t total = 0;
  for (const auto& [channel, v] : writes) {
    total += channel.size();
    add_size(v, total, max);
    if (total > max) throw_limit(s, "max_update_bytes", max, total, t.node->name, channel);
  }
  check_messages(s, t);
}

}  // namespace superstep::internal
