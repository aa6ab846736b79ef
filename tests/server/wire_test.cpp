// The server's wire helpers (internals): reading a request's JSON.
#include <gtest/gtest.h>

#include "server/wire.hpp"

namespace superstep::server {
namespace {

TEST(RequestJson, NestingIsCountedOutsideStrings) {
  EXPECT_FALSE(nests_deeper_than("[[{}]]", 3));
  EXPECT_TRUE(nests_deeper_than("[[{}]]", 2));
  EXPECT_FALSE(nests_deeper_than(R"(["[[[[", "\"[[[["])", 1));
  EXPECT_TRUE(nests_deeper_than(R"(["\\", [[]]])", 2));  // an escaped backslash ends before the quote
  EXPECT_FALSE(nests_deeper_than("]]]][[", 2));             // not JSON: json::parse says so
  EXPECT_THROW(parse_request_body("{"), HttpError);
  EXPECT_EQ(parse_request_body(R"({"a":[1]})")["a"][0], 1);
}

}  // namespace
}  // namespace superstep::server
