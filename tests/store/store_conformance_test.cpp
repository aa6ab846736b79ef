// One suite for every BaseStore: in memory, SQLite, and a real PostgreSQL server.
#include <gtest/gtest.h>

#include <superstep/store/postgres_store.hpp>
#include <superstep/store/sqlite_store.hpp>
#include <superstep/superstep.hpp>
#include <thread>

#include "saver_cases.hpp"

namespace sp = superstep;
using sp::json;
using testing_util::PgSchema;

namespace {

struct StoreCase {
  std::string name;
  std::function<std::shared_ptr<sp::BaseStore>()> make;
  bool postgres = false;
};
void PrintTo(const StoreCase& c, std::ostream* os) { *os << c.name; }

std::vector<StoreCase> store_cases() {
  return {{"memory", [] { return std::make_shared<sp::InMemoryStore>(); }},
          {"sqlite", [] { return std::make_shared<sp::SqliteStore>(testing_util::scratch_db("store")); }},
          {"sqlite_on_saver",
           [] {
             auto saver = std::make_shared<sp::SqliteSaver>(testing_util::scratch_db("store_on_saver"));
             return std::make_shared<sp::SqliteStore>(saver);
           }},
          {"postgres",
           [] {
             auto schema = std::make_shared<PgSchema>("store");
             auto* s = new sp::PostgresStore(schema->dsn);
             return std::shared_ptr<sp::BaseStore>(s, [schema](sp::BaseStore* p) { delete p; });
           },
           true}};
}

class StoreConformance : public ::testing::TestWithParam<StoreCase> {
 protected:
  void SetUp() override {
    if (GetParam().postgres) SUPERSTEP_REQUIRE_POSTGRES();
    store = GetParam().make();
  }
  std::vector<std::string> keys(const std::vector<sp::Item>& items) {
    std::vector<std::string> out;
    for (const auto& i : items) out.push_back(i.key);
    return out;
  }
  std::shared_ptr<sp::BaseStore> store;
};

}  // namespace

TEST_P(StoreConformance, PutGetUpdateDelete) {
  EXPECT_FALSE(store->get({"users", "u1"}, "profile"));
  store->put({"users", "u1"}, "profile", {{"name", "Ada"}, {"langs", {"en", "fr"}}});
  auto item = store->get({"users", "u1"}, "profile");
  ASSERT_TRUE(item);
  EXPECT_EQ(item->namespace_, (sp::Namespace{"users", "u1"}));
  EXPECT_EQ(item->key, "profile");
  EXPECT_EQ(item->value, json({{"name", "Ada"}, {"langs", {"en", "fr"}}}));
  EXPECT_EQ(item->created_at, item->updated_at);
  EXPECT_EQ(item->created_at.size(), 27u);  // 2026-11-23T01:02:03.456789Z
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  store->put({"users", "u1"}, "profile", {{"name", "Ada L."}});
  auto updated = store->get({"users", "u1"}, "profile");
  EXPECT_EQ(updated->value, json({{"name", "Ada L."}}));
  EXPECT_EQ(updated->created_at, item->created_at);
  EXPECT_GT(updated->updated_at, item->updated_at);
  EXPECT_FALSE(store->get({"users"}, "profile"));  // another namespace
  store->delete_({"users", "u1"}, "profile");
  EXPECT_FALSE(store->get({"users", "u1"}, "profile"));
  store->delete_({"users", "u1"}, "profile");  // absent: nothing happens
  EXPECT_EQ(item->to_json()["namespace"], json({"users", "u1"}));
}

