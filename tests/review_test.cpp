// `retrylint review --base REV`: a working tree compared with a base revision, in throwaway git
// repositories. The posture numbers are checked against what the files configure (3 x 3 = 9
// calls before, 6 x 3 = 18 after), the Markdown against a golden report, and the command against
// checkouts written by a stranger (names that would be Markdown, links, revisions that are options).
#include <filesystem>
#include <regex>
#include <set>

#include <gtest/gtest.h>
#include <llvm/Support/JSON.h>

#include "cli_support.h"
#include "lint/review/review.h"

namespace fs = std::filesystem;
using namespace retrylint::testing;

namespace {

const char *kRoute = R"(apiVersion: networking.istio.io/v1beta1
kind: VirtualService
metadata:
  name: orders
spec:
  hosts: [orders]
  http:
  - route:
    - destination: {host: orders}
    timeout: 10s
    retries:
      attempts: 2
      perTryTimeout: 2s
      retryOn: 5xx
)";

const char *kGrpc = R"({"methodConfig": [{"name": [{"service": "shop.Orders"}], "timeout": "5s",
  "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2,
                  "retryableStatusCodes": ["UNAVAILABLE"]}}]}
)";

const char *kLayers = R"(layers:
  - name: mesh
    paths: ["mesh/**"]
  - name: orders
    paths: ["svc/**"]
)";

const char *kGit = "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z git -c user.email=t@example.com -c user.name=t ";

// A repository with a mesh route over a gRPC client, declared as a chain, committed as the base.
struct Repo {
  TempDir t;
  std::string dir() const { return t.path.string(); }
  explicit Repo(bool layered = true) {
    t.write("mesh/orders.yaml", kRoute);
    t.write("svc/grpc_service_config.json", kGrpc);
    if (layered) t.write(".retrylint.yaml", kLayers);
    git("init -q -b main . && " + std::string(kGit) + "add -A && " + kGit + "commit -qm base");
  }
  void git(const std::string &args) const {
    CliRun r = runShellIn(dir(), std::string(kGit) + args);
    ASSERT_EQ(r.exit_code, 0) << args << ": " << r.err;
  }
  CliRun review(const std::string &args, const std::string &where = "") const {
    return runShellIn(where.empty() ? dir() : where, "\"$RL\" review " + args);
  }
};

std::string replaced(std::string s, const std::string &from, const std::string &to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

std::string raise(std::string text, const std::string &from, const std::string &to) { return replaced(std::move(text), from, to); }

} // namespace

TEST(Review, MoreAttemptsOnTheMeshMultiplyTheChainAndAreMarkedWorse) {
  Repo repo;
  repo.t.write("mesh/orders.yaml", raise(kRoute, "attempts: 2", "attempts: 5"));
  CliRun r = repo.review("--base HEAD --format json");
  ASSERT_EQ(r.exit_code, 1) << r.err; // RL204 and RL301 are introduced
  auto doc = llvm::json::parse(r.out);
  ASSERT_TRUE(bool(doc)) << r.out;
  const llvm::json::Object &o = *doc->getAsObject();
  EXPECT_EQ(*o.getInteger("version"), 1);
  std::string head = runShellIn(repo.dir(), "git rev-parse HEAD").out;
  EXPECT_EQ(o.getObject("base")->getString("commit")->str() + "\n", head);
  EXPECT_EQ(*o.getObject("base")->getBoolean("merge_base"), false);
  const llvm::json::Array &files = *o.getArray("files");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(*files[0].getAsString(), "mesh/orders.yaml");

  std::set<std::string> introduced;
  for (const llvm::json::Value &f : *o.getObject("findings")->getArray("introduced"))
    introduced.insert(f.getAsObject()->getString("rule")->str() + " " + f.getAsObject()->getString("path")->str());
  EXPECT_TRUE(introduced.count("RL204 svc/grpc_service_config.json")) << r.out; // 6 x 3 = 18 > 10
  EXPECT_TRUE(introduced.count("RL301 mesh/orders.yaml")) << r.out;             // 6 x 2 s > 10 s
  EXPECT_EQ(o.getObject("findings")->getArray("fixed")->size(), 0u);

  const llvm::json::Array &posture = *o.getArray("posture");
  ASSERT_EQ(posture.size(), 2u) << r.out; // the chain, then the route's policy
  const llvm::json::Object &chain = *posture[0].getAsObject();
  EXPECT_EQ(*chain.getString("kind"), "chain");
  EXPECT_EQ(*chain.getString("title"), "mesh > orders");
  EXPECT_EQ(*chain.getString("direction"), "worse");
  EXPECT_EQ(*chain.getObject("before")->getNumber("calls_at_bottom"), 9.0);
  EXPECT_EQ(*chain.getObject("after")->getNumber("calls_at_bottom"), 18.0);
  EXPECT_EQ(*chain.getObject("moves")->getString("calls_at_bottom"), "worse");
  EXPECT_EQ(*chain.getObject("moves")->getString("deadline"), "same");
  // The storm: 1,000 clients, every call fails during 10 s: each request becomes its 18 calls.
  EXPECT_EQ(*chain.getObject("after")->getObject("storm")->getInteger("calls"), 18000);
  EXPECT_EQ(*chain.getObject("before")->getObject("storm")->getInteger("calls"), 9000);
  const llvm::json::Object &policy = *posture[1].getAsObject();
  EXPECT_EQ(*policy.getString("place"), "mesh/orders.yaml:11");
  EXPECT_EQ(*policy.getObject("before")->getString("attempts"), "3");
  EXPECT_EQ(*policy.getObject("after")->getString("attempts"), "6");
}

