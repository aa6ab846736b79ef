// Wire helpers: ids, times, JSON merging and matching, and the LangGraph Platform shapes of
// engine values (ThreadState from a StateSnapshot).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "superstep/graph/compiled_state_graph.hpp"
#include "superstep/drawable_graph.hpp"
#include "superstep/state_snapshot.hpp"

namespace superstep::server {

/// A request the server refuses: the status and the `detail` of its JSON body.
struct HttpError : std::runtime_error {
  HttpError(unsigned status, const std::string& detail) : std::runtime_error(detail), status(status) {}
  unsigned status;
};


/// How deep a request's JSON may nest arrays and objects. A body of a few megabytes can nest a
/// million levels; json parses that without recursion, but copying, merging and writing it
/// recurse once per level and would overflow the thread's stack.
inline constexpr std::size_t kMaxRequestJsonDepth = 1000;
/// Whether `text` nests arrays and objects (outside strings) deeper than `limit`.
bool nests_deeper_than(std::string_view text, std::size_t limit);
/// A request body parsed (json::parse). Throws HttpError 400 naming the problem when it is not
/// JSON or nests deeper than kMaxRequestJsonDepth.
json parse_request_body(std::string_view text);

/// JSON text for the wire: compact, with invalid UTF-8 (from an exception's message or a
/// node's bytes) replaced by U+FFFD instead of throwing.
std::string dump_wire(const json& j);

std::string new_uuid();
/// LangGraph's system assistant id of a graph: uuid5(graph_id) in namespace
/// 6ba7b821-9dad-11d1-80b4-00c04fd430c8.
std::string system_assistant_id(const std::string& graph_id);
bool is_uuid(const std::string& s);
std::string now_iso();
/// `base` with `over` merged in: objects recursively, anything else replaced.
json deep_merge(json base, const json& over);
/// Every key of `filter` is in `doc` with an equal value (objects: recursively contained).
bool contains(const json& doc, const json& filter);
/// `part` occurs in `text`, ASCII letters compared without case (the reference's name filter).
bool contains_ignoring_case(std::string_view text, std::string_view part);
/// The ThreadState shape of a snapshot.
json state_wire(const StateSnapshot& s);
/// The ThreadState of a thread that never ran.
json empty_state_wire();
/// `{"thread_id","checkpoint_ns","checkpoint_id","checkpoint_map":null}`.
json checkpoint_wire(const CheckpointConfig& c);
/// LangGraph's JSON drawing of a graph (`GET /assistants/{id}/graph`).
json graph_wire(const DrawableGraph& g);
/// `GET /assistants/{id}/schemas`: {graph_id, input_schema, output_schema, state_schema,
/// config_schema, context_schema} (config and context: any object).
json graph_schema_wire(const std::string& graph_id, const CompiledStateGraph& g);
/// The name of an exception's class without namespaces (LangGraph's `error` field).
std::string error_name(const std::exception& e);
/// A page of `items` (search endpoints): sorted by the body's `sort_by` (a top-level field;
/// `default_sort` when absent) in `sort_order` (desc by default), `offset`/`limit` (10), and
/// only the `select`ed fields; `total` gets how many matched.
json page(std::vector<const json*> items, const json& body, const char* default_sort, std::size_t* total);
/// A count endpoint's body as a search body: its filters, no page (limit 0; page() still
/// counts every match in `total`).
json count_query(const json& body);
/// Throws 422 naming `what` when the body is not an object.
void require_object(const json& body, const char* what);
/// `doc[key]` when `doc` is an object holding a string there, else empty: for documents a
/// client may have written into (metadata), read where a throw would end a run or the process.
std::string string_at(const json& doc, const char* key);

}  // namespace superstep::server
