// Each channel kind on its own: update, availability, consume, finish, checkpoint, errors.
#include <gtest/gtest.h>

#include <superstep/superstep.hpp>

namespace sp = superstep;
using sp::json;

namespace {
bool update(sp::JsonChannel& ch, std::vector<json> writes) { return ch.update(std::span<json>(writes)); }
}  // namespace

TEST(LastValue, KeepsOneValuePerStepAndAcrossSteps) {
  sp::LastValue ch("answer");
  EXPECT_FALSE(ch.is_available());
  EXPECT_THROW(ch.get(), sp::EmptyChannelError);
  EXPECT_FALSE(update(ch, {}));
  EXPECT_TRUE(update(ch, {42}));
  EXPECT_EQ(ch.get(), 42);
  EXPECT_FALSE(update(ch, {}));  // a new step without writes keeps the value
  EXPECT_EQ(ch.get(), 42);
  EXPECT_EQ(ch.checkpoint(), json(42));
}

TEST(LastValue, TwoWritesInOneStepIsInvalidUpdateNamingTheKey) {
  sp::LastValue ch("answer");
  try {
    update(ch, {1, 2});
    FAIL() << "expected InvalidUpdateError";
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("'answer'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[1,2]"), std::string::npos) << e.what();
  }
}

TEST(LastValue, CheckpointRestoreAndClone) {
  sp::LastValue ch("k");
  update(ch, {json{{"a", 1}}});
  sp::LastValue other("k");
  other.restore(ch.checkpoint());
  EXPECT_EQ(other.get(), (json{{"a", 1}}));
  auto copy = ch.clone();
  update(ch, {2});
  EXPECT_EQ(static_cast<sp::JsonChannel&>(*copy).get(), (json{{"a", 1}}));
  other.restore(std::nullopt);
  EXPECT_FALSE(other.is_available());
}

TEST(BinaryOperatorAggregate, FoldsWritesInOrderFromDefault) {
  sp::BinaryOperatorAggregate ch("total", sp::reducers::add, json(10));
  EXPECT_EQ(ch.get(), 10);
  EXPECT_TRUE(update(ch, {1, 2, 3}));
  EXPECT_EQ(ch.get(), 16);
  EXPECT_FALSE(update(ch, {}));
}

TEST(BinaryOperatorAggregate, WithoutInitialTakesFirstWrite) {
  sp::BinaryOperatorAggregate ch("total", sp::reducers::add, std::nullopt);
  EXPECT_FALSE(ch.is_available());
  update(ch, {"a", "b"});
  EXPECT_EQ(ch.get(), "ab");
}

TEST(BinaryOperatorAggregate, OverwriteReplacesAndLaterWritesOfTheStepAreDropped) {
  sp::BinaryOperatorAggregate ch("items", sp::reducers::append, json::array());
  update(ch, {json::array({1, 2})});
  update(ch, {json::array({3}), json(sp::Overwrite{json::array({9})}), json::array({4})});
  EXPECT_EQ(ch.get(), json::array({9}));
  update(ch, {json::array({5})});
  EXPECT_EQ(ch.get(), json::array({9, 5}));
}

TEST(BinaryOperatorAggregate, TwoOverwritesInOneStepIsAnError) {
  sp::BinaryOperatorAggregate ch("items", sp::reducers::append, json::array());
  EXPECT_THROW(update(ch, {json(sp::Overwrite{1}), json(sp::Overwrite{2})}), sp::InvalidUpdateError);
}

TEST(BinaryOperatorAggregate, ReducerErrorNamesKey) {
  sp::BinaryOperatorAggregate ch("total", sp::reducers::add, json(0));
  try {
    update(ch, {"text"});
    FAIL();
  } catch (const sp::InvalidUpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("at key 'total'"), std::string::npos) << e.what();
  }
}

TEST(Topic, CollectsOneStepAndFlattensArrays) {
  sp::Topic ch("events");
  EXPECT_TRUE(update(ch, {1, json::array({2, 3})}));
  EXPECT_EQ(ch.get(), json::array({1, 2, 3}));
  EXPECT_TRUE(update(ch, {4}));
  EXPECT_EQ(ch.get(), json::array({4}));
  EXPECT_TRUE(update(ch, {}));  // cleared
  EXPECT_FALSE(ch.is_available());
  EXPECT_FALSE(update(ch, {}));
}

