// 13: serve your own graph over the LangGraph Platform API, so the official LangGraph SDK
// (`@langchain/langgraph-sdk`), `useStream` and `RemoteGraph` can drive it.
//
//   build/debug/examples/13_serve --port 2024 --db tickets.db
//
// then, from JavaScript:
//
//   import { Client } from "@langchain/langgraph-sdk";
//   const client = new Client({ apiUrl: "http://127.0.0.1:2024" });
//   const thread = await client.threads.create();
//   for await (const part of client.runs.stream(thread.thread_id, "triage",
//       { input: { ticket: "refund please" }, streamMode: ["updates"] })) console.log(part);
//   await client.runs.wait(thread.thread_id, "triage", { command: { resume: "approve" } });
//
// `13_serve --check` starts it on a free port, sends one run over HTTP (what the SDK does) and
// stops: the CTest run of this example.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <string>

#include <superstep/server/server.hpp>
#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

// triage: classify a support ticket; refunds wait for a human (interrupt), then it is answered.
sp::CompiledStateGraph triage(const sp::CompileOptions& options) {
  sp::StateSchema s;
  s.field("ticket").field("category").field("decision").field("reply");
  sp::StateGraph g(s);
  g.add_node("classify", [](const sp::State& st) {
    std::string t = st.get<std::string>("ticket");
    return json{{"category", t.find("refund") != std::string::npos ? "refund" : "question"}};
  });
  g.add_node("review", [](const sp::State& st, sp::Runtime& rt) -> sp::NodeResult {
    json decision = sp::interrupt(rt, json{{"ticket", st["ticket"]}, {"ask", "approve or deny the refund?"}});
    return json{{"decision", decision}};
  });
  g.add_node("answer", [](const sp::State& st) {
    std::string reply = st.get<std::string>("category") == "refund"
                            ? "Your refund was " + std::string(st["decision"] == "approve" ? "approved" : "denied") + "."
                            : "Thanks, we will get back to you.";
    return json{{"reply", reply}};
  });
  g.add_edge(sp::START, "classify");
  g.add_conditional_edges("classify", [](const sp::State& st) {
    return st.get<std::string>("category") == "refund" ? "review" : "answer";
  }, std::vector<std::string>{"review", "answer"});
  g.add_edge("review", "answer").add_edge("answer", sp::END);
  sp::CompileOptions o = options;  // the server's checkpointer and store
  o.name = "triage";
  return g.compile(o);
}

// What a client sends (normally the SDK): one request, the whole response.
std::string http(unsigned short port, const std::string& method, const std::string& path, const json& body) {
  std::string text = body.dump();
  std::string req = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    "Content-Type: application/json\r\nContent-Length: " + std::to_string(text.size()) + "\r\n\r\n" + text;
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string out;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && ::write(fd, req.data(), req.size()) > 0) {
    char buf[4096];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

/// The JSON document of a chunked response (what /runs/wait sends: keep-alive newlines, then it).
json body_of(const std::string& response) {
  std::size_t start = response.find("\r\n\r\n") + 4, brace = response.find('{', start);
  std::size_t end = response.rfind('}');
  return json::parse(response.substr(brace, end - brace + 1));
}

int main(int argc, char** argv) {
  sp::server::ServerOptions options;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--port" && i + 1 < argc) options.port = static_cast<unsigned short>(std::stoi(argv[++i]));
    else if (a == "--db" && i + 1 < argc) options.database = argv[++i];
    else if (a == "--check") check = true;
  }
  if (check) {
    options.port = 0;
    options.log = false;
    if (options.database == "superstep.db") options.database = "13_serve_check.db";
    std::remove(options.database.c_str());
  }
  sp::server::Server server(options);
  server.add_graph("triage", triage);
  server.start();
  std::cout << "serving graph 'triage' on " << server.url() << std::endl;
  if (!check) {
    server.run();  // until Ctrl-C
    return 0;
  }
  unsigned short port = server.port();
  json thread = body_of(http(port, "POST", "/threads", json::object()));
  std::string runs = "/threads/" + thread["thread_id"].get<std::string>() + "/runs/wait";
  json paused = body_of(http(port, "POST", runs, {{"assistant_id", "triage"}, {"input", {{"ticket", "refund please"}}}}));
  std::cout << "paused: " << paused.dump() << std::endl;
  json done = body_of(http(port, "POST", runs, {{"assistant_id", "triage"}, {"command", {{"resume", "approve"}}}}));
  std::cout << "reply: " << done["reply"].get<std::string>() << std::endl;
  server.stop();
  std::remove(options.database.c_str());
  return done["reply"] == "Your refund was approved." ? 0 : 1;
}
