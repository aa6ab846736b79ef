// The server's storage, queue and status logic, over real HTTP on loopback (cpp-httplib's
// client) against an in-process superstep::server::Server on a fresh SQLite file. The JS suite
// (tests/server/js) drives the same server with the official SDK.
#include <sqlite3.h>

#include <optional>

#include <superstep/checkpoint/sqlite_saver.hpp>

#include "server/server_fixture.hpp"

namespace {

TEST_F(ServerTest, AGraphFactoryBuildsEachRunsGraphFromItsConfigAndContext) {
  // Graph "greeter" is built per run: its one node says the greeting the run's context names,
  // and the assistant's config reaches the factory deep-merged under the run's.
  std::atomic<int> built{0};
  db_ += ".factory";
  remove_db();
  sp::server::Server s({.database = db_, .port = 0, .log = false});
  s.add_graph("greeter", [&](const sp::CompileOptions& o, const json& config, const json& context) {
    ++built;
    std::string greeting = context.value("greeting", std::string("hello"));
    std::string who = config.value("configurable", json::object()).value("who", std::string("nobody"));
    sp::StateSchema schema;
    schema.field("said");
    sp::StateGraph g(schema);
    g.add_node("say", [greeting, who](const sp::State&) { return json{{"said", greeting + " " + who}}; });
    g.add_edge(sp::START, "say").add_edge("say", sp::END);
    sp::CompileOptions opts = o;
    opts.name = "greeter";
    return g.compile(opts);
  });
  s.start();
  httplib::Client c("127.0.0.1", s.port());
  auto post_json = [&](const std::string& path, const json& body) {
    auto r = c.Post(path, body.dump(), "application/json");
    EXPECT_TRUE(r && r->status == 200) << path << ": " << (r ? r->body : "no response");
    return r ? json::parse(r->body) : json(nullptr);
  };
  json a = post_json("/assistants", {{"graph_id", "greeter"}, {"config", {{"configurable", {{"who", "ada"}}}}}});
  json out = post_json("/runs/wait", {{"assistant_id", a["assistant_id"]}, {"input", json::object()},
                                      {"context", {{"greeting", "bonjour"}}}});
  EXPECT_EQ(out["said"], "bonjour ada");
  out = post_json("/runs/wait", {{"assistant_id", "greeter"}, {"input", json::object()}});
  EXPECT_EQ(out["said"], "hello nobody");
  EXPECT_GE(built.load(), 2);
  s.stop();
  remove_db();
}

TEST_F(ServerTest, SystemAssistantPerGraphWithLangGraphsId) {
  start();
  json a = get("/assistants/approval");
  // uuid5(graph_id, 6ba7b821-9dad-11d1-80b4-00c04fd430c8), as the reference server makes it
  EXPECT_EQ(a["assistant_id"], "e234584d-b7bf-527f-9d06-ba77f8f5172d");
  EXPECT_EQ(a["metadata"], json({{"created_by", "system"}}));
  EXPECT_EQ(a["version"], 1);
  EXPECT_EQ(get("/assistants/" + a["assistant_id"].get<std::string>())["graph_id"], "approval");
  json found = post("/assistants/search", {{"graph_id", "slow"}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]["name"], "slow");
  get("/assistants/nope", 404);
}

TEST_F(ServerTest, InterruptThenResumeAndStatuses) {
  start();
  std::string tid = new_thread();
  json out = post("/threads/" + tid + "/runs/wait", {{"assistant_id", "approval"}, {"input", {{"topic", "x"}}}});
  ASSERT_TRUE(out.contains("__interrupt__")) << out;
  EXPECT_EQ(out["__interrupt__"][0]["value"], json({{"question", "approve?"}}));
  json thread = get("/threads/" + tid);
  EXPECT_EQ(thread["status"], "interrupted");
  ASSERT_EQ(thread["interrupts"].size(), 1u);
  json runs = get("/threads/" + tid + "/runs");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["status"], "success");  // a run that pauses ends success; the thread is interrupted
  json state = get("/threads/" + tid + "/state");
  EXPECT_EQ(state["next"], json::array({"ask"}));
  EXPECT_EQ(state["tasks"][0]["interrupts"][0]["value"], json({{"question", "approve?"}}));

  // resume by interrupt id
  std::string iid = out["__interrupt__"][0]["id"];
  out = post("/threads/" + tid + "/runs/wait", {{"assistant_id", "approval"}, {"command", {{"resume", {{iid, "yes"}}}}}});
  EXPECT_EQ(out["approved"], true) << out;
  thread = get("/threads/" + tid);
  EXPECT_EQ(thread["status"], "idle");
  EXPECT_TRUE(thread["interrupts"].empty());
  json history = post("/threads/" + tid + "/history", json::object());
  ASSERT_GE(history.size(), 3u);
  EXPECT_EQ(history[0]["parent_checkpoint"], history[1]["checkpoint"]);
}

TEST_F(ServerTest, FailedRunReportsItsErrorAndTheThreadIsError) {
  start();
  std::string tid = new_thread();
  json out = post("/threads/" + tid + "/runs/wait", {{"assistant_id", "fail"}, {"input", {{"x", 1}}}});
  ASSERT_TRUE(out.contains("__error__")) << out;
  EXPECT_NE(out["__error__"]["message"].get<std::string>().find("boom failed"), std::string::npos);
  EXPECT_EQ(get("/threads/" + tid)["status"], "error");
  EXPECT_EQ(get("/threads/" + tid + "/runs")[0]["status"], "error");
}

