// Replays every input the fuzzers once crashed on (tests/data/fuzz-regressions/TARGET/*) through
// the same target body (fuzz/targets.cpp): each must now run cleanly (under scripts/sanitize.sh,
// with ASan and UBSan watching).
#include <filesystem>

#include <gtest/gtest.h>

#include "fuzz/targets.h"
#include "tests/cli_support.h"

namespace fs = std::filesystem;

TEST(FuzzRegressions, EverySavedInputRunsCleanly) {
  fs::path root = fs::path(RETRYLINT_SOURCE_DIR) / "tests" / "data" / "fuzz-regressions";
  size_t replayed = 0;
  for (const auto &[name, target] : retrylint::fuzz::targets()) {
    fs::path dir = root / name;
    if (!fs::is_directory(dir)) continue;
    for (const auto &e : fs::directory_iterator(dir)) {
      if (!e.is_regular_file()) continue;
      std::string data = retrylint::testing::slurp(e.path());
      SCOPED_TRACE(e.path().string());
      EXPECT_EQ(target(reinterpret_cast<const uint8_t *>(data.data()), data.size()), 0);
      ++replayed;
    }
  }
  for (const auto &e : fs::directory_iterator(root))
    EXPECT_TRUE(!e.is_directory() || retrylint::fuzz::targets().count(e.path().filename().string()))
        << "no fuzz target named " << e.path().filename();
  RecordProperty("replayed", static_cast<int>(replayed));
}
