// Crons (`client.crons`) over loopback HTTP, on a clock the test steps: schedules fire once per
// due time, a missed firing fires once (also across a restart), time zones, end times,
// enabling, stateless crons keeping or deleting their threads, and the 4xx of bad crons. The
// JS suite (tests/server/js/crons.test.mjs) drives the same endpoints with the SDK.
#include "server/server_fixture.hpp"

namespace {

class CronTest : public ServerTest {
 protected:
  void start_with_clock() {
    sp::server::ServerOptions o;
    o.clock = [this] { return std::chrono::system_clock::time_point(std::chrono::seconds(now_.load())); };
    o.cron_poll = 10ms;
    restart(o);
  }
  void set_clock(const char* iso) {
    std::tm tm{};
    ::strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm);
    now_ = ::timegm(&tm);
  }
  std::size_t runs_of(const std::string& tid) { return get("/threads/" + tid + "/runs?limit=100").size(); }
  /// Waits until the thread has `n` runs, none of them pending or running.
  void await_runs(const std::string& tid, std::size_t n) {
    for (int i = 0; i < 500; ++i) {
      json runs = get("/threads/" + tid + "/runs?limit=100");
      bool settled = runs.size() == n;
      for (const auto& r : runs) settled = settled && r["status"] != "pending" && r["status"] != "running";
      if (settled) return;
      std::this_thread::sleep_for(10ms);
    }
    ADD_FAILURE() << "thread " << tid << " did not reach " << n << " ended runs; it has " << runs_of(tid);
  }
  std::size_t thread_count() { return post("/threads/count", json::object()).get<std::size_t>(); }

  std::atomic<std::int64_t> now_{0};
};

TEST_F(CronTest, AThreadCronFiresOncePerDueTimeAndOnceForMissedOnes) {
  set_clock("2026-11-26T12:01:00");
  start_with_clock();
  std::string tid = new_thread();
  json cron = post("/threads/" + tid + "/runs/crons",
                   {{"assistant_id", "slow"}, {"schedule", "*/5 * * * *"}, {"input", {{"seconds", 0}}},
                    {"metadata", {{"owner", "ops"}}}});
  EXPECT_EQ(cron["thread_id"], tid);
  EXPECT_EQ(cron["assistant_id"], get("/assistants/slow")["assistant_id"]);
  EXPECT_EQ(cron["schedule"], "*/5 * * * *");
  EXPECT_EQ(cron["next_run_date"], "2026-11-26T12:05:00.000Z");
  EXPECT_EQ(cron["enabled"], true);
  EXPECT_EQ(cron["payload"]["input"], json({{"seconds", 0}}));
  EXPECT_TRUE(cron["end_time"].is_null());

  std::this_thread::sleep_for(100ms);  // not due: nothing fires
  EXPECT_EQ(runs_of(tid), 0u);
  set_clock("2026-11-26T12:05:00");
  await_runs(tid, 1);
  json run = get("/threads/" + tid + "/runs")[0];
  EXPECT_EQ(run["status"], "success");
  EXPECT_EQ(run["metadata"]["cron_id"], cron["cron_id"]);
  EXPECT_EQ(run["metadata"]["owner"], "ops");
  std::this_thread::sleep_for(100ms);  // fired once, not at every poll
  EXPECT_EQ(runs_of(tid), 1u);

  set_clock("2026-11-26T12:17:30");  // 12:10 and 12:15 were missed: one firing for both
  await_runs(tid, 2);
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(runs_of(tid), 2u);
  json found = post("/runs/crons/search", {{"thread_id", tid}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]["next_run_date"], "2026-11-26T12:20:00.000Z");
}

