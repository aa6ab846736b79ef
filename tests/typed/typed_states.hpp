// State structs shared by the typed tests.
#pragma once

#include <string>
#include <vector>

#include <superstep/superstep.hpp>

struct Flow {
  int n = 0;                          // LastValue
  int total = 10;                     // add, default 10
  std::vector<std::string> trace;     // append
  bool flag = true;                   // LastValue
  std::string text = "start";         // LastValue
};
SUPERSTEP_STATE(Flow,
                SUPERSTEP_FIELD(Flow, n),
                SUPERSTEP_FIELD(Flow, total, superstep::typed::add{}),
                SUPERSTEP_FIELD(Flow, trace, superstep::typed::append{}),
                SUPERSTEP_FIELD(Flow, flag),
                SUPERSTEP_FIELD(Flow, text));

/// The argument of typed Sends in the map-reduce tests.
struct Item {
  int i = 0;
  std::vector<std::string> trace;
};

/// A chat message for the typed add_messages tests.
struct TMsg {
  std::string id;
  std::string text;
  bool operator==(const TMsg&) const = default;
};
inline void to_json(superstep::json& j, const TMsg& m) { j = superstep::json{{"id", m.id}, {"text", m.text}}; }
inline void from_json(const superstep::json& j, TMsg& m) {
  m.id = j.value("id", "");
  m.text = j.at("text").get<std::string>();
}
struct TChat {
  std::vector<TMsg> messages;
  int turns = 0;
};
SUPERSTEP_STATE(TChat,
                SUPERSTEP_FIELD(TChat, messages, superstep::typed::add_messages{}),
                SUPERSTEP_FIELD(TChat, turns, superstep::typed::add{}));
