#include <gtest/gtest.h>

#include "lint/model/duration.h"

using namespace retrylint;

TEST(GoDuration, AcceptsIstioSpellings) {
  std::string err;
  EXPECT_EQ(parseGoDuration("2s", &err)->nanos, 2'000'000'000);
  EXPECT_EQ(parseGoDuration("1.5s", &err)->nanos, 1'500'000'000);
  EXPECT_EQ(parseGoDuration("1.000s", &err)->nanos, 1'000'000'000);
  EXPECT_EQ(parseGoDuration("100ms", &err)->nanos, 100'000'000);
  EXPECT_EQ(parseGoDuration("1h30m", &err)->nanos, 5'400'000'000'000);
  EXPECT_EQ(parseGoDuration("250us", &err)->nanos, 250'000);
  EXPECT_EQ(parseGoDuration("0", &err)->nanos, 0);
  EXPECT_EQ(parseGoDuration(".5s", &err)->nanos, 500'000'000);
}

TEST(GoDuration, RejectsMalformedWithAReason) {
  std::string err;
  EXPECT_FALSE(parseGoDuration("", &err));
  EXPECT_FALSE(parseGoDuration("5", &err));
  EXPECT_NE(err.find("missing unit"), std::string::npos) << err;
  EXPECT_FALSE(parseGoDuration("3 seconds", &err));
  EXPECT_NE(err.find("unknown unit"), std::string::npos) << err;
  EXPECT_FALSE(parseGoDuration("1.2.3s", &err));
  EXPECT_FALSE(parseGoDuration("s", &err));
  EXPECT_FALSE(parseGoDuration("PT2S", &err));
}

TEST(ProtoJsonDuration, AcceptsDecimalSeconds) {
  std::string err;
  EXPECT_EQ(parseProtoJsonDuration("0.1s", &err)->nanos, 100'000'000);
  EXPECT_EQ(parseProtoJsonDuration("0.100s", &err)->nanos, 100'000'000);
  EXPECT_EQ(parseProtoJsonDuration("30s", &err)->nanos, 30'000'000'000);
  EXPECT_EQ(parseProtoJsonDuration("0.000000001s", &err)->nanos, 1);
  EXPECT_EQ(parseProtoJsonDuration("-1s", &err)->nanos, -1'000'000'000);
}

TEST(ProtoJsonDuration, RejectsWhatGrpcRejects) {
  std::string err;
  EXPECT_FALSE(parseProtoJsonDuration("100ms", &err)); // a common mistake: not proto JSON
  EXPECT_NE(err.find("decimal seconds"), std::string::npos) << err;
  EXPECT_FALSE(parseProtoJsonDuration("1", &err));
  EXPECT_FALSE(parseProtoJsonDuration("1.s", &err));
  EXPECT_FALSE(parseProtoJsonDuration(".5s", &err));
  EXPECT_FALSE(parseProtoJsonDuration("0.0000000001s", &err)); // 10 fractional digits
  EXPECT_NE(err.find("9 fractional"), std::string::npos) << err;
  EXPECT_FALSE(parseProtoJsonDuration("1m", &err));
}

TEST(DurationFormat, ReadableUnits) {
  EXPECT_EQ(formatDuration(Duration::ms(25)), "25 ms");
  EXPECT_EQ(formatDuration(Duration::ms(1500)), "1.5 s");
  EXPECT_EQ(formatDuration(Duration::s(3)), "3 s");
  EXPECT_EQ(formatSeconds(Duration::ms(100)), "0.1 s");
  EXPECT_EQ(formatSeconds(Duration::ms(4600)), "4.6 s");
}