TEST_F(CronTest, CronsSurviveARestartAndAFiringMissedWhileStoppedFiresOnceAtStart) {
  set_clock("2026-11-26T08:00:00");
  start_with_clock();
  std::string tid = new_thread();
  json cron = post("/threads/" + tid + "/runs/crons",
                   {{"assistant_id", "slow"}, {"schedule", "0 9 * * *"}, {"input", {{"seconds", 0}}},
                    {"timezone", "America/New_York"}});
  EXPECT_EQ(cron["next_run_date"], "2026-11-26T14:00:00.000Z");  // 09:00 in New York
  EXPECT_EQ(cron["timezone"], "America/New_York");
  server_.reset();
  set_clock("2026-11-28T15:00:00");  // two 09:00s passed while the server was down
  start_with_clock();
  await_runs(tid, 1);
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(runs_of(tid), 1u);
  EXPECT_EQ(post("/runs/crons/search", {{"thread_id", tid}})[0]["next_run_date"], "2026-11-29T14:00:00.000Z");
}

TEST_F(CronTest, StatelessCronsMakeAThreadPerFiringAndDeleteItUnlessKept) {
  set_clock("2026-11-26T12:00:30");
  start_with_clock();
  json kept = post("/runs/crons", {{"assistant_id", "slow"}, {"schedule", "* * * * *"}, {"input", {{"seconds", 0}}},
                                   {"on_run_completed", "keep"}});
  EXPECT_TRUE(kept["thread_id"].is_null());
  EXPECT_EQ(kept["on_run_completed"], "keep");
  json dropped = post("/runs/crons", {{"assistant_id", "slow"}, {"schedule", "* * * * *"}, {"input", {{"seconds", 0}}}});
  EXPECT_EQ(dropped["on_run_completed"], "delete");
  const int counted = g_counted;
  set_clock("2026-11-26T12:01:00");
  // Both fire; the kept cron's thread stays (with its run's values), the other's goes. (Both runs
  // started, so both threads were made: one thread left means the other's was deleted.)
  for (int i = 0; i < 1000 && (g_counted < counted + 2 || thread_count() != 1); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(g_counted, counted + 2);
  json threads = post("/threads/search", json::object());
  ASSERT_EQ(threads.size(), 1u) << threads.dump();
  std::string tid = threads[0]["thread_id"];
  await_runs(tid, 1);
  EXPECT_EQ(get("/threads/" + tid + "/runs")[0]["metadata"]["cron_id"], kept["cron_id"]);
  EXPECT_EQ(get("/threads/" + tid)["values"]["done"], true);
}

TEST_F(CronTest, DisabledCronsAndEndTimesDoNotFire) {
  set_clock("2026-11-26T12:00:30");
  start_with_clock();
  std::string tid = new_thread();
  json off = post("/threads/" + tid + "/runs/crons",
                  {{"assistant_id", "slow"}, {"schedule", "* * * * *"}, {"input", {{"seconds", 0}}}, {"enabled", false}});
  EXPECT_TRUE(off["next_run_date"].is_null());
  std::string other = new_thread();
  json ended = post("/threads/" + other + "/runs/crons",
                    {{"assistant_id", "slow"}, {"schedule", "0 * * * *"}, {"input", {{"seconds", 0}}},
                     {"end_time", "2026-11-26T12:30:00Z"}});
  EXPECT_TRUE(ended["next_run_date"].is_null());  // its next 13:00 is past its end
  EXPECT_EQ(ended["end_time"], "2026-11-26T12:30:00.000Z");
  set_clock("2026-11-26T13:00:00");
  std::this_thread::sleep_for(150ms);
  EXPECT_EQ(runs_of(tid), 0u);
  EXPECT_EQ(runs_of(other), 0u);

  // Enabling computes its next firing from now; patching the schedule too.
  json on = client_->Patch("/runs/crons/" + off["cron_id"].get<std::string>(), json({{"enabled", true}}).dump(),
                           "application/json")
                ? json::parse(client_->Patch("/runs/crons/" + off["cron_id"].get<std::string>(),
                                             json({{"schedule", "*/2 * * * *"}, {"metadata", {{"v", 2}}}}).dump(),
                                             "application/json")
                                  ->body)
                : json(nullptr);
  EXPECT_EQ(on["enabled"], true);
  EXPECT_EQ(on["schedule"], "*/2 * * * *");
  EXPECT_EQ(on["next_run_date"], "2026-11-26T13:02:00.000Z");
  EXPECT_EQ(on["metadata"]["v"], 2);
  set_clock("2026-11-26T13:02:00");
  await_runs(tid, 1);
}

TEST_F(CronTest, SearchCountDeleteAndTheirCascades) {
  set_clock("2026-11-26T12:00:00");
  start_with_clock();
  std::string a = new_thread(), b = new_thread();
  json body = {{"assistant_id", "slow"}, {"schedule", "@daily"}, {"input", {{"seconds", 0}}}};
  std::string c1 = post("/threads/" + a + "/runs/crons", body)["cron_id"];
  std::this_thread::sleep_for(5ms);  // created_at has milliseconds: keep the order unambiguous
  post("/threads/" + a + "/runs/crons", body);
  post("/threads/" + b + "/runs/crons", body);
  post("/runs/crons", {{"assistant_id", "approval"}, {"schedule", "@hourly"}});
  EXPECT_EQ(post("/runs/crons/count", json::object()), 4);
  EXPECT_EQ(post("/runs/crons/count", {{"thread_id", a}}), 2);
  EXPECT_EQ(post("/runs/crons/count", {{"assistant_id", "approval"}}), 1);  // a graph id names its assistant
  json page = post("/runs/crons/search", {{"limit", 2}, {"sort_by", "created_at"}, {"sort_order", "asc"},
                                          {"select", {"cron_id", "thread_id"}}});
  ASSERT_EQ(page.size(), 2u);
  EXPECT_EQ(page[0]["cron_id"], c1);
  EXPECT_EQ(page[0].size(), 2u);  // only the selected fields
  auto del = client_->Delete("/runs/crons/" + c1);
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 204);
  EXPECT_EQ(client_->Delete("/runs/crons/" + c1)->status, 404);
  EXPECT_EQ(client_->Delete("/threads/" + a)->status, 204);  // its other cron goes with it
  EXPECT_EQ(post("/runs/crons/count", json::object()), 2);
  restart({});
  EXPECT_EQ(post("/runs/crons/count", json::object()), 2);  // stored
}