TEST_F(ServerTest, RunsOfOneThreadRunOneAtATimeAndRejectIs422) {
  start();
  std::string tid = new_thread();
  json first = post("/threads/" + tid + "/runs", {{"assistant_id", "slow"}, {"input", {{"seconds", 1}}}});
  post("/threads/" + tid + "/runs", {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}}, 422);
  json second = post("/threads/" + tid + "/runs",
                     {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}, {"multitask_strategy", "enqueue"}});
  EXPECT_EQ(get("/threads/" + tid)["status"], "busy");
  EXPECT_EQ(get("/threads/" + tid + "/runs/" + second["run_id"].get<std::string>())["status"], "pending");
  json r1 = await_run(tid, first["run_id"]);
  json r2 = await_run(tid, second["run_id"]);
  EXPECT_EQ(r1["status"], "success");
  EXPECT_EQ(r2["status"], "success");
  // The second ends after the first (timestamps are milliseconds: a run of no work that starts
  // when the first ends may end within the same one).
  EXPECT_LE(r1["updated_at"].get<std::string>(), r2["updated_at"].get<std::string>());
  EXPECT_EQ(get("/threads/" + tid)["values"]["n"], 2);
  EXPECT_EQ(get("/threads/" + tid)["status"], "idle");
}

TEST_F(ServerTest, WorkersBoundRunsExecutingAtOnce) {
  start({.workers = 1});
  std::string a = new_thread(), b = new_thread();
  json ra = post("/threads/" + a + "/runs", {{"assistant_id", "slow"}, {"input", {{"seconds", 1}}}});
  json rb = post("/threads/" + b + "/runs", {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}});
  wait_before(a, "sleep");  // the one worker is in `a`'s run
  EXPECT_EQ(get("/threads/" + b + "/runs/" + rb["run_id"].get<std::string>())["status"], "pending");
  EXPECT_EQ(await_run(a, ra["run_id"])["status"], "success");
  EXPECT_EQ(await_run(b, rb["run_id"])["status"], "success");
}

TEST_F(ServerTest, NodesThatBlockTheirThreadDoNotStopTheServerAnswering) {
  // Runs start on the HTTP threads (src/server/io_threads.hpp); two runs whose node blocks its
  // thread for good (no co_await) must still leave the server answering, starting and finishing
  // other runs. Without the watchdog the first of them holds the only HTTP thread.
  g_release = false;
  g_blocked = 0;
  struct Release {
    ~Release() { g_release = true; }
  } release;  // a failed expectation below still unblocks the nodes, so the server can stop
  start({.io_threads = 1});
  client_->set_read_timeout(5, 0);
  auto wait_blocked = [](int n) {
    for (int i = 0; i < 500 && g_blocked < n; ++i) std::this_thread::sleep_for(10ms);
    return g_blocked.load();
  };
  std::string a = new_thread(), b = new_thread(), c = new_thread();
  json ra = post("/threads/" + a + "/runs", {{"assistant_id", "blocking"}, {"input", json::object()}});
  ASSERT_EQ(wait_blocked(1), 1);
  EXPECT_EQ(get("/ok")["ok"], true);
  json rb = post("/threads/" + b + "/runs", {{"assistant_id", "blocking"}, {"input", json::object()}});
  ASSERT_EQ(wait_blocked(2), 2);
  EXPECT_EQ(get("/threads/" + a)["status"], "busy");
  json waited = post("/threads/" + c + "/runs/wait", {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}});
  EXPECT_EQ(waited["done"], true);
  EXPECT_EQ(get("/threads/" + a + "/runs/" + ra["run_id"].get<std::string>())["status"], "running");
  // A /wait on a blocking run: its head (held while the run's first stretch runs, routes.cpp)
  // still arrives while the node blocks, once the watchdog added a thread.
  std::string d = new_thread();
  std::string body = json{{"assistant_id", "blocking"}, {"input", json::object()}}.dump();
  int fd = open_socket(server_->port());
  ASSERT_GE(fd, 0);
  std::string req = "POST /threads/" + d + "/runs/wait HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  ASSERT_EQ(::write(fd, req.data(), req.size()), static_cast<ssize_t>(req.size()));
  std::string head = read_head(fd);  // 5 s read timeout
  ::close(fd);
  EXPECT_NE(head.find("200 OK"), std::string::npos) << head;
  EXPECT_NE(head.find("Content-Location: /threads/" + d + "/runs/"), std::string::npos) << head;
  EXPECT_EQ(wait_blocked(3), 3);  // all three still blocked (the head may go out before the node counts itself)
  g_release = true;
  EXPECT_EQ(await_run(a, ra["run_id"])["status"], "success");
  EXPECT_EQ(await_run(b, rb["run_id"])["status"], "success");
  EXPECT_EQ(get("/threads/" + b)["values"]["done"], true);
}

TEST_F(ServerTest, CancelInterruptsAtTheNextBoundary) {
  start();
  std::string tid = new_thread();
  json run = post("/threads/" + tid + "/runs", {{"assistant_id", "slow"}, {"input", {{"seconds", 1}}}});
  std::string rid = run["run_id"];
  wait_before(tid, "sleep");
  auto r = client_->Post("/threads/" + tid + "/runs/" + rid + "/cancel?wait=1&action=interrupt", "", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 204);
  EXPECT_EQ(get("/threads/" + tid + "/runs/" + rid)["status"], "interrupted");
  // the node that was running finished and its step is checkpointed: null input continues
  json out = post("/threads/" + tid + "/runs/wait", {{"assistant_id", "slow"}, {"input", nullptr}});
  EXPECT_EQ(out["done"], true) << out;
  EXPECT_EQ(out["n"], 1) << out;
}