TEST_P(StoreConformance, BadInputIsRefusedWithTheItemNamed) {
  auto what = [&](auto f) {
    try {
      f();
    } catch (const sp::Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(what([&] { store->put({"a"}, "k", json::array({1})); }).find("the value of item 'k' in (\"a\") must be a JSON object"),
            std::string::npos);
  EXPECT_NE(what([&] { store->put({}, "k", json::object()); }).find("item 'k' needs a namespace"), std::string::npos);
  EXPECT_NE(what([&] { store->put({"a.b"}, "k", json::object()); }).find("label 'a.b' in (\"a.b\") contains '.'"),
            std::string::npos);
  EXPECT_NE(what([&] { store->put({"a", ""}, "k", json::object()); }).find("has an empty label"), std::string::npos);
  EXPECT_NE(what([&] { store->search({"a"}, {.filter = {{"n", {{"$near", 1}}}}}); }).find("unknown filter operator '$near' on field 'n'"),
            std::string::npos);
  EXPECT_EQ(store->list_namespaces().size(), 0u);  // nothing was stored
}

TEST_P(StoreConformance, SearchByPrefixFilterAndPage) {
  store->put({"docs"}, "top", {{"n", 0}});
  store->put({"docs", "a"}, "k1", {{"n", 1}, {"kind", "fact"}});
  store->put({"docs", "a"}, "k2", {{"n", 2}, {"kind", "note"}});
  store->put({"docs", "a", "deep"}, "k3", {{"n", 3}, {"kind", "fact"}});
  store->put({"docs", "ab"}, "k4", {{"n", 4}, {"kind", "fact"}});
  store->put({"docsx"}, "k5", {{"n", 5}});
  // Most recently updated first; the prefix is whole labels.
  EXPECT_EQ(keys(store->search({"docs", "a"})), (std::vector<std::string>{"k3", "k2", "k1"}));
  EXPECT_EQ(keys(store->search({"docs"})), (std::vector<std::string>{"k4", "k3", "k2", "k1", "top"}));
  EXPECT_EQ(keys(store->search({}, {.limit = 100})).size(), 6u);
  EXPECT_EQ(keys(store->search({"docs"}, {.filter = {{"kind", "fact"}}})), (std::vector<std::string>{"k4", "k3", "k1"}));
  EXPECT_EQ(keys(store->search({"docs"}, {.filter = {{"n", {{"$gte", 2}, {"$lt", 4}}}}})), (std::vector<std::string>{"k3", "k2"}));
  EXPECT_EQ(keys(store->search({"docs"}, {.filter = {{"kind", {{"$ne", "fact"}}}}})), (std::vector<std::string>{"k2", "top"}));
  EXPECT_EQ(keys(store->search({"docs"}, {.filter = {{"kind", {{"$gt", 1}}}}})), std::vector<std::string>{});  // no string > number
  EXPECT_EQ(keys(store->search({"docs"}, {.limit = 2, .offset = 1})), (std::vector<std::string>{"k3", "k2"}));
  EXPECT_EQ(keys(store->search({"docs"}, {.limit = 2, .offset = 10})), std::vector<std::string>{});
  // Updating moves an item to the front.
  store->put({"docs", "a"}, "k1", {{"n", 1}, {"kind", "fact"}, {"seen", true}});
  EXPECT_EQ(keys(store->search({"docs", "a"})).front(), "k1");
}

TEST_P(StoreConformance, ListNamespaces) {
  for (const sp::Namespace& ns : std::vector<sp::Namespace>{{"users", "u1", "memories"},
                                                           {"users", "u2", "memories"},
                                                           {"users", "u2", "prefs"},
                                                           {"docs", "a"},
                                                           {"docs"}})
    store->put(ns, "k", json::object());
  using V = std::vector<sp::Namespace>;
  EXPECT_EQ(store->list_namespaces(),
            (V{{"docs"}, {"docs", "a"}, {"users", "u1", "memories"}, {"users", "u2", "memories"}, {"users", "u2", "prefs"}}));
  EXPECT_EQ(store->list_namespaces({.prefix = {"users"}}),
            (V{{"users", "u1", "memories"}, {"users", "u2", "memories"}, {"users", "u2", "prefs"}}));
  EXPECT_EQ(store->list_namespaces({.suffix = {"memories"}}), (V{{"users", "u1", "memories"}, {"users", "u2", "memories"}}));
  EXPECT_EQ(store->list_namespaces({.prefix = {"users", "*", "prefs"}}), (V{{"users", "u2", "prefs"}}));
  EXPECT_EQ(store->list_namespaces({.max_depth = 2}), (V{{"docs"}, {"docs", "a"}, {"users", "u1"}, {"users", "u2"}}));
  EXPECT_EQ(store->list_namespaces({.limit = 2, .offset = 1}), (V{{"docs", "a"}, {"users", "u1", "memories"}}));
}

TEST_P(StoreConformance, NodesReachTheStoreThroughTheRuntime) {
  sp::StateSchema schema;
  schema.field("user").field("count");
  sp::StateGraph g(schema);
  g.add_node("remember", [](const sp::State& s, sp::Runtime& rt) -> sp::NodeResult {
    sp::BaseStore* store = rt.store();
    sp::Namespace ns{"users", s.get<std::string>("user")};
    auto seen = store->get(ns, "visits");
    int n = seen ? seen->value["n"].get<int>() + 1 : 1;
    store->put(ns, "visits", {{"n", n}});
    return json{{"count", n}};
  });
  g.add_edge(sp::START, "remember");
  auto app = g.compile({.store = store});
  EXPECT_EQ(app.invoke(json{{"user", "ada"}})["count"], 1);
  EXPECT_EQ(app.invoke(json{{"user", "ada"}})["count"], 2);  // a new run, no checkpointer: the store remembers
  EXPECT_EQ(app.invoke(json{{"user", "bob"}})["count"], 1);

  // A subgraph without a store of its own uses its parent's.
  sp::StateGraph inner(schema);
  inner.add_node("remember", [](const sp::State& s, sp::Runtime& rt) -> sp::NodeResult {
    if (!rt.store()) throw std::runtime_error("no store in the subgraph");
    rt.store()->put({"sub"}, s.get<std::string>("user"), json::object());
    return json::object();
  });
  inner.add_edge(sp::START, "remember");
  sp::StateGraph outer(schema);
  outer.add_node("inner", inner.compile());
  outer.add_edge(sp::START, "inner");
  outer.compile({.store = store}).invoke(json{{"user", "cy"}});
  EXPECT_TRUE(store->get({"sub"}, "cy"));
  EXPECT_THROW(inner.compile().invoke(json{{"user", "x"}}), sp::NodeError);  // no store anywhere: nullptr
}

TEST_P(StoreConformance, NodesOfParallelRunsShareOneStoreFromManyThreads) {
  // Four callers run a graph whose two parallel nodes each put into the store and read back
  // what they wrote, while searching what the others wrote: every item lands once, whole.
  sp::StateSchema schema;
  schema.field("caller").field("run").field("seen", sp::reducers::add, 0);
  sp::StateGraph g(schema);
  auto writer = [](const std::string& side) {
    return [side](const sp::State& s, sp::Runtime& rt) -> sp::NodeResult {
      sp::Namespace ns{"callers", std::to_string(s.get<int>("caller"))};
      std::string key = side + std::to_string(s.get<int>("run"));
      rt.store()->put(ns, key, {{"run", s.get<int>("run")}, {"side", side}});
      auto back = rt.store()->get(ns, key);
      if (!back || back->value["side"] != side) throw std::runtime_error("lost " + key);
      auto others = rt.store()->search({"callers"}, {.limit = 5});
      return json{{"seen", others.empty() ? 0 : 1}};
    };
  };
  g.add_node("left", writer("l")).add_node("right", writer("r"));
  g.add_edge(sp::START, "left").add_edge(sp::START, "right");
  auto app = g.compile({.executor = std::make_shared<sp::ThreadPool>(4), .store = store});
  constexpr int kCallers = 4, kRuns = 10;
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&, c] {
      for (int r = 0; r < kRuns; ++r) EXPECT_EQ(app.invoke(json{{"caller", c}, {"run", r}})["seen"], 2);
    });
  for (auto& t : callers) t.join();
  for (int c = 0; c < kCallers; ++c)
    EXPECT_EQ(store->search({"callers", std::to_string(c)}, {.limit = 100}).size(), 2u * kRuns) << "caller " << c;
}