TEST_F(CronTest, AThreadsTtlDeletesItOrPrunesItOnceItHasBeenQuietThatLong) {
  // The ttl counts from the thread's last update, on the same clock as the crons.
  set_clock("2026-11-26T12:00:00");
  start_with_clock();
  std::string doomed = post("/threads", {{"ttl", {{"ttl", 1}, {"strategy", "delete"}}}})["thread_id"];
  std::string kept = post("/threads", {{"ttl", 1}})["thread_id"];  // minutes; delete by default
  std::string pruned = post("/threads", {{"ttl", {{"ttl", 1}, {"strategy", "keep_latest"}}}})["thread_id"];
  std::string forever = new_thread();
  post("/threads/" + pruned + "/runs/wait", {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}});
  post("/threads/" + kept + "/runs/wait", {{"assistant_id", "slow"}, {"input", {{"seconds", 0}}}});
  EXPECT_GT(post("/threads/" + pruned + "/history", {{"limit", 100}}).size(), 1u);
  // Patching `kept` with no ttl removes it; the others' ttl runs out a minute after their last
  // update (real time: the threads were updated just now, the clock jumps ahead).
  auto r = client_->Patch("/threads/" + kept, json({{"ttl", nullptr}}).dump(), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  now_ = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count() + 30;
  std::this_thread::sleep_for(100ms);
  get("/threads/" + doomed);  // 30 s: not yet
  now_ += 61;
  for (int i = 0; i < 300 && client_->Get("/threads/" + doomed)->status != 404; ++i) std::this_thread::sleep_for(10ms);
  get("/threads/" + doomed, 404);
  get("/threads/" + kept);
  get("/threads/" + forever);
  for (int i = 0; i < 300 && post("/threads/" + pruned + "/history", {{"limit", 100}}).size() != 1; ++i)
    std::this_thread::sleep_for(10ms);
  json history = post("/threads/" + pruned + "/history", {{"limit", 100}});
  ASSERT_EQ(history.size(), 1u);  // only its latest checkpoint, with the run's final values
  EXPECT_EQ(history[0]["values"]["done"], true);
  EXPECT_EQ(get("/threads/" + pruned)["values"]["done"], true);

  // Bad ttls are named.
  EXPECT_NE(post("/threads", {{"ttl", {{"ttl", -1}}}}, 422)["detail"].get<std::string>().find("ttl"), std::string::npos);
  EXPECT_NE(post("/threads", {{"ttl", {{"ttl", 5}, {"strategy", "archive"}}}}, 422)["detail"].get<std::string>().find("strategy"),
            std::string::npos);
}