TEST_F(ServerTest, InterruptStrategyCancelsTheRunningRun) {
  start();
  std::string tid = new_thread();
  json first = post("/threads/" + tid + "/runs", {{"assistant_id", "slow"}, {"input", {{"seconds", 5}}}});
  wait_before(tid, "sleep");
  json second = post("/threads/" + tid + "/runs",
                     {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}, {"multitask_strategy", "interrupt"}});
  EXPECT_EQ(await_run(tid, second["run_id"])["status"], "success");
  EXPECT_EQ(get("/threads/" + tid + "/runs/" + first["run_id"].get<std::string>())["status"], "interrupted");
}

TEST_F(ServerTest, RollbackDeletesTheRunAndItsCheckpoints) {
  start();
  std::string tid = new_thread();
  post("/threads/" + tid + "/runs/wait", {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}});
  json before = get("/threads/" + tid + "/state");
  std::size_t history = post("/threads/" + tid + "/history", {{"limit", 100}}).size();
  json run = post("/threads/" + tid + "/runs", {{"assistant_id", "slow"}, {"input", {{"seconds", 5}}}});
  std::string rid = run["run_id"];
  wait_before(tid, "sleep");  // its input and `count` steps are checkpointed
  auto r = client_->Post("/threads/" + tid + "/runs/" + rid + "/cancel?wait=1&action=rollback", "", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 204);
  get("/threads/" + tid + "/runs/" + rid, 404);
  EXPECT_EQ(post("/threads/" + tid + "/history", {{"limit", 100}}).size(), history);
  json after = get("/threads/" + tid + "/state");
  EXPECT_EQ(after["checkpoint"], before["checkpoint"]);
  EXPECT_EQ(after["values"], before["values"]);
  EXPECT_EQ(get("/threads/" + tid)["values"]["n"], 1);
  EXPECT_EQ(get("/threads/" + tid)["status"], "idle");
}

TEST_F(ServerTest, RunTimeoutEndsARunWithStatusTimeout) {
  start({.run_timeout = 100ms});
  std::string tid = new_thread();
  json run = post("/threads/" + tid + "/runs", {{"assistant_id", "slow"}, {"input", {{"seconds", 5}}}});
  auto t0 = std::chrono::steady_clock::now();
  json r = await_run(tid, run["run_id"]);
  EXPECT_EQ(r["status"], "timeout");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);  // the sleeping node was woken
  EXPECT_NE(get("/threads/" + tid)["status"], "busy");
}

TEST_F(ServerTest, AfterSecondsDelaysTheStart) {
  start();
  std::string tid = new_thread();
  json run = post("/threads/" + tid + "/runs",
                  {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}, {"after_seconds", 1}});
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(get("/threads/" + tid + "/runs/" + run["run_id"].get<std::string>())["status"], "pending");
  EXPECT_EQ(await_run(tid, run["run_id"])["status"], "success");
  // As the reference server: a delayed run is created in the future, and the delay outlives a
  // restart (it used to be kept in memory only: the run started at once on the next start).
  json later = post("/threads/" + tid + "/runs", {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}, {"after_seconds", 3}});
  EXPECT_GT(later["created_at"].get<std::string>(), later["updated_at"].get<std::string>()) << later;
  restart();
  std::string path = "/threads/" + tid + "/runs/" + later["run_id"].get<std::string>();
  EXPECT_EQ(get(path)["status"], "pending");
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(get(path)["status"], "pending");
  EXPECT_EQ(await_run(tid, later["run_id"])["status"], "success");
}

// A process stopped after a run's record was stored and before its thread's (the two were
// separate commits): the pending run ran on the next start, but its thread named no graph, so
// its state read as never run and a client started the run again on top of it (the server
// torture found it). They are one commit now; a start-up also names the graph again on a
// thread left so, or makes the thread a run created (if_not_exists) when it is missing.
TEST_F(ServerTest, APendingRunWhoseThreadRecordWasNotStoredRunsOnceAndItsStateReads) {
  start();
  std::string old_thread = new_thread();  // its record names no graph until a run is created
  std::string new_thread_id = "0b9c2f3e-5a41-4c1e-9d7a-3f2b1c0d9e8a";
  json a = post("/threads/" + old_thread + "/runs",
                {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}, {"after_seconds", 1.5}});
  json b = post("/threads/" + new_thread_id + "/runs", {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}},
                                                        {"after_seconds", 1.5}, {"if_not_exists", "create"}});
  server_.reset();
  {
    // The records as the stop between the two commits left them.
    sp::SqliteStore store(db_);
    json t = store.get({"superstep_server", "threads"}, old_thread)->value;
    ASSERT_EQ(t["metadata"]["graph_id"], "slow");  // one commit with the run's record
    t["metadata"].erase("graph_id");
    t["metadata"].erase("assistant_id");
    store.put({"superstep_server", "threads"}, old_thread, t);
    ASSERT_TRUE(store.get({"superstep_server", "threads"}, new_thread_id));
    store.delete_({"superstep_server", "threads"}, new_thread_id);
  }
  start();
  for (const auto& [tid, run] : {std::pair{old_thread, a}, std::pair{new_thread_id, b}}) {
    SCOPED_TRACE(tid);
    EXPECT_EQ(await_run(tid, run["run_id"])["status"], "success");
    json thread = get("/threads/" + tid);
    EXPECT_EQ(thread["metadata"]["graph_id"], "slow");
    EXPECT_EQ(thread["status"], "idle");
    json state = get("/threads/" + tid + "/state");
    EXPECT_TRUE(state["checkpoint"]["checkpoint_id"].is_string()) << state;
    EXPECT_EQ(state["values"]["n"], 1) << state;
    EXPECT_EQ(get("/threads/" + tid + "/runs").size(), 1u);
  }
}