TEST(Topic, AccumulateKeepsGrowing) {
  sp::Topic ch("log", true);
  update(ch, {1});
  EXPECT_FALSE(update(ch, {}));
  update(ch, {2});
  EXPECT_EQ(ch.get(), json::array({1, 2}));
  sp::Topic other("log", true);
  other.restore(ch.checkpoint());
  EXPECT_EQ(other.get(), json::array({1, 2}));
  EXPECT_THROW(other.restore(json(5)), sp::CheckpointError);
}

TEST(EphemeralValue, LivesOneStep) {
  sp::EphemeralValue ch("__start__");
  EXPECT_TRUE(update(ch, {json{{"x", 1}}}));
  EXPECT_TRUE(ch.is_available());
  EXPECT_TRUE(update(ch, {}));
  EXPECT_FALSE(ch.is_available());
  EXPECT_FALSE(update(ch, {}));
}

TEST(EphemeralValue, GuardRejectsTwoWritesUnguardedKeepsLast) {
  sp::EphemeralValue guarded("g");
  EXPECT_THROW(update(guarded, {1, 2}), sp::InvalidUpdateError);
  sp::EphemeralValue branch("branch:to:x", false);
  update(branch, {1, 2});
  EXPECT_EQ(branch.get(), 2);
}

TEST(NamedBarrierValue, AvailableOnceEveryNameWroteAndConsumeResets) {
  sp::NamedBarrierValue ch("join:a+b:c", {"a", "b"});
  EXPECT_TRUE(update(ch, {"a"}));
  EXPECT_FALSE(ch.is_available());
  EXPECT_FALSE(update(ch, {"a"}));  // already seen: no change
  EXPECT_TRUE(update(ch, {"b"}));
  EXPECT_TRUE(ch.is_available());
  EXPECT_EQ(ch.checkpoint(), json::array({"a", "b"}));
  EXPECT_TRUE(ch.consume());
  EXPECT_FALSE(ch.is_available());
  EXPECT_FALSE(ch.consume());
}

TEST(NamedBarrierValue, UnknownNameIsInvalidUpdate) {
  sp::NamedBarrierValue ch("join:a+b:c", {"a", "b"});
  EXPECT_THROW(update(ch, {"z"}), sp::InvalidUpdateError);
}

TEST(NamedBarrierValueAfterFinish, WaitsForFinish) {
  sp::NamedBarrierValueAfterFinish ch("join:a+b:c", {"a", "b"});
  update(ch, {"a", "b"});
  EXPECT_FALSE(ch.is_available());
  EXPECT_TRUE(ch.finish());
  EXPECT_TRUE(ch.is_available());
  EXPECT_FALSE(ch.finish());
  sp::NamedBarrierValueAfterFinish restored("join:a+b:c", {"a", "b"});
  restored.restore(ch.checkpoint());
  EXPECT_TRUE(restored.is_available());
  EXPECT_TRUE(ch.consume());
  EXPECT_FALSE(ch.is_available());
  EXPECT_FALSE(ch.finish());  // not complete any more
}

TEST(LastValueAfterFinish, AvailableAfterFinishUntilConsumed) {
  sp::LastValueAfterFinish ch("branch:to:d");
  EXPECT_FALSE(ch.finish());
  update(ch, {nullptr});
  EXPECT_FALSE(ch.is_available());
  EXPECT_TRUE(ch.finish());
  EXPECT_TRUE(ch.is_available());
  EXPECT_TRUE(ch.consume());
  EXPECT_FALSE(ch.is_available());
  EXPECT_FALSE(ch.consume());
}

TEST(AnyValue, LastOfManyAndClearedByEmptyStep) {
  sp::AnyValue ch("k");
  update(ch, {1, 1, 2});
  EXPECT_EQ(ch.get(), 2);
  EXPECT_TRUE(update(ch, {}));
  EXPECT_FALSE(ch.is_available());
}

TEST(UntrackedValue, NeverCheckpointed) {
  sp::UntrackedValue ch("scratch");
  update(ch, {7});
  EXPECT_EQ(ch.get(), 7);
  EXPECT_FALSE(ch.tracked());
  EXPECT_EQ(ch.checkpoint(), std::nullopt);
  EXPECT_THROW(update(ch, {1, 2}), sp::InvalidUpdateError);
}