TEST_F(CronTest, BadCronsGetA4xxNamingTheProblem) {
  start_with_clock();
  std::string tid = new_thread();
  auto detail = [&](const std::string& path, const json& body, int status) {
    json r = post(path, body, status);
    return r.is_object() ? r.value("detail", std::string()) : std::string();
  };
  std::string path = "/threads/" + tid + "/runs/crons";
  EXPECT_NE(detail(path, {{"assistant_id", "slow"}, {"schedule", "61 * * * *"}}, 422).find("the minute field '61'"),
            std::string::npos);
  EXPECT_NE(detail(path, {{"assistant_id", "slow"}}, 422).find("'schedule'"), std::string::npos);
  EXPECT_NE(detail(path, {{"assistant_id", "slow"}, {"schedule", "@daily"}, {"timezone", "Mars/Olympus_Mons"}}, 422)
                .find("time zone 'Mars/Olympus_Mons'"),
            std::string::npos);
  EXPECT_NE(detail(path, {{"assistant_id", "slow"}, {"schedule", "@daily"}, {"end_time", "soon"}}, 422).find("end_time"),
            std::string::npos);
  EXPECT_NE(detail(path, {{"assistant_id", "nope"}, {"schedule", "@daily"}}, 404).find("nope"), std::string::npos);
  post("/threads/00000000-0000-0000-0000-000000000000/runs/crons", {{"assistant_id", "slow"}, {"schedule", "@daily"}},
       404);
  auto r = client_->Patch("/runs/crons/00000000-0000-0000-0000-000000000000", "{}", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  // Its runs' fields are checked as a run's are, when it is made or changed: a cron made with a
  // bad one used to be stored and then fail at every firing.
  EXPECT_NE(detail(path, {{"assistant_id", "slow"}, {"schedule", "@daily"}, {"stream_mode", "nope"}}, 422).find("nope"),
            std::string::npos);
  EXPECT_NE(detail("/runs/crons", {{"assistant_id", "slow"}, {"schedule", "@daily"}, {"durability", 5}}, 422).find("durability"),
            std::string::npos);
  EXPECT_NE(detail(path, {{"assistant_id", "slow"}, {"schedule", "@daily"}, {"interrupt_before", 5}}, 422).find("interrupt_before"),
            std::string::npos);
  EXPECT_TRUE(post("/runs/crons/search", json::object()).empty());
  json cron = post(path, {{"assistant_id", "slow"}, {"schedule", "@daily"}, {"input", {{"seconds", 0}}}});
  std::string id = cron["cron_id"];
  auto patched = client_->Patch("/runs/crons/" + id, json{{"stream_subgraphs", "yes"}}.dump(), "application/json");
  ASSERT_TRUE(patched);
  EXPECT_EQ(patched->status, 422) << patched->body;
  EXPECT_FALSE(post("/runs/crons/search", json::object())[0]["payload"].contains("stream_subgraphs"));
}

}  // namespace