TEST_F(ServerTest, RecordsSurviveARestart) {
  start();
  std::string tid = new_thread();
  post("/threads/" + tid + "/runs/wait", {{"assistant_id", "approval"}, {"input", {{"topic", "x"}}}});
  std::string aid = get("/assistants/approval")["assistant_id"];
  restart();
  EXPECT_EQ(get("/assistants/approval")["assistant_id"], aid);
  json thread = get("/threads/" + tid);
  EXPECT_EQ(thread["status"], "interrupted");
  EXPECT_EQ(thread["values"]["topic"], "x");
  EXPECT_EQ(get("/threads/" + tid + "/runs").size(), 1u);
  json out = post("/threads/" + tid + "/runs/wait", {{"assistant_id", "approval"}, {"command", {{"resume", "yes"}}}});
  EXPECT_EQ(out["approved"], true);
}

TEST_F(ServerTest, ARunStoppedByShutdownResumesOnTheNextStartWithoutRerunningDoneNodes) {
  start({.grace = 0ms});
  std::string tid = new_thread();
  g_counted = 0;
  json run = post("/threads/" + tid + "/runs", {{"assistant_id", "slow"}, {"input", {{"seconds", 1}}}});
  std::string rid = run["run_id"];
  wait_before(tid, "sleep");  // `count` done and checkpointed, `sleep` running
  server_.reset();                     // grace 0: the run is returned to pending
  EXPECT_EQ(g_counted.load(), 1);
  start();
  json r = await_run(tid, rid);
  EXPECT_EQ(r["status"], "success");
  EXPECT_EQ(r["attempt"], 2);
  EXPECT_EQ(g_counted.load(), 1);  // `count` did not run again
  json values = get("/threads/" + tid)["values"];
  EXPECT_EQ(values["done"], true);
  EXPECT_EQ(values["n"], 1);
}

TEST_F(ServerTest, StreamFramingAndJoinWithLastEventId) {
  start();
  std::string tid = new_thread();
  auto r = client_->Post("/threads/" + tid + "/runs/stream",
                         json{{"assistant_id", "approval"}, {"input", {{"topic", "x"}}},
                              {"stream_mode", {"values", "updates"}}, {"stream_resumable", true}}.dump(),
                         "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/event-stream");
  std::string location = r->get_header_value("Content-Location");
  ASSERT_EQ(location.rfind("/threads/" + tid + "/runs/", 0), 0u) << location;
  EXPECT_EQ(r->body.rfind("event: metadata\ndata: {", 0), 0u) << r->body;
  EXPECT_NE(r->body.find("id: 0\n"), std::string::npos);
  EXPECT_NE(r->body.find("event: updates\ndata: {\"__interrupt__\""), std::string::npos) << r->body;
  // Join after event 2: only the later events, with their ids.
  httplib::Headers h = {{"Last-Event-ID", "2"}};
  auto j = client_->Get(location + "/stream", h);
  ASSERT_TRUE(j);
  EXPECT_EQ(j->body.find("id: 2\n"), std::string::npos);
  EXPECT_NE(j->body.find("id: 3\n"), std::string::npos) << j->body;
  EXPECT_EQ(j->body, r->body.substr(r->body.find("event:", r->body.find("id: 2\n"))));
}

TEST_F(ServerTest, AResumableRunsEventLogOutlivesARestart) {
  start();
  std::string tid = new_thread();
  auto r = client_->Post("/threads/" + tid + "/runs/stream",
                         json{{"assistant_id", "approval"}, {"input", {{"topic", "x"}}},
                              {"stream_mode", {"values", "updates"}}, {"stream_resumable", true}}.dump(),
                         "application/json");
  ASSERT_TRUE(r);
  std::string location = r->get_header_value("Content-Location");
  restart();
  httplib::Headers h = {{"Last-Event-ID", "-1"}};
  auto j = client_->Get(location + "/stream", h);
  ASSERT_TRUE(j);
  EXPECT_EQ(j->body, r->body);  // the same events with the same ids
}

TEST_F(ServerTest, ANewerVersionOfTheServerRecordsIsRefused) {
  start();
  server_.reset();
  {
    sp::SqliteStore store(db_);
    store.put({"superstep_server", "meta"}, "schema", json{{"version", 99}});
  }
  sp::server::Server s({.database = db_, .port = 0, .log = false});
  s.add_graph("approval", approval);
  try {
    s.start();
    ADD_FAILURE() << "started on newer records";
  } catch (const sp::Error& e) {
    EXPECT_NE(std::string(e.what()).find("version 99, newer than this build's (1)"), std::string::npos) << e.what();
  }
}