INSTANTIATE_TEST_SUITE_P(AllStores, StoreConformance, ::testing::ValuesIn(store_cases()),
                         [](const auto& info) { return info.param.name; });

TEST(SqliteStore, ItemsOutliveTheProcessesObject) {
  std::string path = testing_util::scratch_db("store_reopen");
  {
    sp::SqliteStore s(path);
    s.put({"a"}, "k", {{"v", 1}});
  }
  sp::SqliteStore again(path);
  EXPECT_EQ(again.get({"a"}, "k")->value, json({{"v", 1}}));
}

// SqliteStore(saver): one connection for checkpoints and items. Runs checkpointed by the saver
// (async durability: its save queue holds the connection in batches) whose parallel nodes write
// to the store, from several threads at once: every checkpoint and every item lands; the store
// keeps the connection open after the caller's last handle on the saver is gone.
TEST(SqliteStore, OnASaversConnectionCheckpointsAndItemsInterleaveFromManyThreads) {
  std::string path = testing_util::scratch_db("store_shared_connection");
  auto saver = std::make_shared<sp::SqliteSaver>(path);
  auto store = std::make_shared<sp::SqliteStore>(saver);
  sp::StateSchema schema;
  schema.field("caller").field("n", sp::reducers::add, 0);
  sp::StateGraph g(schema);
  auto writer = [](const std::string& side) {
    return [side](const sp::State& s, sp::Runtime& rt) -> sp::NodeResult {
      rt.store()->put({"shared", std::to_string(s.get<int>("caller"))}, side + std::to_string(s.get<int>("n")), {{"n", s.get<int>("n")}});
      return json{{"n", 1}};
    };
  };
  g.add_node("left", writer("l")).add_node("right", writer("r"));
  g.add_edge(sp::START, "left").add_edge(sp::START, "right");
  auto app = g.compile({.executor = std::make_shared<sp::ThreadPool>(4), .checkpointer = saver, .store = store});
  saver.reset();  // the graph and the store hold it
  constexpr int kCallers = 4, kRuns = 8;
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&, c] {
      sp::RunConfig config;
      config.thread_id = "caller-" + std::to_string(c);
      config.durability = c % 2 ? sp::Durability::async : sp::Durability::sync;
      for (int r = 0; r < kRuns; ++r) EXPECT_EQ(app.invoke(json{{"caller", c}}, config)["n"], 2 * (r + 1));
    });
  for (auto& t : callers) t.join();
  for (int c = 0; c < kCallers; ++c) {
    sp::RunConfig config;
    config.thread_id = "caller-" + std::to_string(c);
    EXPECT_EQ(app.get_state_history(config).size(), 3u * kRuns) << "caller " << c;  // input, __start__, the step
    EXPECT_EQ(store->search({"shared", std::to_string(c)}, {.limit = 100}).size(), 2u * kRuns) << "caller " << c;
  }
  // The file holds both, read back by a connection of its own.
  sp::SqliteStore reopened(path);
  EXPECT_EQ(reopened.search({"shared"}, {.limit = 1000}).size(), 2u * kCallers * kRuns);
}
