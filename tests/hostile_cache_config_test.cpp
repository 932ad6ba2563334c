// A hostile checkout must not steer retrylint through its result cache or its config lookup:
// cache entries are authenticated (HMAC-SHA256 under a key kept outside the cache) and must fit
// the file they describe, links planted in the cache are never followed, and a .retrylint.yaml
// above the repository (or across a file-system boundary) never applies to it.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>
#include <llvm/ADT/StringExtras.h>

#include "lint/config/config.h"
#include "lint/engine.h"
#include "lint/cache/cache.h"
#include "tests/cli_support.h"
#include "tests/fixture_support.h"

namespace fs = std::filesystem;
using namespace retrylint;
using namespace retrylint::testing;

namespace {

// One RL203 finding on line 6 (no mechanical fix), and a clean twin.
const char *kWarn = R"(apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: w}
spec:
  http:
  - retries: {attempts: 9, perTryTimeout: 1s}
    route: [{destination: {host: w}}]
)";
const std::string kClean = [] {
  std::string clean = kWarn;
  return clean.replace(clean.find("attempts: 9"), 11, "attempts: 2");
}();

std::string hex(const std::array<uint8_t, 32> &d) { return llvm::toHex(d, /*LowerCase=*/true); }

// A tree to lint, a cache and a config home of its own (the key file goes there), none shared
// with the user running the tests.
struct CacheRig {
  TempDir t;
  fs::path tree = t.path / "tree", cache = t.path / "cache", config = t.path / "config";
  CacheRig() {
    fs::create_directories(tree);
    fs::create_directories(config);
  }
  std::string write(const std::string &name, const std::string &text) const { return t.write("tree/" + name, text); }
  // retrylint --cache-dir CACHE ARGS in the tree; `env`: more VAR=value (or -u VAR) for env(1).
  CliRun run(const std::string &args, const std::string &env = "") const {
    return runRetrylintIn(tree.string(),
                          "env -u RETRYLINT_CACHE_KEY -u RETRYLINT_CACHE_DIR XDG_CONFIG_HOME='" + config.string() + "' " + env + " ",
                          "--cache-dir '" + cache.string() + "' " + args);
  }
  std::set<fs::path> entries() const {
    std::set<fs::path> out;
    if (fs::exists(cache))
      for (const auto &e : fs::recursive_directory_iterator(cache))
        if (e.is_regular_file() || e.is_symlink()) out.insert(e.path());
    return out;
  }
  // The one entry the run of `args` adds.
  fs::path newEntry(const std::string &args) const {
    std::set<fs::path> before = entries();
    run(args);
    std::vector<fs::path> added;
    for (const fs::path &p : entries())
      if (!before.count(p)) added.push_back(p);
    EXPECT_EQ(added.size(), 1u) << args;
    return added.empty() ? fs::path() : added.front();
  }
};

void overwrite(const fs::path &p, const std::string &text) {
  fs::remove(p);
  std::ofstream(p, std::ios::binary) << text;
}

// The forms a crafted entry takes: bare JSON (no MAC) and JSON behind a MAC line that is wrong.
std::vector<std::string> forgeries(const std::string &json) {
  return {json, "retrylint-cache-v2 " + std::string(64, '0') + "\n" + json,
          "retrylint-cache-v2 " + hex(hmacSha256("guessed key", json)) + "\n" + json};
}

std::string finding(const std::string &path, int line, int column, const std::string &fixes = "[]") {
  return R"({"anchor":"a","fingerprint":"f","fixes":)" + fixes +
         R"(,"format":"istio-virtualservice","message":"INJECTED","name":"attempts-excessive","rule":"RL203","severity":2,"where":[")" +
         path + "\"," + std::to_string(line) + "," + std::to_string(column) + "," + std::to_string(line) + "," +
         std::to_string(column + 1) + "]}";
}
std::string result(const std::string &findings) {
  return R"({"analysed":true,"errors":[],"findings":[)" + findings + R"(],"policies":1})";
}
std::string edit(const std::string &path, long long offset, long long length, const std::string &replacement) {
  return R"([{"description":"d","edits":[{"where":[")" + path + R"(",6,25,6,26],"offset":)" + std::to_string(offset) +
         ",\"length\":" + std::to_string(length) + ",\"replacement\":\"" + replacement + "\"}]}]";
}