TEST_F(ServerTest, BadInputGetsA4xxWithAJsonBody) {
  start({.api_key = "secret"});
  EXPECT_EQ(get("/ok")["ok"], true);  // needs no key
  auto r = client_->Get("/threads/x");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_TRUE(json::parse(r->body).contains("detail"));
  client_->set_default_headers({{"x-api-key", "wrong"}});
  EXPECT_EQ(client_->Get("/assistants/approval")->status, 403);
  client_->set_default_headers({{"x-api-key", "secret"}});
  auto bad = client_->Post("/threads", "{not json", "application/json");
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(json::parse(bad->body)["detail"].get<std::string>().find("not valid JSON"), std::string::npos);
  // Bytes that are not UTF-8 (found by fuzz/fuzz_server_request): still a 400 with a JSON body,
  // the bad byte replaced in the message (it used to make the error reply itself a 500).
  auto binary = client_->Post("/threads", "\xf9{\"metadata\":1}", "application/json");
  EXPECT_EQ(binary->status, 400);
  EXPECT_NE(json::parse(binary->body)["detail"].get<std::string>().find("not valid JSON"), std::string::npos);
  EXPECT_EQ(client_->Get("/threads/\xff\xfe")->status, 422);  // a path that is not UTF-8 either
  EXPECT_EQ(client_->Post("/runs", "1e99999", "application/json")->status, 400);  // a number JSON cannot hold
  EXPECT_EQ(client_->Put("/store/items", "6.5", "application/json")->status, 422);  // not an object
  get("/threads/not-a-uuid", 422);
  get("/threads/" + std::string("00000000-0000-0000-0000-000000000000"), 404);
  post("/threads/00000000-0000-0000-0000-000000000000/runs", {{"assistant_id", "approval"}}, 404);
  post("/runs/wait", {{"assistant_id", "nope"}}, 404);
  post("/runs/wait", {{"input", json::object()}}, 422);
  post("/runs/wait", {{"assistant_id", "approval"}, {"stream_mode", "bogus"}}, 422);
  json t = post("/threads", {{"thread_id", "11111111-1111-1111-1111-111111111111"}});
  post("/threads", {{"thread_id", "11111111-1111-1111-1111-111111111111"}}, 409);
  EXPECT_EQ(post("/threads", {{"thread_id", "11111111-1111-1111-1111-111111111111"}, {"if_exists", "do_nothing"}}), t);
  // A body over 10 MiB: 413 as soon as the header announces it.
  std::string big = raw_request(server_->port(), "POST /threads HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                                 "Content-Length: 11534336\r\n\r\n");
  EXPECT_EQ(big.rfind("HTTP/1.1 413", 0), 0u) << big;
  EXPECT_NE(big.find("\"detail\""), std::string::npos) << big;
  auto pre = client_->Options("/threads");
  ASSERT_TRUE(pre);
  EXPECT_EQ(pre->status, 204);
  EXPECT_EQ(pre->get_header_value("Access-Control-Allow-Origin"), "*");
  // unknown fields are ignored
  json ok = post("/runs/wait", {{"assistant_id", "approval"}, {"input", {{"topic", "y"}}}, {"strict_resume", true},
                                {"checkpoint_during", false}});
  EXPECT_TRUE(ok.contains("__interrupt__"));
}

TEST_F(ServerTest, JsonNestedTooDeepIsA400AndTheServerStaysUp) {
  start();
  // {"metadata":{"a":[[...]]}}: 2 + n levels. A few hundred kilobytes nest 100,000 levels: json
  // parses that without recursion, but copying and writing it recursed once per level and
  // overflowed the stack (the process died).
  auto nested = [](std::size_t n) {
    return "{\"metadata\":{\"a\":" + std::string(n, '[') + std::string(n, ']') + "}}";
  };
  auto deep = client_->Post("/threads", nested(100000), "application/json");
  ASSERT_TRUE(deep);
  EXPECT_EQ(deep->status, 400);
  EXPECT_NE(json::parse(deep->body)["detail"].get<std::string>().find("more than 1000 levels deep"), std::string::npos)
      << deep->body;
  EXPECT_EQ(client_->Post("/threads", nested(999), "application/json")->status, 400);
  auto at_limit = client_->Post("/threads", nested(998), "application/json");  // 1000 levels: accepted
  ASSERT_TRUE(at_limit);
  EXPECT_EQ(at_limit->status, 200) << at_limit->body.substr(0, 200);
  // Brackets inside strings (escaped quotes too) are text, not nesting.
  json text = post("/threads", {{"metadata", {{"a", "\"" + std::string(5000, '[') + "\\"}}}});
  EXPECT_EQ(text["metadata"]["a"].get<std::string>().size(), 5002u);
  EXPECT_EQ(get("/ok")["ok"], true);
}

TEST_F(ServerTest, ABadRunOptionIs422AndCreatesNothing) {
  start();
  std::string tid = new_thread();
  // Each was read only once the run was queued or ending: a number for `durability` left the
  // thread busy for good, one for `on_disconnect` got a 422 for a run that was created and ran,
  // and one for `on_completion` (of a stateless run) ended the process.
  for (const auto& [key, bad] : std::vector<std::pair<std::string, json>>{{"durability", 5},
                                                                          {"durability", "bogus"},
                                                                          {"durability", json::object()},
                                                                          {"on_disconnect", 5},
                                                                          {"on_disconnect", "later"},
                                                                          {"on_completion", 5}}) {
    json r = post("/threads/" + tid + "/runs/wait", {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}, {key, bad}}, 422);
    EXPECT_NE(r["detail"].get<std::string>().find(key), std::string::npos) << r;
    r = post("/runs/wait", {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}, {key, bad}}, 422);
    EXPECT_NE(r["detail"].get<std::string>().find(key), std::string::npos) << r;
  }
  EXPECT_EQ(get("/ok")["ok"], true);
  EXPECT_EQ(get("/threads/" + tid)["status"], "idle");
  EXPECT_TRUE(get("/threads/" + tid + "/runs").empty());
  EXPECT_EQ(post("/threads/search", json::object()).size(), 1u) << "a refused stateless run left its thread";
  // null is the default; each valid value runs.
  for (const json& ok : {json(nullptr), json("sync"), json("async"), json("exit")}) {
    json out = post("/threads/" + tid + "/runs/wait", {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}, {"durability", ok},
                                                       {"on_disconnect", nullptr}, {"stream_subgraphs", nullptr}});
    EXPECT_EQ(out["done"], true) << ok;
  }
  json out = post("/threads/" + tid + "/runs/wait", {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}},
                                                     {"on_disconnect", "cancel"}, {"on_completion", "keep"}});
  EXPECT_EQ(out["done"], true);
  EXPECT_EQ(get("/threads/" + tid)["values"]["n"], 5);
}

