// A Command input as writes, alone (src/pregel/command.hpp): map_command over a Program, and
// map_resume over a thread's pending writes, with no run and no saver.
#include <gtest/gtest.h>

#include <string>

#include "pregel/command.hpp"
#include "test_util.hpp"

namespace {

using namespace superstep::internal;

const std::string kId1(32, 'a');
const std::string kId2(32, 'b');

sp::CompiledStateGraph two_nodes() {
  sp::StateGraph g(testing_util::trace_schema());
  g.add_node("a", testing_util::tracer("a")).add_node("b", testing_util::tracer("b"));
  g.add_edge(sp::START, "a");
  return g.compile();
}

json interrupts(const std::string& id) { return json::array({json{{"value", "q"}, {"id", id}}}); }

TEST(MapCommand, UpdateKeysThenRoutesAsWritesOfNoTask) {
  auto app = two_nodes();
  const Program& g = *program_of(app);
  auto writes = map_command(g, sp::Command{.update = {{"n", 1}},
                                          .go_to = sp::Route({sp::Destination(std::string("b")),
                                                              sp::Destination(sp::Send{"a", json{{"x", 1}}}),
                                                              sp::Destination(std::string(sp::END))})});
  ASSERT_EQ(writes.size(), 3u);
  EXPECT_EQ(writes[0], (std::pair<std::string, json>{"n", 1}));
  EXPECT_EQ(writes[1].first, "branch:to:b");
  EXPECT_EQ(writes[2].first, sp::kTasksChannel);
  EXPECT_EQ(writes[2].second, (json{{"node", "a"}, {"arg", {{"x", 1}}}}));
}

TEST(MapCommand, EmptyUnknownAndParentCommandsAreRefusedByName) {
  auto app = two_nodes();
  const Program& g = *program_of(app);
  EXPECT_THROW(map_command(g, sp::Command{}), sp::EmptyInputError);
  try {
    map_command(g, sp::Command{.update = {{"nope", 1}}});
    ADD_FAILURE();
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("Command.update has unknown key 'nope'"), std::string::npos) << e.what();
  }
  try {
    map_command(g, sp::Command{.go_to = "c"});
    ADD_FAILURE();
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("Command.go_to names unknown node 'c' (nodes: a, b)"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(map_command(g, sp::Command{.update = {{"n", 1}}, .graph = sp::Command::PARENT}), sp::InvalidUpdateError);
}

TEST(MapResume, OnePendingInterruptTakesAPlainValue) {
  std::vector<sp::PendingWrite> pending{{"t1", sp::kInterruptChannel, interrupts(kId1)}};
  ResumeMapping m = map_resume("g", "th", pending, "yes");
  EXPECT_EQ(m.null_resume, json("yes"));
  EXPECT_TRUE(m.resume_write);
  EXPECT_FALSE(m.needs_task);
  EXPECT_TRUE(m.task_answers.empty());
}

TEST(MapResume, SeveralPendingNeedIdsAndIdsAnswerTheirTasks) {
  std::vector<sp::PendingWrite> pending{{"t1", sp::kInterruptChannel, interrupts(kId1)},
                                        {"t2", sp::kInterruptChannel, interrupts(kId2)},
                                        {"t2", sp::kResumeChannel, json::array({"earlier"})}};
  try {
    map_resume("g", "th", pending, "yes");
    ADD_FAILURE() << "a plain value with two interrupts pending";
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("2 interrupts are pending on thread 'th'"), std::string::npos) << e.what();
  }
  ResumeMapping m = map_resume("g", "th", pending, json{{kId2, "two"}});
  EXPECT_FALSE(m.null_resume);
  ASSERT_EQ(m.task_answers.size(), 1u);
  EXPECT_EQ(m.task_answers[0].first, "t2");
  EXPECT_EQ(m.task_answers[0].second, json::array({"earlier", "two"})) << "answers add up per task";
  EXPECT_EQ(m.by_id, (json{{kId2, "two"}}));
}

TEST(MapResume, AnIdOfNoInterruptIsAnErrorAndOneAnsweredBeforeIsSkipped) {
  // t1 finished (it wrote state); t2 is still waiting.
  std::vector<sp::PendingWrite> pending{{"t1", sp::kInterruptChannel, interrupts(kId1)},
                                        {"t1", "trace", json::array({"x"})},
                                        {"t2", sp::kInterruptChannel, interrupts(kId2)}};
  EXPECT_THROW(map_resume("g", "th", pending, json{{std::string(32, 'c'), 1}}), sp::InvalidUpdateError);
  EXPECT_THROW(map_resume("g", "th", pending, json{{kId1, 1}}), sp::InvalidUpdateError)
      << "only interrupts answered before";
  ResumeMapping m = map_resume("g", "th", pending, json{{kId1, 1}, {kId2, 2}});
  ASSERT_EQ(m.task_answers.size(), 1u);
  EXPECT_EQ(m.task_answers[0], (std::pair<std::string, json>{"t2", json::array({2})}));
}

TEST(MapResume, NothingPendingWaitsForATask) {
  ResumeMapping m = map_resume("g", "th", {}, json{{kId1, 1}});
  EXPECT_TRUE(m.needs_task);
  EXPECT_TRUE(m.by_id_unmatched);
  EXPECT_EQ(m.null_resume, (json{{kId1, 1}}));
}

}  // namespace