TEST(Review, GoldenMarkdownReport) {
  Repo repo;
  repo.t.write("mesh/orders.yaml", raise(kRoute, "attempts: 2", "attempts: 5"));
  CliRun r = repo.review("--base HEAD");
  ASSERT_EQ(r.exit_code, 1) << r.err;
  std::string commit = runShellIn(repo.dir(), "git rev-parse --short=12 HEAD").out;
  commit.pop_back();
  std::string got = replaced(r.out, commit, "BASECOMMIT");
  expectGolden(got, "review.md");
}

TEST(Review, FixingTheChainIsBetterAndTheFindingsItFixedAreCounted) {
  Repo repo;
  repo.t.write("mesh/orders.yaml", raise(kRoute, "attempts: 2", "attempts: 5"));
  repo.git("commit -qam more");
  repo.t.write("mesh/orders.yaml", raise(kRoute, "attempts: 2", "attempts: 1"));
  CliRun r = repo.review("--base HEAD --format json");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto doc = llvm::json::parse(r.out);
  ASSERT_TRUE(bool(doc)) << r.out;
  const llvm::json::Object &o = *doc->getAsObject();
  std::set<std::string> fixed;
  for (const llvm::json::Value &f : *o.getObject("findings")->getArray("fixed")) fixed.insert(f.getAsObject()->getString("rule")->str());
  EXPECT_TRUE(fixed.count("RL204")) << r.out;
  EXPECT_TRUE(fixed.count("RL301")) << r.out;
  const llvm::json::Object &chain = *(*o.getArray("posture"))[0].getAsObject();
  EXPECT_EQ(*chain.getString("direction"), "better");
  EXPECT_EQ(*chain.getObject("after")->getNumber("calls_at_bottom"), 6.0); // 2 x 3
}

TEST(Review, TheBasesOwnConfigJudgesTheBase) {
  // The change only raises the ceiling: the base's config (ceiling 10) reported RL204 on 18
  // calls, the new one (ceiling 20) does not, so the finding is fixed by the config change.
  Repo repo;
  repo.t.write("mesh/orders.yaml", raise(kRoute, "attempts: 2", "attempts: 5"));
  repo.git("commit -qam more");
  repo.t.write(".retrylint.yaml", std::string(kLayers) + "settings:\n  max-amplification: 20\n");
  CliRun r = repo.review("--base HEAD --format json");
  auto doc = llvm::json::parse(r.out);
  ASSERT_TRUE(bool(doc)) << r.out << r.err;
  const llvm::json::Object &o = *doc->getAsObject();
  ASSERT_EQ(o.getObject("findings")->getArray("fixed")->size(), 1u) << r.out;
  EXPECT_EQ(*(*o.getObject("findings")->getArray("fixed"))[0].getAsObject()->getString("rule"), "RL204");
  EXPECT_EQ(o.getObject("findings")->getArray("introduced")->size(), 0u) << r.out;
}

TEST(Review, NewAndDeletedFilesAreAddedAndRemovedRows) {
  Repo repo(/*layered=*/false);
  repo.t.write("extra/vs.yaml", raise(kRoute, "name: orders", "name: payments"));
  fs::remove(repo.t.path / "svc/grpc_service_config.json");
  CliRun r = repo.review("--base HEAD --format json");
  auto doc = llvm::json::parse(r.out);
  ASSERT_TRUE(bool(doc)) << r.out << r.err;
  std::set<std::string> rows;
  for (const llvm::json::Value &v : *doc->getAsObject()->getArray("posture"))
    rows.insert(v.getAsObject()->getString("direction")->str() + " " + v.getAsObject()->getString("place")->str());
  EXPECT_EQ(rows, (std::set<std::string>{"added extra/vs.yaml:11", "removed svc/grpc_service_config.json:2"})) << r.out;
  // Not layered: only the touched files are read, and the unchanged route is not a row.
  for (const llvm::json::Value &v : *doc->getAsObject()->getArray("files")) EXPECT_NE(*v.getAsString(), "mesh/orders.yaml");
}