// Fields a client may write into the thread's or the checkpoint's metadata (PATCH) are read
// where a throw would stop a run that is already marked running, or the server's start.
TEST_F(ServerTest, MetadataAClientWroteCannotWedgeARunOrTheNextStart) {
  start();
  std::string tid = new_thread();
  EXPECT_EQ(post("/threads/" + tid + "/runs/wait", {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}})["done"], true);
  // graph_id on the thread's record: read as the queued run starts (it used to throw there, the
  // run already marked running: from a timer, the process ended).
  json queued = post("/threads/" + tid + "/runs", {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}, {"after_seconds", 0.3}});
  auto patched = client_->Patch("/threads/" + tid, json{{"metadata", {{"graph_id", 5}}}}.dump(), "application/json");
  ASSERT_TRUE(patched);
  EXPECT_EQ(patched->status, 200) << patched->body;
  EXPECT_EQ(await_run(tid, queued["run_id"])["status"], "success");
  // run_id on the newest checkpoint: read at start-up for every pending run (it used to throw
  // there, so the server would not start again).
  // (graph_id is a string again after the run: create_run stores the assistant's)
  patched = client_->Patch("/threads/" + tid + "/state", json{{"metadata", {{"run_id", 5}, {"source", 7}}}}.dump(), "application/json");
  ASSERT_TRUE(patched);
  EXPECT_EQ(patched->status, 200) << patched->body;
  json later = post("/threads/" + tid + "/runs", {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}, {"after_seconds", 3600}});
  restart();
  EXPECT_EQ(get("/threads/" + tid + "/runs/" + later["run_id"].get<std::string>())["status"], "pending");
  EXPECT_EQ(get("/ok")["ok"], true);
  // A bad ttl leaves the thread's metadata as it was (it used to keep the refused request's).
  auto refused = client_->Patch("/threads/" + tid, json{{"metadata", {{"kept", true}}}, {"ttl", -1}}.dump(), "application/json");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 422) << refused->body;
  EXPECT_FALSE(get("/threads/" + tid)["metadata"].contains("kept"));
}

TEST_F(ServerTest, AStateUpdateListWithABadItemStoresNothing) {
  start();
  std::string tid = new_thread();
  EXPECT_EQ(post("/threads/" + tid + "/runs/wait", {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}})["done"], true);
  std::size_t before = post("/threads/" + tid + "/history", json::object()).size();
  json r = post("/threads/" + tid + "/state", {{"values", {{{"n", 5}}, 5}}, {"as_node", "finish"}}, 422);
  EXPECT_NE(r["detail"].get<std::string>().find("'values'[1]"), std::string::npos) << r;
  EXPECT_EQ(post("/threads/" + tid + "/history", json::object()).size(), before) << "the first item was stored";
  EXPECT_EQ(get("/threads/" + tid)["values"]["n"], 1);
  // A batch's item of the wrong shape is a 422 naming it, and says what was created before it.
  auto batch = client_->Post("/runs/batch",
                             json::array({json{{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}},
                                          json{{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}, {"stream_subgraphs", 5}}})
                                 .dump(),
                             "application/json");
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->status, 422) << batch->body;
  EXPECT_NE(batch->body.find("item 1"), std::string::npos) << batch->body;
  EXPECT_NE(batch->body.find("stream_subgraphs"), std::string::npos) << batch->body;
}

TEST_F(ServerTest, DurationsTooLongForTheClockAre422) {
  start();
  // after_seconds becomes nanoseconds of the steady clock and a thread's ttl whole seconds, both
  // int64: 1e300 used to overflow the conversion (undefined behaviour; the run started at once).
  json late = post("/runs", {{"assistant_id", "approval"}, {"input", {{"topic", "x"}}}, {"after_seconds", 1e300}}, 422);
  EXPECT_NE(late["detail"].get<std::string>().find("after_seconds"), std::string::npos) << late;
  post("/runs", {{"assistant_id", "approval"}, {"input", {{"topic", "x"}}}, {"after_seconds", 1e9 + 1}}, 422);
  json ttl = post("/threads", {{"ttl", 1e300}}, 422);
  EXPECT_NE(ttl["detail"].get<std::string>().find("ttl"), std::string::npos) << ttl;
  post("/threads", {{"ttl", {{"ttl", 2e9}, {"strategy", "delete"}}}}, 422);
  EXPECT_EQ(post("/threads", {{"ttl", 1e9}})["status"], "idle");  // the longest allowed
}

TEST_F(ServerTest, UpdateStateIs409WhileARunIsInFlight) {
  start();
  std::string tid = new_thread();
  post("/threads/" + tid + "/runs", {{"assistant_id", "slow"}, {"input", {{"seconds", 1}}}});
  post("/threads/" + tid + "/state", {{"values", {{"n", 5}}}}, 409);
  auto runs = get("/threads/" + tid + "/runs");
  await_run(tid, runs[0]["run_id"]);
  json cp = post("/threads/" + tid + "/state", {{"values", {{"n", 5}}}, {"as_node", "sleep"}});
  EXPECT_TRUE(cp["checkpoint"]["checkpoint_id"].is_string());
  EXPECT_EQ(get("/threads/" + tid)["values"]["n"], 6);
}

}  // namespace

