// Writes as a saver stores them (stored_writes.hpp).
#include "pregel/stored_writes.hpp"

#include "superstep/errors.hpp"

namespace superstep::internal {

json encode_writes(const Program& g, const ExecutableTask& t) {
  json out = json::array();
  for (const auto& [c, v] : t.writes) out.push_back(json::array({g.state_keys[c], v.to_json()}));
  for (int c : t.control) {
    const ChannelData& cd = g.channels[c];
    out.push_back(json::array({cd.name, cd.role == ChannelRole::join ? json(t.node->name) : json(nullptr)}));
  }
  for (const Send& s : t.sends)
    out.push_back(json::array(
        {kTasksChannel, json{{"node", s.node}, {"arg", s.typed_arg ? g.typed->to_json(s.typed_arg.get()) : s.arg}}}));
  return out;
}

void decode_write(const Program& g, const RunConfig& config, ExecutableTask& t, const std::string& channel,
                  const json& value) {
  auto fail = [&](const std::string& what) {
    throw CheckpointError("graph '" + g.name + "', thread '" + config.thread_id + "': a pending write " + what);
  };
  if (channel == kTasksChannel) {
    if (!value.is_object() || !value.contains("node") || !value["node"].is_string())
      fail("holds a malformed Send: " + preview(value));
    if (g.typed) fail("holds a Send of typed state, which cannot be restored");
    if (g.find_node(value["node"].get<std::string>()) <= 0)
      fail("sends to node '" + value["node"].get<std::string>() + "', which this graph does not have");
    t.sends.push_back(Send{value["node"].get<std::string>(), value.value("arg", json(nullptr)), nullptr});
    return;
  }
  int id = g.find_channel(channel);
  if (id < 0) fail("writes channel '" + channel + "', which this graph does not have");
  if (id < g.num_state_keys) {
    if (g.typed) {
      for (auto& w : g.typed->writes_from_json(json{{channel, value}})) t.writes.push_back(std::move(w));
    } else {
      t.writes.emplace_back(id, value);
    }
    return;
  }
  const ChannelRole role = g.channels[id].role;
  if (role == ChannelRole::branch || role == ChannelRole::join) t.control.push_back(id);
}

}  // namespace superstep::internal