TEST(Review, ComparesWithTheMergeBaseSoMainsNewCommitsAreNotBlamedOnTheBranch) {
  Repo repo(/*layered=*/false);
  repo.git("checkout -q -b feature");
  repo.t.write("mesh/orders.yaml", raise(kRoute, "attempts: 2", "attempts: 3"));
  repo.git("commit -qam feature");
  repo.git("checkout -q main");
  repo.t.write("svc/grpc_service_config.json", replaced(kGrpc, "\"maxAttempts\": 3", "\"maxAttempts\": 4"));
  repo.git("commit -qam main-moves-on");
  repo.git("checkout -q feature");
  CliRun r = repo.review("--base main --format json");
  auto doc = llvm::json::parse(r.out);
  ASSERT_TRUE(bool(doc)) << r.out << r.err;
  EXPECT_EQ(*doc->getAsObject()->getObject("base")->getBoolean("merge_base"), true);
  const llvm::json::Array &files = *doc->getAsObject()->getArray("files");
  ASSERT_EQ(files.size(), 1u) << r.out;
  EXPECT_EQ(*files[0].getAsString(), "mesh/orders.yaml");
  CliRun md = repo.review("--base main");
  EXPECT_NE(md.out.find(", the merge base of main and HEAD"), std::string::npos) << md.out;
}

TEST(Review, FromASubdirectoryPathsReadFromThere) {
  Repo repo;
  repo.t.write("mesh/orders.yaml", raise(kRoute, "attempts: 2", "attempts: 5"));
  CliRun r = repo.review("--base HEAD --format json", (repo.t.path / "svc").string());
  auto doc = llvm::json::parse(r.out);
  ASSERT_TRUE(bool(doc)) << r.out << r.err;
  // Only svc/ is reviewed by default, but the chain through it moved: its finding is there.
  std::set<std::string> paths;
  for (const llvm::json::Value &f : *doc->getAsObject()->getObject("findings")->getArray("introduced"))
    paths.insert(f.getAsObject()->getString("path")->str());
  EXPECT_TRUE(paths.count("grpc_service_config.json")) << r.out;
  CliRun whole = repo.review("--base HEAD --format json ..", (repo.t.path / "svc").string());
  EXPECT_NE(whole.out.find("\"../mesh/orders.yaml\""), std::string::npos) << whole.out;
  CliRun outside = repo.review("--base HEAD /", (repo.t.path / "svc").string());
  EXPECT_EQ(outside.exit_code, 2);
  EXPECT_NE(outside.err.find("is not inside the repository"), std::string::npos) << outside.err;
}

TEST(Review, UsageErrors) {
  Repo repo;
  CliRun none = repo.review("");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("needs --base"), std::string::npos);
  CliRun nosuch = repo.review("--base no-such-branch");
  EXPECT_EQ(nosuch.exit_code, 2);
  EXPECT_NE(nosuch.err.find("'no-such-branch' names no commit"), std::string::npos) << nosuch.err;
  // A revision that is an option never reaches git as one.
  CliRun option = repo.review("--base=--output=evil.txt");
  EXPECT_EQ(option.exit_code, 2);
  EXPECT_FALSE(fs::exists(repo.t.path / "evil.txt"));
  EXPECT_EQ(repo.review("--base HEAD --format sarif").exit_code, 2);
  EXPECT_EQ(repo.review("--base HEAD --fix").exit_code, 2);
  EXPECT_EQ(repo.review("--base HEAD --policy x").exit_code, 2);
  EXPECT_EQ(runShellIn(repo.dir(), "\"$RL\" --base HEAD .").exit_code, 2);         // --base is review's
  EXPECT_EQ(runShellIn(repo.dir(), "\"$RL\" --format markdown .").exit_code, 2);   // and so is markdown
  TempDir notRepo;
  CliRun outside = runShellIn(notRepo.path.string(), "GIT_CEILING_DIRECTORIES=/ \"$RL\" review --base HEAD");
  EXPECT_EQ(outside.exit_code, 2);
  EXPECT_NE(outside.err.find("not inside a git repository"), std::string::npos) << outside.err;
}

TEST(Review, ABrokenFileTheChangeDidNotTouchIsNotTheChangesError) {
  Repo repo;
  const std::string broken = "apiVersion: networking.istio.io/v1beta1\nkind: VirtualService\nspec:\n  http:\n  - retries:\n      attempts: [3\n";
  repo.t.write("svc/broken.yaml", broken);
  repo.git("add -A && " + std::string(kGit) + "commit -qm broken");
  repo.t.write("mesh/orders.yaml", raise(kRoute, "attempts: 2", "attempts: 1"));
  CliRun r = repo.review("--base HEAD");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("Could not be analysed"), std::string::npos) << r.out;
  // Touching it makes it the change's.
  repo.t.write("svc/broken.yaml", raise(broken, "[3", "[4"));
  CliRun touched = repo.review("--base HEAD");
  EXPECT_EQ(touched.exit_code, 2) << touched.out;
  EXPECT_NE(touched.out.find("Could not be analysed"), std::string::npos) << touched.out;
  EXPECT_NE(touched.err.find("svc/broken.yaml"), std::string::npos) << touched.err;
}