// A client that connects while the server is still opening its database (a client retrying
// through a restart) waits until it is open, then gets its answer. Before, the HTTP threads
// served from the moment the port was bound and such a request reached the records before they
// existed: a crash, found by superstep-torture --server. Another connection holding the
// database locked keeps the server's open waiting (on SQLite's busy timeout) meanwhile.
TEST_F(ServerTest, ARequestArrivingWhileTheServerOpensWaitsForIt) {
  int probe = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::bind(probe, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::getsockname(probe, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  ::close(probe);
  const unsigned short port = ntohs(addr.sin_port);

  sqlite3* lock = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &lock), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(lock, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);

  sp::server::ServerOptions o;
  o.database = db_;
  o.port = port;
  o.log = false;
  sp::server::Server server(o);
  server.add_graph("approval", approval);
  std::thread starter([&] { server.start(); });
  std::thread unlock([&] {
    std::this_thread::sleep_for(600ms);
    sqlite3_exec(lock, "COMMIT", nullptr, nullptr, nullptr);
  });
  std::this_thread::sleep_for(200ms);  // start() is now waiting for the lock
  httplib::Client early("127.0.0.1", port);
  early.set_read_timeout(20, 0);
  auto r = early.Post("/threads", R"({"metadata":{"early":true}})", "application/json");
  for (int i = 0; !r && r.error() == httplib::Error::Connection && i < 500; ++i) {  // not bound yet (a loaded machine)
    std::this_thread::sleep_for(20ms);
    r = early.Post("/threads", R"({"metadata":{"early":true}})", "application/json");
  }
  unlock.join();
  starter.join();
  sqlite3_close(lock);
  ASSERT_TRUE(r) << "no answer";
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body)["metadata"]["early"], true);
  server.stop();
}

// By default another process may read the server's SQLite file while it serves (WAL), and sees
// what the server wrote once its group commits (ServerOptions::group_commit: about 100-200 ms
// later); with exclusive_database the server holds it locked, and a reader fails with "database
// is locked" after its busy timeout instead, until the server stops.
TEST_F(ServerTest, TheSqliteFileIsReadableWhileServingUnlessHeldExclusively) {
  const sp::SqliteSaver::Options quick{.busy_timeout = std::chrono::milliseconds(100)};
  start();
  std::string tid = new_thread();
  post("/threads/" + tid + "/runs/wait", {{"assistant_id", "approval"}, {"input", {{"topic", "x"}}}});
  {
    sp::SqliteSaver reader(db_, quick);
    std::optional<sp::CheckpointTuple> t;
    for (int i = 0; i < 60 && !(t = reader.get_tuple({tid, "", std::nullopt})); ++i) std::this_thread::sleep_for(50ms);
    ASSERT_TRUE(t) << "the reader saw no checkpoint of the served thread within 3 s";
  }
  restart({.exclusive_database = true});
  std::string held = new_thread();
  post("/threads/" + held + "/runs/wait", {{"assistant_id", "approval"}, {"input", {{"topic", "y"}}}});
  try {
    sp::SqliteSaver reader(db_, quick);
    reader.get_tuple({held, "", std::nullopt});
    ADD_FAILURE() << "read a file the server holds exclusively";
  } catch (const sp::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("database is locked"), std::string::npos) << e.what();
  }
  server_.reset();
  sp::SqliteSaver reader(db_, quick);
  EXPECT_TRUE(reader.get_tuple({held, "", std::nullopt})) << "what the server stored while it held the file";
}

namespace {
/// While alive, the real SQLite refuses to store the server's records that `when` (an SQL
/// condition on the store row NEW) selects: a trigger set on a connection of its own, which the
/// server's statements see at their next use.
class RefuseRecords {
 public:
  RefuseRecords(const std::string& db, const std::string& when) {
    EXPECT_EQ(sqlite3_open(db.c_str(), &db_), SQLITE_OK);
    sqlite3_busy_timeout(db_, 5000);
    exec("CREATE TRIGGER refuse_records BEFORE INSERT ON store WHEN " + when +
         " BEGIN SELECT RAISE(FAIL, 'injected: the disk refuses this record'); END");
  }
  ~RefuseRecords() {
    exec("DROP TRIGGER refuse_records");
    sqlite3_close(db_);
  }
  RefuseRecords(const RefuseRecords&) = delete;
  RefuseRecords& operator=(const RefuseRecords&) = delete;

 private:
  void exec(const std::string& sql) {
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << sql << ": " << (err ? err : "");
    sqlite3_free(err);
  }
  sqlite3* db_ = nullptr;
};
}  // namespace

// The SDK retries every 5xx, POSTs included, so a 5xx must never mean "run created": when the
// run's record cannot be stored, the server answers 500 and keeps no trace of the run (no
// listing, no pending run, the thread not left busy), and the retry makes the one run. The same
// for a thread.
TEST_F(ServerTest, ARunOrThreadWhoseRecordCannotBeStoredIsNotCreated) {
  start();
  std::string tid = new_thread();
  std::optional<RefuseRecords> refuse;
  refuse.emplace(db_, "NEW.prefix LIKE '%runs'");
  auto r = client_->Post("/threads/" + tid + "/runs/wait", json{{"assistant_id", "approval"}, {"input", {{"topic", "x"}}}}.dump(),
                         "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500) << r->body;
  EXPECT_NE(r->body.find("injected"), std::string::npos) << r->body;
  auto stateless = client_->Post("/runs/wait", json{{"assistant_id", "approval"}, {"input", {{"topic", "x"}}}}.dump(),
                                 "application/json");
  ASSERT_TRUE(stateless);
  EXPECT_EQ(stateless->status, 500) << stateless->body;
  EXPECT_EQ(get("/threads/" + tid + "/runs"), json::array()) << "a run that was refused is listed";
  EXPECT_EQ(get("/threads/" + tid)["status"], "idle");
  EXPECT_EQ(post("/threads/search", json::object()).size(), 1u) << "the stateless run's thread was kept";
  refuse.reset();
  // Likewise a thread whose record cannot be stored is not created (nor kept in memory).
  refuse.emplace(db_, "NEW.prefix LIKE '%threads'");
  auto refused = client_->Post("/threads", json{{"thread_id", "9b7e6f0c-2a6e-4f0e-8f51-3f1d2b6a7c10"}}.dump(), "application/json");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 500) << refused->body;
  EXPECT_EQ(post("/threads/search", json::object()).size(), 1u) << "a thread that was refused is listed";
  refuse.reset();
  post("/threads", {{"thread_id", "9b7e6f0c-2a6e-4f0e-8f51-3f1d2b6a7c10"}});  // the retry: 200, not 409
  EXPECT_EQ(post("/threads/search", json::object()).size(), 2u);

  json out = post("/threads/" + tid + "/runs/wait", {{"assistant_id", "approval"}, {"input", {{"topic", "x"}}}});
  EXPECT_TRUE(out.contains("__interrupt__")) << out.dump();
  json runs = get("/threads/" + tid + "/runs");
  ASSERT_EQ(runs.size(), 1u) << runs.dump();
  EXPECT_EQ(runs[0]["status"], "success");  // paused at its interrupt
  EXPECT_EQ(get("/threads/" + tid)["status"], "interrupted");
}