size_t count(const std::string &text, const std::string &part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

} // namespace

// RFC 4231, test cases 1, 2, 3, 6 and 7 (a key longer than the block is hashed first).
TEST(HostileCache, HmacSha256MatchesRfc4231) {
  EXPECT_EQ(hex(hmacSha256(std::string(20, '\x0b'), "Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(hex(hmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(hex(hmacSha256(std::string(20, '\xaa'), std::string(50, '\xdd'))),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
  EXPECT_EQ(hex(hmacSha256(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First")),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  EXPECT_EQ(hex(hmacSha256(std::string(131, '\xaa'),
                           "This is a test using a larger than block-size key and a larger than block-size data. The key "
                           "needs to be hashed before being used by the HMAC algorithm.")),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

TEST(HostileCache, ForgedEntrySayingNoFindingsDoesNotHideThem) {
  CacheRig rig;
  rig.write("vs.yaml", kWarn);
  fs::path entry = rig.newEntry("vs.yaml");
  ASSERT_FALSE(entry.empty());
  for (const std::string &forged : forgeries(result(""))) {
    overwrite(entry, forged);
    CliRun r = rig.run("vs.yaml");
    EXPECT_EQ(r.exit_code, 1) << forged << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("vs.yaml:6:25: warning"), std::string::npos) << forged << "\n" << r.out;
  }
}

// A genuine entry (valid MAC) of a clean file, copied over the entry of a file with a finding:
// the MAC covers the key it was stored under, so it does not verify there.
TEST(HostileCache, GenuineEntryMovedToAnotherKeyDoesNotVerify) {
  CacheRig rig;
  rig.write("a.yaml", kWarn);
  rig.write("b.yaml", kClean);
  fs::path warnEntry = rig.newEntry("a.yaml");
  fs::path cleanEntry = rig.newEntry("b.yaml");
  ASSERT_FALSE(warnEntry.empty() || cleanEntry.empty());
  overwrite(warnEntry, slurp(cleanEntry));
  CliRun r = rig.run("--verbose a.yaml");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("a.yaml:6:25: warning"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("cache hits: 0, misses: 1, rejected entries: 1"), std::string::npos) << r.err;
}

TEST(HostileCache, ForgedEntryCannotInjectFindings) {
  CacheRig rig;
  rig.write("clean.yaml", kClean);
  fs::path entry = rig.newEntry("clean.yaml");
  ASSERT_FALSE(entry.empty());
  // At another path, at a line the file does not have, and at a column past its line's end.
  std::string injected = result(finding("/etc/passwd", 1, 1) + "," + finding("other.yaml", 2, 1) + "," +
                                finding("clean.yaml", 99, 1) + "," + finding("clean.yaml", 1, 80));
  for (const std::string &forged : forgeries(injected)) {
    overwrite(entry, forged);
    CliRun r = rig.run("clean.yaml");
    EXPECT_EQ(r.exit_code, 0) << forged << "\n" << r.out << r.err;
    EXPECT_EQ(r.out.find("INJECTED"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("passwd"), std::string::npos) << r.out;
  }
}

// --fix applies the first fix of each finding to the file the finding names: an entry must not
// make it write elsewhere, nor hand it offsets outside the file (-1 wraps to the largest size_t).
TEST(HostileCache, ForgedFixEditsNeverReachFix) {
  CacheRig rig;
  std::string vs = rig.write("vs.yaml", kWarn);
  std::string victim = rig.t.write("victim.txt", "VICTIM CONTENT\n");
  fs::path entry = rig.newEntry("vs.yaml");
  ASSERT_FALSE(entry.empty());
  std::vector<std::string> entries = {
      result(finding(victim, 1, 1, edit(victim, 0, 6, "PWNED!"))),
      result(finding("vs.yaml", 6, 25, edit("vs.yaml", -1, 2, "x"))),
      result(finding("vs.yaml", 6, 25, edit("vs.yaml", 1000000, 4, "x"))),
      result(finding("vs.yaml", 6, 25, edit("vs.yaml", 10, 1000000, "x"))),
  };
  for (const std::string &json : entries)
    for (const std::string &forged : forgeries(json)) {
      overwrite(entry, forged);
      CliRun r = rig.run("--fix vs.yaml");
      EXPECT_EQ(r.exit_code, 1) << forged << "\n" << r.out << r.err;
      EXPECT_NE(r.out.find("vs.yaml:6:25: warning"), std::string::npos) << r.out << r.err;
      EXPECT_EQ(r.err.find("applied"), std::string::npos) << r.err;
      EXPECT_EQ(slurp(victim), "VICTIM CONTENT\n") << forged;
      EXPECT_EQ(slurp(vs), kWarn) << forged;
    }
}

TEST(HostileCache, ValidEntryHitsAndATamperedOneIsRewritten) {
  CacheRig rig;
  rig.write("vs.yaml", kWarn);
  CliRun first = rig.run("--verbose vs.yaml");
  EXPECT_NE(first.err.find("cache hits: 0, misses: 1, rejected entries: 0"), std::string::npos) << first.err;
  CliRun second = rig.run("--verbose vs.yaml");
  EXPECT_NE(second.err.find("cache hits: 1, misses: 0, rejected entries: 0"), std::string::npos) << second.err;
  EXPECT_EQ(second.out, first.out);
  EXPECT_EQ(second.exit_code, 1);
  // One byte of the JSON changed: rejected, the file analysed afresh, the entry written anew.
  ASSERT_EQ(rig.entries().size(), 1u);
  fs::path entry = *rig.entries().begin();
  std::string text = slurp(entry);
  size_t at = text.find("\"policies\":1");
  ASSERT_NE(at, std::string::npos) << text;
  text[at + 11] = '2';
  overwrite(entry, text);
  CliRun tampered = rig.run("--verbose vs.yaml");
  EXPECT_NE(tampered.err.find("cache hits: 0, misses: 1, rejected entries: 1"), std::string::npos) << tampered.err;
  EXPECT_EQ(tampered.out, first.out);
  CliRun again = rig.run("--verbose vs.yaml");
  EXPECT_NE(again.err.find("cache hits: 1, misses: 0, rejected entries: 0"), std::string::npos) << again.err;
  // The entry file is not readable by others.
  EXPECT_EQ(fs::status(entry).permissions() & (fs::perms::group_all | fs::perms::others_all), fs::perms::none);
}

// Whoever writes the cache must not be able to read or replace the key: a key file that would
// lie in the cache directory (directly or through a link) disables the cache, with one warning,
// and the findings are still reported.
TEST(HostileCache, KeyFileInsideTheCacheDirectoryDisablesTheCache) {
  CacheRig rig;
  rig.write("vs.yaml", kWarn);
  fs::create_directories(rig.cache / "cfg");
  fs::create_directory_symlink(rig.cache / "cfg", rig.t.path / "cfg-link");
  for (std::string xdg : {rig.cache.string(), (rig.cache / "cfg").string(), (rig.t.path / "cfg-link").string()}) {
    CliRun r = rig.run("--verbose vs.yaml", "XDG_CONFIG_HOME='" + xdg + "'");
    EXPECT_EQ(r.exit_code, 1) << xdg << "\n" << r.err;
    EXPECT_NE(r.out.find("vs.yaml:6:25: warning"), std::string::npos) << r.out;
    EXPECT_EQ(count(r.err, "warning: not using the result cache"), 1u) << r.err;
    EXPECT_NE(r.err.find("would lie inside it"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("cache hits"), std::string::npos) << r.err;
    EXPECT_TRUE(rig.entries().empty()) << xdg;
  }
  // --fix analyses afresh (its edits must come from the bytes it rewrites): no cache, no warning.
  CliRun fixRun = rig.run("--verbose --fix vs.yaml", "XDG_CONFIG_HOME='" + rig.cache.string() + "'");
  EXPECT_EQ(count(fixRun.err, "warning: not using the result cache"), 0u) << fixRun.err;
  EXPECT_EQ(fixRun.err.find("cache hits"), std::string::npos) << fixRun.err;
}

TEST(HostileCache, KeyFileIsMadeOnceInTheUsersConfigDirectory) {
  CacheRig rig;
  rig.write("vs.yaml", kWarn);
  fs::path home = rig.t.path / "home";
  fs::create_directories(home);
  std::string env = "XDG_CONFIG_HOME= HOME='" + home.string() + "'"; // empty: as if unset
  CliRun first = rig.run("--verbose vs.yaml", env);
  fs::path key = home / ".config" / "retrylint" / "cache-key";
  ASSERT_TRUE(fs::is_regular_file(fs::symlink_status(key))) << first.err;
  EXPECT_EQ(fs::file_size(key), 32u);
  EXPECT_EQ(fs::status(key).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  std::string bytes = slurp(key);
  CliRun second = rig.run("--verbose vs.yaml", env);
  EXPECT_NE(second.err.find("cache hits: 1, misses: 0"), std::string::npos) << second.err;
  EXPECT_EQ(slurp(key), bytes);
  EXPECT_FALSE(fs::exists(rig.config / "retrylint")); // XDG_CONFIG_HOME was empty
  // $XDG_CONFIG_HOME wins over $HOME: another key, so the entry made under the first one is rejected.
  CliRun xdg = rig.run("--verbose vs.yaml");
  EXPECT_TRUE(fs::is_regular_file(rig.config / "retrylint" / "cache-key"));
  EXPECT_NE(xdg.err.find("cache hits: 0, misses: 1, rejected entries: 1"), std::string::npos) << xdg.err;
  EXPECT_EQ(xdg.out, first.out);

  // A link in the key file's place is not followed, neither to read nor to create: no cache.
  fs::path home2 = rig.t.path / "home2";
  fs::create_directories(home2 / ".config" / "retrylint");
  fs::create_symlink(rig.t.path / "elsewhere", home2 / ".config" / "retrylint" / "cache-key");
  CliRun linked = rig.run("vs.yaml", "XDG_CONFIG_HOME= HOME='" + home2.string() + "'");
  EXPECT_EQ(linked.exit_code, 1) << linked.err;
  EXPECT_NE(linked.out.find("vs.yaml:6:25: warning"), std::string::npos) << linked.out;
  EXPECT_EQ(count(linked.err, "warning: not using the result cache"), 1u) << linked.err;
  EXPECT_FALSE(fs::exists(rig.t.path / "elsewhere"));
}

TEST(HostileCache, KeyFromTheEnvironment) {
  CacheRig rig;
  rig.write("vs.yaml", kWarn);
  const std::string key = "RETRYLINT_CACHE_KEY='0123456789abcdef0123456789abcdef'";
  CliRun first = rig.run("--verbose vs.yaml", key);
  CliRun second = rig.run("--verbose vs.yaml", key);
  EXPECT_NE(second.err.find("cache hits: 1, misses: 0, rejected entries: 0"), std::string::npos) << second.err;
  EXPECT_EQ(second.out, first.out);
  EXPECT_FALSE(fs::exists(rig.config / "retrylint")) << "no key file is made when the variable is set";
  // Another key: the entry does not verify.
  CliRun other = rig.run("--verbose vs.yaml", "RETRYLINT_CACHE_KEY='fedcba9876543210fedcba9876543210'");
  EXPECT_NE(other.err.find("cache hits: 0, misses: 1, rejected entries: 1"), std::string::npos) << other.err;
  EXPECT_EQ(other.out, first.out);
  // Too short to be a secret: no cache, one warning, the same findings.
  CliRun weak = rig.run("--verbose vs.yaml", "RETRYLINT_CACHE_KEY=abc");
  EXPECT_EQ(count(weak.err, "warning: not using the result cache"), 1u) << weak.err;
  EXPECT_EQ(weak.out, first.out);
  EXPECT_EQ(weak.exit_code, 1);
}

TEST(HostileCache, LinksPlantedInTheCacheAreNotFollowed) {
  CacheRig rig;
  rig.write("vs.yaml", kWarn);
  fs::path entry = rig.newEntry("vs.yaml");
  ASSERT_FALSE(entry.empty());
  // An entry that is a link to a file elsewhere: not read, not written through (replaced).
  std::string victim = rig.t.write("victim.txt", "VICTIM\n");
  fs::remove(entry);
  fs::create_symlink(victim, entry);
  CliRun r = rig.run("vs.yaml");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(slurp(victim), "VICTIM\n");
  // An entry that is a link to a FIFO (or a FIFO itself): not opened for reading, so no hang.
  for (bool link : {true, false}) {
    fs::path fifo = rig.t.path / "fifo";
    fs::remove(fifo);
    fs::remove(entry);
    ASSERT_EQ(::mkfifo((link ? fifo : entry).c_str(), 0600), 0);
    if (link) fs::create_symlink(fifo, entry);
    CliRun f = runRetrylintIn(rig.tree.string(),
                              "env -u RETRYLINT_CACHE_KEY XDG_CONFIG_HOME='" + rig.config.string() + "' timeout 60 ",
                              "--cache-dir '" + rig.cache.string() + "' vs.yaml");
    EXPECT_EQ(f.exit_code, 1) << (link ? "link to a FIFO " : "FIFO ") << f.err;
    EXPECT_NE(f.out.find("vs.yaml:6:25: warning"), std::string::npos) << f.out;
  }
  // The entry's directory replaced by a link to another directory: nothing is written there.
  fs::path victimDir = rig.t.path / "victim-dir";
  fs::create_directories(victimDir);
  fs::path sub = entry.parent_path();
  fs::remove_all(sub);
  fs::create_directory_symlink(victimDir, sub);
  CliRun d = rig.run("vs.yaml");
  EXPECT_EQ(d.exit_code, 1) << d.err;
  EXPECT_TRUE(fs::is_empty(victimDir)) << fs::directory_iterator(victimDir)->path();
  // And the directory of every entry likewise.
  fs::path top = sub.parent_path();
  fs::remove_all(top);
  fs::create_directory_symlink(victimDir, top);
  CliRun t = rig.run("vs.yaml");
  EXPECT_EQ(t.exit_code, 1) << t.err;
  EXPECT_TRUE(fs::is_empty(victimDir));
  // And the cache directory itself, planted as a link by the checkout where CI keeps its cache.
  fs::remove_all(rig.cache);
  fs::create_directory_symlink(victimDir, rig.cache);
  CliRun c = rig.run("vs.yaml");
  EXPECT_EQ(c.exit_code, 1) << c.err;
  EXPECT_NE(c.out.find("vs.yaml:6:25: warning"), std::string::npos) << c.out;
  EXPECT_NE(c.err.find("not using the result cache in " + rig.cache.string() + ": it is a symbolic link"), std::string::npos) << c.err;
  EXPECT_TRUE(fs::is_empty(victimDir));
}

// Several runs at once on one cache, on their first use of the key: they agree on one key, all
// print what an uncached run prints, and leave no temporary files.
TEST(HostileCache, ConcurrentRunsShareOneCacheAndOneKey) {
  CacheRig rig;
  for (int i = 0; i < 12; ++i) rig.write("f" + std::to_string(i) + ".yaml", i % 2 ? kWarn : kClean);
  CliRun plain = runRetrylintIn(rig.tree.string(), "", "--no-cache --format json .");
  ASSERT_EQ(plain.exit_code, 1);
  std::string script = "cd '" + rig.tree.string() + "' && for i in 1 2 3 4 5 6; do (env -u RETRYLINT_CACHE_KEY XDG_CONFIG_HOME='" +
                       rig.config.string() + "' '" + RETRYLINT_BINARY + "' -j2 --cache-dir '" + rig.cache.string() +
                       "' --format json . > ../out$i 2> ../err$i; echo $? > ../rc$i) & done; wait";
  ASSERT_EQ(std::system(script.c_str()), 0);
  for (int i = 1; i <= 6; ++i) {
    std::string n = std::to_string(i);
    EXPECT_EQ(slurp(rig.t.path / ("out" + n)), plain.out) << i;
    EXPECT_EQ(slurp(rig.t.path / ("err" + n)), "") << i;
    EXPECT_EQ(slurp(rig.t.path / ("rc" + n)), "1\n") << i;
  }
  EXPECT_EQ(fs::file_size(rig.config / "retrylint" / "cache-key"), 32u);
  for (const auto &e : fs::directory_iterator(rig.config / "retrylint"))
    EXPECT_EQ(e.path().filename(), "cache-key") << "left over: " << e.path();
  EXPECT_EQ(rig.entries().size(), 12u);
  for (const fs::path &p : rig.entries()) EXPECT_EQ(p.extension(), ".json") << "left over: " << p;
  CliRun warm = rig.run("--verbose --format json .");
  EXPECT_NE(warm.err.find("cache hits: 12, misses: 0, rejected entries: 0"), std::string::npos) << warm.err;
  EXPECT_EQ(warm.out, plain.out);
}

TEST(HostileCache, EntriesMustFitTheFileTheyDescribe) {
  const std::string path = "deploy/vs.yaml";
  FileResult r = analyseText(path, kWarn, true, RunOptions{});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_TRUE(resultFitsFile(r, path, kWarn));
  EXPECT_TRUE(resultFitsFile(r, path, "\xEF\xBB\xBF" + std::string(kWarn)));
  EXPECT_FALSE(resultFitsFile(r, "other.yaml", kWarn));
  EXPECT_FALSE(resultFitsFile(r, path, "short\n"));
  auto with = [&](auto change) {
    FileResult c = r;
    change(c);
    return resultFitsFile(c, path, kWarn);
  };
  EXPECT_FALSE(with([](FileResult &c) { c.findings[0].where.path = "/etc/passwd"; }));
  EXPECT_FALSE(with([](FileResult &c) { c.findings[0].where.line = 8; }));
  EXPECT_FALSE(with([](FileResult &c) { c.findings[0].where.line = 0; }));
  EXPECT_FALSE(with([](FileResult &c) { c.findings[0].where.column = 43; }));
  EXPECT_TRUE(with([](FileResult &c) { c.findings[0].where.column = 42, c.findings[0].where.end_column = 42; }));
  EXPECT_FALSE(with([](FileResult &c) { c.findings[0].where.end_line = 5; }));
  EXPECT_FALSE(with([](FileResult &c) { c.errors.push_back(Diagnostic{"elsewhere.yaml", 0, 0, "x"}); }));
  EXPECT_TRUE(with([&](FileResult &c) { c.errors.push_back(Diagnostic{path, 0, 0, "x"}); }));
  EXPECT_FALSE(with([&](FileResult &c) { c.errors.push_back(Diagnostic{path, 9, 1, "x"}); }));
  const size_t size = std::string(kWarn).size();
  auto withEdit = [&](size_t offset, size_t length, std::string editPath) {
    return with([&](FileResult &c) {
      TextEdit e;
      e.where = c.findings[0].where;
      e.where.path = editPath;
      e.offset = offset, e.length = length;
      c.findings[0].fixes.push_back(Fix{"d", {e}});
    });
  };
  EXPECT_TRUE(withEdit(size, 0, path));
  EXPECT_TRUE(withEdit(0, size, path));
  EXPECT_FALSE(withEdit(size, 1, path));
  EXPECT_FALSE(withEdit(static_cast<size_t>(-1), 2, path));
  EXPECT_FALSE(withEdit(1, static_cast<size_t>(-1), path));
  EXPECT_FALSE(withEdit(0, 1, "/etc/passwd"));
}

// The check never rejects what the engine itself produced: every fixture's result fits it.
TEST(HostileCache, EveryFixtureResultFitsItsFile) {
  size_t findings = 0, fixes = 0;
  for (const auto &e : fs::recursive_directory_iterator(fs::path(RETRYLINT_SOURCE_DIR) / "fixtures")) {
    if (!e.is_regular_file()) continue;
    std::string path = e.path().string(), text = readFile(path);
    for (bool named : {false, true}) {
      FileResult r = analyseText(path, text, named, RunOptions{});
      EXPECT_TRUE(resultFitsFile(r, path, text)) << path;
      findings += r.findings.size();
      for (const Finding &f : r.findings) fixes += f.fixes.size();
    }
  }
  EXPECT_GT(findings, 100u);
  EXPECT_GT(fixes, 5u);
}

namespace {
// Whether `dir` or a directory above it holds .git or .retrylint.yaml (the tests below assume
// the temporary directory is in no repository).
bool inRepositoryOrConfigured(fs::path dir) {
  for (;; dir = dir.parent_path()) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(dir / ".git", ec)) || fs::exists(dir / ".retrylint.yaml", ec)) return true;
    if (dir == dir.parent_path()) return false;
  }
}
const char *kSilence = "rules: {RL203: off}\n";
} // namespace

// A config in the directory above the repository (the checkout's parent, which a stranger's
// repository does not own) is not applied; with .git a directory or a file (worktrees, submodules).
TEST(HostileConfig, ConfigAboveTheRepositoryIsNotApplied) {
  for (bool gitFile : {false, true}) {
    TempDir t;
    t.write(".retrylint.yaml", kSilence);
    fs::path repo = fs::canonical(t.path) / "repo";
    if (gitFile) t.write("repo/.git", "gitdir: /elsewhere/.git/worktrees/repo\n");
    else fs::create_directories(repo / ".git");
    t.write("repo/deploy/vs.yaml", kWarn);
    for (fs::path cwd : {repo, repo / "deploy"}) {
      CliRun r = runRetrylintIn(cwd.string(), "", "--verbose .");
      EXPECT_EQ(r.exit_code, 1) << cwd << r.out << r.err;
      EXPECT_NE(r.out.find("vs.yaml:6:25: warning"), std::string::npos) << r.out;
      EXPECT_NE(r.err.find("retrylint: no config: no .retrylint.yaml from " + cwd.string() + " up to " + repo.string() +
                           " (the repository root)"),
                std::string::npos)
          << r.err;
    }
  }
}

TEST(HostileConfig, ConfigAtTheRepositoryRootIsAppliedAndNamed) {
  TempDir t;
  fs::path repo = fs::canonical(t.path) / "repo";
  fs::create_directories(repo / ".git");
  t.write("repo/.retrylint.yaml", kSilence);
  t.write("repo/deploy/vs.yaml", kWarn);
  CliRun r = runRetrylintIn((repo / "deploy").string(), "", "--verbose .");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("retrylint: using config " + (repo / ".retrylint.yaml").string() + "\n"), std::string::npos) << r.err;
  // --config names the file given (absolute), and /dev/null says there is none.
  CliRun given = runRetrylintIn(repo.string(), "", "--verbose --config .retrylint.yaml deploy");
  EXPECT_NE(given.err.find("retrylint: using config " + (repo / ".retrylint.yaml").string() + "\n"), std::string::npos)
      << given.err;
  CliRun none = runRetrylintIn(repo.string(), "", "--verbose --config /dev/null deploy");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("retrylint: no config: --config /dev/null"), std::string::npos) << none.err;
  // Without --verbose, nothing is said.
  EXPECT_EQ(withoutSummary(runRetrylintIn((repo / "deploy").string(), "", ".").err), "");
}

// Outside any repository the search still goes up (to the top of the file system).
TEST(HostileConfig, OutsideAnyRepositoryTheParentsConfigIsFound) {
  TempDir t;
  if (inRepositoryOrConfigured(fs::canonical(t.path).parent_path()))
    GTEST_SKIP() << "the temporary directory is inside a repository or under a .retrylint.yaml";
  t.write(".retrylint.yaml", kSilence);
  t.write("sub/vs.yaml", kWarn);
  CliRun r = runRetrylintIn((t.path / "sub").string(), "", "--verbose vs.yaml");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("retrylint: using config " + (fs::canonical(t.path) / ".retrylint.yaml").string()), std::string::npos)
      << r.err;
  std::string stoppedAt;
  EXPECT_EQ(findProjectConfig(fs::canonical(t.path / "sub").string(), &stoppedAt), (fs::canonical(t.path) / ".retrylint.yaml").string());
}

// /proc is a file system of its own: a search starting inside it ends at /proc, not at /.
TEST(HostileConfig, SearchStopsAtTheEdgeOfTheFileSystem) {
  struct stat root, proc;
  if (::stat("/", &root) != 0 || ::stat("/proc/sys", &proc) != 0 || root.st_dev == proc.st_dev)
    GTEST_SKIP() << "no /proc mounted apart from /";
  std::string stoppedAt;
  EXPECT_EQ(findProjectConfig("/proc/sys", &stoppedAt), "");
  EXPECT_EQ(stoppedAt, "/proc (the top of its file system)");
  EXPECT_EQ(findProjectConfig("/no/such/dir", &stoppedAt), "");
  EXPECT_EQ(stoppedAt, "/no/such/dir (cannot be read)");
}