TEST(Review, SvgDrawsTheWorstTouchedChainAfterBeforeAndWithFullJitter) {
  Repo repo;
  repo.t.write("mesh/orders.yaml", raise(kRoute, "attempts: 2", "attempts: 5"));
  CliRun r = repo.review("--base HEAD --svg storm.svg -o review.md");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(slurp(repo.t.path / "review.md").find("**18,000 calls**"), std::string::npos);
  std::string svg = slurp(repo.t.path / "storm.svg");
  EXPECT_NE(svg.find("Retry storm: mesh &gt; orders"), std::string::npos) << svg.substr(0, 400);
  for (const char *id : {"<path id=\"series-configured\" data-calls=\"18000\"", "<path id=\"series-before\" data-calls=\"9000\"",
                         "<path id=\"series-full-jitter\""})
    EXPECT_NE(svg.find(id), std::string::npos) << id;
  if (runShellIn(repo.dir(), "command -v xmllint").exit_code == 0) {
    EXPECT_EQ(runShellIn(repo.dir(), "xmllint --noout storm.svg").exit_code, 0);
  }
}

TEST(Review, TextFromTheFilesCannotBecomeMarkdownLinksMentionsOrHtml) {
  Repo repo(/*layered=*/false);
  repo.t.write("mesh/orders.yaml",
               raise(raise(kRoute, "attempts: 2", "attempts: 7"), "name: orders", "name: \"[pwn](https://evil.example) @team <img src=x> | cell\""));
  CliRun r = repo.review("--base HEAD");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out.find("](https://evil"), std::string::npos) << r.out;
  // CommonMark: a backslash-escaped '<' is a literal '<', never the start of a tag.
  EXPECT_FALSE(std::regex_search(r.out, std::regex(R"([^\\]<img)"))) << r.out;
  EXPECT_NE(r.out.find("\\<img"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" @team"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\\[pwn\\]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\\| cell"), std::string::npos) << r.out;
}

TEST(Review, TheBaseTreeIsWrittenWithoutFollowingLinksOrLeavingItsDirectory) {
  Repo repo(/*layered=*/false);
  TempDir victim;
  std::string target = victim.write("secret.yaml", "do not read\n");
  // In the base: a link named like a config pointing outside, and a file under a folder that is a link.
  ASSERT_EQ(runShellIn(repo.dir(), "ln -s '" + target + "' mesh/link.yaml && ln -s '" + victim.path.string() + "' out").exit_code, 0);
  repo.git("add -A && " + std::string(kGit) + "commit -qm links");
  repo.t.write("mesh/link2.yaml", "x: 1\n");
  fs::remove(repo.t.path / "mesh/link.yaml");
  CliRun r = repo.review("--base HEAD --format json");
  EXPECT_NE(r.exit_code, 2) << r.err;
  EXPECT_EQ(slurp(target), "do not read\n");
  EXPECT_EQ(r.out.find("do not read"), std::string::npos);
  EXPECT_EQ(std::distance(fs::directory_iterator(victim.path), fs::directory_iterator{}), 1); // nothing written there
}

TEST(ReviewTreePaths, UnsafeNamesAreNeverWritten) {
  using retrylint::unsafeTreePath;
  for (const char *bad : {"/etc/passwd", "../x.yaml", "a/../../x.yaml", "a//b.yaml", "./a.yaml", "a/./b.yaml", ".git/config",
                          "a/.GIT/hooks/pre-commit", "a/", ""})
    EXPECT_TRUE(unsafeTreePath(bad)) << bad;
  for (const char *good : {"a.yaml", "mesh/orders.yaml", ".retrylint.yaml", "a/.gitignore", "..a/b.yaml", "a/b..yaml"})
    EXPECT_FALSE(unsafeTreePath(good)) << good;
}

TEST(ReviewMarkdown, EscapesEveryPunctuationAReaderActsOn) {
  using retrylint::markdownText;
  EXPECT_EQ(markdownText("a_b*c"), "a\\_b\\*c");
  EXPECT_EQ(markdownText("[x](y)"), "\\[x\\]\\(y\\)");
  EXPECT_EQ(markdownText("<b>|"), "\\<b\\>\\|");
  EXPECT_EQ(markdownText("one\ntwo"), "one two");
  EXPECT_EQ(markdownText("@team").find("@t"), std::string::npos);
  EXPECT_EQ(markdownText("plain words 3 s"), "plain words 3 s");
}