// threads.updateState stores a checkpoint, then the thread's record; when only the record fails,
// the answer is still 200: a 5xx would make the SDK retry and apply the update twice.
TEST_F(ServerTest, AStoredStateUpdateIsNotReportedAsAFailure) {
  start();
  std::string tid = new_thread();
  post("/threads/" + tid + "/runs/wait", {{"assistant_id", "approval"}, {"input", {{"topic", "x"}}}});
  std::size_t before = post("/threads/" + tid + "/history", json::object()).size();
  {
    RefuseRecords refuse(db_, "NEW.prefix LIKE '%threads'");
    post("/threads/" + tid + "/state", {{"values", {{"topic", "y"}}}});  // 200
  }
  EXPECT_EQ(post("/threads/" + tid + "/history", json::object()).size(), before + 1) << "one update, one checkpoint";
  EXPECT_EQ(get("/threads/" + tid + "/state")["values"]["topic"], "y");
  EXPECT_EQ(get("/threads/" + tid)["values"]["topic"], "y");
}

// A run's end is stored after it ran: when the database refuses that record, the server logs it
// and goes on (the run reads as ended in memory; the stored record, still pending, makes the next
// start finish it from its checkpoints, running no node again). It used to end the process.
TEST_F(ServerTest, ARunWhoseEndCannotBeStoredDoesNotStopTheServer) {
  start();
  std::string tid = new_thread();
  std::optional<RefuseRecords> refuse;
  refuse.emplace(db_, "NEW.prefix LIKE '%runs' AND json_extract(NEW.value, '$.status') <> 'pending'");
  int counted = g_counted;
  json out = post("/threads/" + tid + "/runs/wait", {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}});
  EXPECT_EQ(out["done"], true) << out.dump();
  json runs = get("/threads/" + tid + "/runs");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["status"], "success");
  EXPECT_EQ(get("/threads/" + tid)["status"], "idle");
  refuse.reset();
  // Still serving; a restart finishes the run whose end was not stored, and runs no node again.
  std::string other = new_thread();
  EXPECT_EQ(post("/threads/" + other + "/runs/wait", {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}})["done"], true);
  EXPECT_EQ(g_counted, counted + 2);
  std::size_t history = post("/threads/" + tid + "/history", json::object()).size();
  restart();
  json run = await_run(tid, runs[0]["run_id"]);
  EXPECT_EQ(run["status"], "success") << run.dump();
  EXPECT_EQ(get("/threads/" + tid)["status"], "idle");
  EXPECT_EQ(get("/threads/" + tid + "/state")["values"]["done"], true);
  EXPECT_EQ(post("/threads/" + tid + "/history", json::object()).size(), history) << "the finished run ran again";
  EXPECT_EQ(g_counted, counted + 2) << "a node ran again";
}

// Assistants likewise: a create or an update whose record is refused answers 500 and changes
// nothing, in memory or stored (no version left behind for the SDK's retry to skip past).
TEST_F(ServerTest, AnAssistantWhoseRecordCannotBeStoredIsNotChanged) {
  start();
  const std::string id = "4f9d3a52-8a7e-4c1e-9b0a-6d2f1e3c5b7a";
  std::optional<RefuseRecords> refuse;
  refuse.emplace(db_, "NEW.prefix LIKE '%.assistants'");
  auto r = client_->Post("/assistants", json{{"assistant_id", id}, {"graph_id", "approval"}}.dump(), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500) << r->body;
  get("/assistants/" + id, 404);
  refuse.reset();
  post("/assistants", {{"assistant_id", id}, {"graph_id", "approval"}, {"name", "first"}});
  refuse.emplace(db_, "NEW.prefix LIKE '%.assistants'");
  auto patched = client_->Patch("/assistants/" + id, json{{"name", "second"}}.dump(), "application/json");
  ASSERT_TRUE(patched);
  EXPECT_EQ(patched->status, 500) << patched->body;
  json a = get("/assistants/" + id);
  EXPECT_EQ(a["name"], "first");
  EXPECT_EQ(a["version"], 1);
  refuse.reset();
  restart();
  EXPECT_EQ(post("/assistants/" + id + "/versions", json::object()).size(), 1u) << "a refused update left its version";
  auto retried = client_->Patch("/assistants/" + id, json{{"name", "second"}}.dump(), "application/json");
  ASSERT_TRUE(retried);
  EXPECT_EQ(retried->status, 200) << retried->body;
  EXPECT_EQ(json::parse(retried->body)["version"], 2);
  EXPECT_EQ(get("/assistants/" + id)["name"], "second");
}
