#include <gtest/gtest.h>

#include "lint/model/status_codes.h"

using namespace retrylint;

TEST(GrpcCodes, NamesAndNumbers) {
  EXPECT_EQ(grpcCodeFromName("UNAVAILABLE"), 14);
  EXPECT_EQ(grpcCodeFromName("OK"), 0);
  EXPECT_EQ(grpcCodeFromName("UNAUTHENTICATED"), 16);
  EXPECT_FALSE(grpcCodeFromName("unavailable")); // C-core compares case-sensitively
  EXPECT_FALSE(grpcCodeFromName("UNAVAILBLE"));
  EXPECT_EQ(grpcCodeFromAnyCase("unavailable"), 14);
  EXPECT_EQ(grpcCodeFromAnyCase("deadline-exceeded"), 4);
  EXPECT_EQ(grpcCodeName(4), "DEADLINE_EXCEEDED");
  EXPECT_EQ(grpcCodeName(99), "99");
}

TEST(GrpcCodes, PermanentOnesAreTheEightFromTheDoctrine) {
  for (int c : {3, 5, 6, 7, 9, 11, 12, 16}) EXPECT_TRUE(grpcCodeIsPermanent(c)) << c;
  for (int c : {0, 1, 2, 4, 8, 10, 13, 14, 15}) EXPECT_FALSE(grpcCodeIsPermanent(c)) << c;
}

TEST(HttpCodes, PermanentMeans4xxExceptTimeoutTooEarlyAndThrottling) {
  for (int c : {400, 401, 403, 404, 409, 410, 422, 499}) EXPECT_TRUE(httpCodeIsPermanent(c)) << c;
  for (int c : {408, 425, 429, 500, 503, 200, 399}) EXPECT_FALSE(httpCodeIsPermanent(c)) << c;
}

TEST(HttpCodes, MayHaveBeenProcessed) {
  EXPECT_TRUE(httpCodeMayHaveBeenProcessed(504));
  EXPECT_TRUE(httpCodeMayHaveBeenProcessed(408));
  EXPECT_TRUE(httpCodeMayHaveBeenProcessed(500));
  EXPECT_FALSE(httpCodeMayHaveBeenProcessed(501));
  EXPECT_FALSE(httpCodeMayHaveBeenProcessed(429));
  EXPECT_TRUE(httpCodeInRange(100));
  EXPECT_FALSE(httpCodeInRange(700));
}
