#include "server/wire.hpp"

#include <boost/uuid/name_generator_sha1.hpp>
#include <boost/uuid/string_generator.hpp>
#include <boost/uuid/uuid_io.hpp>
#include <cxxabi.h>
#include <algorithm>
#include <cctype>
#include <typeinfo>

#include "internal/ids.hpp"
#include "internal/json_text.hpp"

namespace superstep::server {

// Time-ordered (the version 6 layout of checkpoint ids): records keyed by them (runs, threads)
// are appended at the end of the store's key index instead of at a random leaf of it.
std::string new_uuid() { return internal::uuid6(); }

std::string system_assistant_id(const std::string& graph_id) {
  static const boost::uuids::uuid ns = boost::uuids::string_generator()("6ba7b821-9dad-11d1-80b4-00c04fd430c8");
  boost::uuids::name_generator_sha1 gen(ns);
  return boost::uuids::to_string(gen(graph_id));
}

bool is_uuid(const std::string& s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!std::isxdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

bool nests_deeper_than(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

json parse_request_body(std::string_view text) {
  if (nests_deeper_than(text, kMaxRequestJsonDepth))
    throw HttpError(400, "The request body nests arrays and objects more than " + std::to_string(kMaxRequestJsonDepth) +
                             " levels deep");
  try {
    return json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number too big
    throw HttpError(400, std::string("The request body is not valid JSON: ") + e.what());
  }
}

std::string dump_wire(const json& j) { return internal::dump_json_replacing(j); }

std::string now_iso() { return internal::now_iso8601(); }

json deep_merge(json base, const json& over) {
  if (!base.is_object() || !over.is_object()) return over.is_null() ? base : over;
  for (auto it = over.begin(); it != over.end(); ++it) {
    auto b = base.find(it.key());
    if (b != base.end() && b->is_object() && it->is_object()) *b = deep_merge(std::move(*b), *it);
    else base[it.key()] = *it;
  }
  return base;
}

bool contains_ignoring_case(std::string_view text, std::string_view part) {
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  return std::search(text.begin(), text.end(), part.begin(), part.end(),
                     [&](char a, char b) { return lower(a) == lower(b); }) != text.end();
}

bool contains(const json& doc, const json& filter) {
  if (!filter.is_object()) return filter.is_null() || doc == filter;
  if (!doc.is_object()) return filter.empty();
  for (auto it = filter.begin(); it != filter.end(); ++it) {
    auto d = doc.find(it.key());
    if (d == doc.end()) return false;
    if (it->is_object() && d->is_object()) {
      if (!contains(*d, *it)) return false;
    } else if (*d != *it) {
      return false;
    }
  }
  return true;
}

json checkpoint_wire(const CheckpointConfig& c) {
  return json{{"thread_id", c.thread_id},
              {"checkpoint_ns", c.checkpoint_ns},
              {"checkpoint_id", c.checkpoint_id ? json(*c.checkpoint_id) : json(nullptr)},
              {"checkpoint_map", nullptr}};
}

namespace {
json task_wire(const PregelTask& t) {
  json interrupts = json::array();
  for (const Interrupt& i : t.interrupts) interrupts.push_back(i.to_json());
  json checkpoint = nullptr, state = nullptr;
  if (t.state) state = state_wire(*t.state);
  if (t.state_config) {
    checkpoint = json{{"thread_id", t.state_config->thread_id}, {"checkpoint_ns", t.state_config->checkpoint_ns}};
  }
  return json{{"id", t.id},
              {"name", t.name},
              {"path", t.path},
              {"error", t.error ? json(*t.error) : json(nullptr)},
              {"interrupts", std::move(interrupts)},
              {"checkpoint", std::move(checkpoint)},
              {"state", std::move(state)},
              {"result", t.result}};
}
}  // namespace

json state_wire(const StateSnapshot& s) {
  if (!s.config.checkpoint_id) return empty_state_wire();
  json tasks = json::array();
  for (const PregelTask& t : s.tasks) tasks.push_back(task_wire(t));
  return json{{"values", s.values},
              {"next", s.next},
              {"tasks", std::move(tasks)},
              {"metadata", s.metadata},
              {"created_at", s.created_at.empty() ? json(nullptr) : json(s.created_at)},
              {"checkpoint", checkpoint_wire(s.config)},
              {"parent_checkpoint", s.parent_config ? checkpoint_wire(*s.parent_config) : json(nullptr)}};
}

json empty_state_wire() {
  return json{{"values", json::object()}, {"next", json::array()},      {"tasks", json::array()},
              {"metadata", json::object()}, {"created_at", nullptr}, {"checkpoint", nullptr},
              {"parent_checkpoint", nullptr}};
}

json graph_wire(const DrawableGraph& g) {
  // The reference server's shapes: START/END are "schema" nodes, every other node a
  // "runnable" with its metadata; a subgraph drawn as one node names its compiled graph.
  json nodes = json::array(), edges = json::array();
  for (const auto& n : g.nodes) {
    if (n.id == "__start__" || n.id == "__end__") {
      nodes.push_back({{"id", n.id}, {"type", "schema"}, {"data", {{"$schema", "https://json-schema.org/draft/2020-12/schema"}}}});
      continue;
    }
    json data = n.subgraph.empty() ? json{{"id", {"langgraph", "RunnableCallable"}}, {"name", n.id.substr(n.id.rfind(':') + 1)}}
                                   : json{{"id", {"langgraph", "pregel", "CompiledStateGraph"}}, {"name", n.subgraph}};
    nodes.push_back({{"id", n.id}, {"type", "runnable"}, {"data", std::move(data)},
                     {"metadata", n.metadata.is_object() ? n.metadata : json::object()}});
  }
  for (const auto& e : g.edges) {
    json edge = {{"source", e.source}, {"target", e.target}};
    if (!e.label.empty()) edge["data"] = e.label;
    edge["conditional"] = e.conditional;
    edges.push_back(std::move(edge));
  }
  return json{{"nodes", std::move(nodes)}, {"edges", std::move(edges)}};
}

json graph_schema_wire(const std::string& graph_id, const CompiledStateGraph& g) {
  json object = {{"$schema", "http://json-schema.org/draft-07/schema#"}, {"type", "object"}};
  return json{{"graph_id", graph_id},
              {"input_schema", g.get_input_jsonschema()},
              {"output_schema", g.get_output_jsonschema()},
              {"state_schema", g.get_state_jsonschema()},
              {"config_schema", object},
              {"context_schema", object}};
}

std::string error_name(const std::exception& e) {
  int status = 0;
  const char* mangled = typeid(e).name();
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : mangled;
  std::free(demangled);
  // The standard library's exceptions are the generic "Error" (JS's Error, Python's Exception);
  // superstep's and the user's own classes keep their names (GraphRecursionError, MyError).
  if (name.rfind("std::", 0) == 0) return "Error";
  auto colon = name.rfind("::");
  return colon == std::string::npos ? name : name.substr(colon + 2);
}

/// A page of `items` sorted by `sort_by` (a top-level field) in `sort_order`.
json page(std::vector<const json*> items, const json& body, const char* default_sort, std::size_t* total) {
  std::string sort_by = body.value("sort_by", std::string(default_sort));
  std::string order = body.value("sort_order", std::string("desc"));
  std::stable_sort(items.begin(), items.end(), [&](const json* a, const json* b) {
    const json& x = a->contains(sort_by) ? (*a)[sort_by] : json(nullptr);
    const json& y = b->contains(sort_by) ? (*b)[sort_by] : json(nullptr);
    return order == "asc" ? x < y : y < x;
  });
  if (total) *total = items.size();
  auto num = [&](const char* key, std::int64_t dflt) {
    const json& v = body.contains(key) ? body[key] : json(nullptr);
    if (v.is_null()) return dflt;
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
      throw HttpError(422, std::string("'") + key + "' must be a non-negative integer");
    return v.get<std::int64_t>();
  };
  auto limit = static_cast<std::size_t>(num("limit", 10));
  auto offset = static_cast<std::size_t>(num("offset", 0));
  json out = json::array();
  json select = body.contains("select") ? body["select"] : json(nullptr);
  for (std::size_t i = offset; i < items.size() && out.size() < limit; ++i) {
    if (select.is_array() && !select.empty()) {
      json picked = json::object();
      for (const auto& f : select)
        if (f.is_string() && items[i]->contains(f.get<std::string>())) picked[f.get<std::string>()] = (*items[i])[f.get<std::string>()];
      out.push_back(std::move(picked));
    } else {
      out.push_back(*items[i]);
    }
  }
  return out;
}

json count_query(const json& body) {
  json q = body.is_object() ? body : json::object();
  q["limit"] = 0;
  q.erase("offset");
  q.erase("select");
  return q;
}

void require_object(const json& body, const char* what) {
  if (!body.is_object()) throw HttpError(422, std::string(what) + ": the body must be a JSON object");
}

std::string string_at(const json& doc, const char* key) {
  if (!doc.is_object()) return {};
  auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}


}  // namespace superstep::server
