// A hostile pull request against the gate CI relies on (issue #55, round 3): a planted git
// repository, attributes that hide hunks, the user's own diff settings, links out of the checkout,
// a linked root config, markers in strings, NUL bytes, a baseline outgrown; inputs of a few hundred
// bytes that used to hang or crash; output turned against its reader. Each test makes the attack
// here at run time and fails without its fix.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "lint/config/config.h"
#include "lint/report/report.h"
#include "lint/review/review.h"
#include "lint/simulate/picture.h"
#include "tests/cli_support.h"
#include "tests/hostile_support.h"

namespace fs = std::filesystem;
using namespace retrylint;
using namespace retrylint::testing;

namespace {

// One RL203 finding (attempts: 9) on line 8, column 25; `attempts: 2` there reports nothing.
std::string virtualService(int attempts) {
  return "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: shop}\nspec:\n  hosts: [shop]\n"
         "  http:\n  - name: a\n    retries: {attempts: " +
         std::to_string(attempts) + ", perTryTimeout: 1s}\n    route: [{destination: {host: a}}]\n";
}

int shell(const std::string &cmd) {
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A git repository in `t` with `files` committed on main and tagged `base`; HOME points at `t` so
// the test's own git settings (--global) stay in it.
std::string gitIn(const TempDir &t) { return "cd '" + t.path.string() + "' && HOME='" + t.path.string() + "' git "; }
void commitBase(const TempDir &t) {
  ASSERT_EQ(shell(gitIn(t) + "-c init.defaultBranch=main init -q . && " + gitIn(t) + "config user.email t@example.com && " +
                  gitIn(t) + "config user.name t && " + gitIn(t) + "add -A && " + gitIn(t) + "commit -qm base && " + gitIn(t) +
                  "tag base"),
            0);
}
CliRun rl(const TempDir &t, const std::string &args, const std::string &sub = "") {
  return runShellIn((t.path / sub).string(), "HOME='" + t.path.string() + "' \"$RL\" " + args);
}

} // namespace

// ---- Git ---------------------------------------------------------------------------------

// svc/ committed as a git directory (HEAD, config, objects, refs as plain files) whose work tree
// is itself, with its own `base` at the attacker's commit and a filter in its config: git must
// use the checkout's own .git, so the change is seen and no command of the pull request runs.
TEST(HostileGit, APlantedRepositoryIsNeverUsed) {
  TempDir t, evil;
  t.write("svc/vs.yaml", virtualService(2));
  commitBase(t);
  evil.write("vs.yaml", virtualService(9));
  commitBase(evil);
  const std::string marker = (t.path / "filter-ran").string();
  ASSERT_EQ(shell("cp -r '" + (evil.path / ".git/HEAD").string() + "' '" + (evil.path / ".git/objects").string() + "' '" +
                  (evil.path / ".git/refs").string() + "' '" + (evil.path / ".git/index").string() + "' '" +
                  (t.path / "svc").string() + "/'"),
            0);
  t.write("svc/config", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n[filter \"x\"]\n\tclean = sh -c \"touch " +
                            marker + "; cat\"\n");
  t.write("svc/.gitattributes", "*.yaml filter=x\n");
  t.write("svc/vs.yaml", virtualService(9));
  ASSERT_EQ(shell(gitIn(t) + "add -A && " + gitIn(t) + "commit -qm pr"), 0);
  for (const std::string &args : {"--diff base .", "--diff base"}) {
    auto r = rl(t, args, "svc");
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("vs.yaml:8:25: warning: attempts: 9"), std::string::npos) << args << "\n" << r.out << r.err;
  }
  EXPECT_FALSE(fs::exists(marker)) << "a filter the pull request configured ran";
}

// `*.yaml -diff` (or `binary`) in the change's .gitattributes: git would print "Binary files
// differ" and no hunk; the diff is read as text whatever the attributes.
TEST(HostileGit, AttributesCannotHideTheHunks) {
  for (const char *attr : {"*.yaml -diff\n", "*.yaml binary\n", "* diff=none\n"}) {
    TempDir t;
    t.write("vs.yaml", virtualService(2));
    commitBase(t);
    t.write(".gitattributes", attr);
    t.write("vs.yaml", virtualService(9));
    auto r = rl(t, "--diff base");
    EXPECT_EQ(r.exit_code, 1) << attr << r.out << r.err;
    EXPECT_NE(r.out.find("vs.yaml:8:25:"), std::string::npos) << attr << r.out << r.err;
  }
}

// The user's diff settings rename what git prints (w/…, no prefix, relative paths): retrylint
// asks for git's own prefixes, so no finding is lost, not even in a top-level folder named b/.
TEST(HostileGit, TheUsersDiffSettingsLoseNoFinding) {
  for (const char *setting : {"diff.mnemonicPrefix true", "diff.noprefix true", "diff.relative true"}) {
    TempDir t;
    t.write("b/vs.yaml", virtualService(2));
    t.write("svc/vs.yaml", virtualService(2));
    commitBase(t);
    ASSERT_EQ(shell(gitIn(t) + "config --global " + setting), 0);
    t.write("b/vs.yaml", virtualService(9));
    t.write("svc/vs.yaml", virtualService(9));
    auto r = rl(t, "--diff base");
    EXPECT_NE(r.out.find("b/vs.yaml:8:25:"), std::string::npos) << setting << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("svc/vs.yaml:8:25:"), std::string::npos) << setting << "\n" << r.out << r.err;
    auto sub = rl(t, "--diff base .", "svc");
    EXPECT_NE(sub.out.find("vs.yaml:8:25:"), std::string::npos) << setting << "\n" << sub.out << sub.err;
  }
}

// A link the change adds to a file outside the checkout is not followed by `--diff REV` without
// paths, and a patch on standard input cannot name `../outside` either.
TEST(HostileGit, DiffPathsStayInsideTheCheckout) {
  TempDir outside, t;
  outside.write("credentials.yaml", virtualService(9) + "# sk_live_SECRET\n");
  t.write("vs.yaml", virtualService(2));
  commitBase(t);
  fs::create_symlink(outside.path / "credentials.yaml", t.path / "linked.yaml");
  fs::create_directory_symlink(outside.path, t.path / "linkdir");
  ASSERT_EQ(shell(gitIn(t) + "add -A && " + gitIn(t) + "commit -qm pr"), 0);
  auto r = rl(t, "--diff base --show-source");
  EXPECT_EQ(r.out.find("SECRET"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("linked.yaml:8"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("not followed: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("linked.yaml is reached through a symbolic link"), std::string::npos) << r.err;

  const std::string rel = "../" + outside.path.filename().string() + "/credentials.yaml";
  t.write("patch.diff", "--- a/" + rel + "\n+++ b/" + rel + "\n@@ -7,0 +8,1 @@\n+    retries: {attempts: 9}\n");
  auto p = rl(t, "--diff - --show-source < patch.diff");
  EXPECT_EQ(p.exit_code, 0) << p.out << p.err;
  EXPECT_EQ(p.out.find("credentials"), std::string::npos) << p.out;
  EXPECT_EQ(p.out.find("SECRET"), std::string::npos) << p.out;
  // The same patch naming a file inside is still read.
  t.write("patch2.diff", "--- a/vs.yaml\n+++ b/vs.yaml\n@@ -8,0 +8,1 @@\n+x\n");
  t.write("vs.yaml", virtualService(9));
  auto in = rl(t, "--diff - < patch2.diff");
  EXPECT_NE(in.out.find("vs.yaml:8:25:"), std::string::npos) << in.out << in.err;
}

// ---- Configuration and suppressions --------------------------------------------------------

// A root .retrylint.yaml committed as a link is refused by name, and nothing of its target is
// echoed; named with --config it is the user's choice and used.
TEST(HostileConfig, ALinkedRootConfigIsRefused) {
  TempDir outside, t;
  outside.write("secrets.yaml", "rules:\n  sk_live_SECRETVALUE: off\n");
  t.write(".git/HEAD", "ref: refs/heads/main\n"); // the repository root: the search stops here
  t.write("vs.yaml", virtualService(9));
  fs::create_symlink(outside.path / "secrets.yaml", t.path / ".retrylint.yaml");
  auto r = rl(t, "vs.yaml");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(".retrylint.yaml: error: a .retrylint.yaml found by searching must be a regular file, not a symbolic link"),
            std::string::npos)
      << r.err;
  EXPECT_EQ((r.out + r.err).find("SECRETVALUE"), std::string::npos) << r.out << r.err;
  // Named explicitly, the link is followed (and its error quotes it: the user named it).
  auto named = rl(t, "--config .retrylint.yaml vs.yaml");
  EXPECT_EQ(named.exit_code, 2) << named.err;
  EXPECT_EQ(named.err.find("found by searching"), std::string::npos) << named.err;
}

// A suppression marker inside a string value (a URL's #fragment, a JSON string) is text: only a
// comment, or the documented JSON member, silences anything.
TEST(HostileSuppressions, AMarkerInAStringSilencesNothing) {
  TempDir t;
  const std::string vs = virtualService(9);
  t.write("quoted.yaml", vs + "    # below: a URL in a value\n    headers: {request: {set: {x-doc: \"https://example.com/ #retrylint:ignore-file[RL203]\"}}}\n");
  t.write("single.yaml", vs + "    headers: {request: {set: {x-doc: 'see // retrylint: ignore-file[RL203] here'}}}\n");
  t.write("multiline.yaml", vs + "    headers: {request: {set: {x-doc: \"first line\n      #retrylint:ignore-file[RL203] \"}}}\n");
  t.write("svc.json",
          R"({"methodConfig": [{"name": [{"service": "a.B", "method": "Get"}], "timeout": "1s",
  "retryPolicy": {"maxAttempts": 9, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2,
                  "retryableStatusCodes": ["UNAVAILABLE"]}}],
 "description": "a config // retrylint: ignore-file[RL203] in a string"}
)");
  t.write("comment.yaml", "# retrylint: ignore-file[RL203] the platform team owns this\n" + vs);
  t.write("after.yaml", "x-doc: \"quoted\" # retrylint: ignore-file[RL203] a comment after a string\n---\n" + vs);
  auto r = rl(t, "quoted.yaml single.yaml multiline.yaml svc.json comment.yaml after.yaml");
  for (const char *name : {"quoted.yaml:8:25:", "single.yaml:8:25:", "multiline.yaml:8:25:", "svc.json:2:34:"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name << "\n" << r.out << r.err;
  // The quiet twins: a real comment still silences its file.
  EXPECT_EQ(r.out.find("comment.yaml"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("after.yaml"), std::string::npos) << r.out;
}

// C++: a marker in a string literal (raw strings too) is text; one in a block comment counts.
TEST(HostileSuppressions, CppStringsAndBlockComments) {
  TempDir t;
  const std::string loop = "#include <thread>\n#include <chrono>\nbool call();\nvoid f() {\n"
                           "  for (int attempt = 0; attempt < 3; ++attempt) {\n    if (call()) return;\n"
                           "    std::this_thread::sleep_for(std::chrono::seconds(1));\n  }\n}\n";
  t.write("string.cpp", "const char *doc = \"// retrylint: ignore-file[RL101,RL102]\";\n" + loop);
  t.write("raw.cpp", "const char *doc = R\"x(\n// retrylint: ignore-file[RL101,RL102]\n)x\";\n" + loop);
  t.write("block.cpp", "/*\n * retrylint: ignore-file[RL101,RL102] fixed by the platform's own jitter\n */\n" + loop);
  auto r = rl(t, "--severity RL101=warning --severity RL102=warning string.cpp raw.cpp block.cpp");
  EXPECT_NE(r.out.find("string.cpp:"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("raw.cpp:"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(r.out.find("block.cpp:"), std::string::npos) << r.out << r.err;
}

// ---- Files that used to be skipped in silence ------------------------------------------------

// A NUL byte in a comment: a walked C++ or .properties file is read (as Clang reads one); a YAML
// file that mentions a dialect is an error naming the line, never skipped without a word.
TEST(HostileFiles, ANulByteHidesNoFile) {
  TempDir t;
  t.write("src/retry.cpp", std::string("// a comment \0 with a NUL\n", 26) +
                               "bool Send(int req);\nbool Tight(int req) {\n  for (int attempt = 0; attempt < 3; ++attempt) {\n"
                               "    if (Send(req)) return true;\n  }\n  return false;\n}\n");
  t.write("conf/application.properties",
          std::string("# note \0 here\n", 14) + "resilience4j.retry.instances.backend.maxAttempts=30\n");
  t.write("k8s/vs.yaml", std::string("# \0\n", 4) + virtualService(9));
  auto r = rl(t, ".");
  EXPECT_NE(r.out.find("src/retry.cpp:4:"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("conf/application.properties:2:"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("k8s/vs.yaml:1:1: error: a NUL byte"), std::string::npos) << r.err;
}

// A baselined finding whose numbers grow past what was recorded (7 attempts, now 601) is reported
// again, and says so; a small change (7 -> 8) stays baselined.
TEST(HostileBaseline, AFindingThatGrewIsNotHidden) {
  TempDir t;
  t.write("vs.yaml", virtualService(7));
  auto w = rl(t, "--write-baseline base.json vs.yaml");
  ASSERT_EQ(w.exit_code, 0) << w.err;
  t.write("vs.yaml", virtualService(8));
  auto same = rl(t, "--baseline base.json vs.yaml");
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  t.write("vs.yaml", virtualService(601));
  auto worse = rl(t, "--baseline base.json vs.yaml");
  EXPECT_EQ(worse.exit_code, 1) << worse.out << worse.err;
  EXPECT_NE(worse.out.find("(baselined at 7, now 601)"), std::string::npos) << worse.out;
  // A severity raised since (a warning then, an error now) is reported too.
  t.write("vs.yaml", virtualService(7));
  auto raised = rl(t, "--baseline base.json --severity RL203=error vs.yaml");
  EXPECT_EQ(raised.exit_code, 1) << raised.out << raised.err;
  EXPECT_NE(raised.out.find("(baselined as warning, now error)"), std::string::npos) << raised.out;
}

// ---- A few hundred bytes that hung or crashed ------------------------------------------------

TEST(HostileLimits, HugeCountsAreComputedInClosedForm) {
  TempDir t;
  const std::string argo = "apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata: {generateName: x-}\nspec:\n  entrypoint: main\n"
                           "  templates:\n  - name: main\n    retryStrategy:\n      limit: LIMIT\n    container: {image: alpine}\n";
  t.write("argo-100000.yaml", std::regex_replace(argo, std::regex("LIMIT"), "100000"));
  t.write("argo-int32.yaml", std::regex_replace(argo, std::regex("LIMIT"), "2147483646"));
  t.write("argo-over.yaml", std::regex_replace(argo, std::regex("LIMIT"), "2147483648"));
  t.write("istio.yaml", "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: x}\nspec:\n  hosts: [x]\n"
                        "  http:\n  - timeout: 99999999s\n    retries: {attempts: 99999}\n    route: [{destination: {host: x}}]\n");
  t.write("traefik.yaml", "http:\n  middlewares:\n    r:\n      retry:\n        attempts: 1000000\n        initialInterval: 1ns\n");
  t.write("linkerd.yaml", "apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata: {name: x.ns.svc.cluster.local}\nspec:\n"
                          "  routes:\n  - name: r\n    condition: {method: GET, pathRegex: /x}\n    isRetryable: true\n"
                          "    responseClasses:\n    - condition: {status: {min: -2147483648, max: 2147483647}}\n      isFailure: true\n");
  auto r = runLimited(t.path, "--no-cache .", 20);
  expectSurvived(r);
  EXPECT_NE(r.out.find("argo-100000.yaml:9:14:"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("limit: 2147483646"), std::string::npos) << "the count the file writes:\n" << r.out;
  EXPECT_NE(r.out.find("argo-over.yaml:9:14: error: limit 2147483648 does not fit"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("istio.yaml:8:25:"), std::string::npos) << r.out;
}

TEST(HostileLimits, GlobsMatchInLinearTime) {
  TempDir t;
  t.write(".retrylint.yaml", "exclude: ['*?*?*?*?*?*?*?*?*Z', '[!a]*?*?*?*?*?*?*?*?*?*Q']\n");
  t.write(std::string(60, 'a') + "/" + std::string(120, 'b') + ".yaml", virtualService(9));
  auto r = runLimited(t.path, ".", 20);
  expectSurvived(r);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // The matcher's meaning is GlobPattern's: '*' crosses '/', classes, negation, escapes.
  EXPECT_TRUE(globMatches("*.yaml", "a/b/c.yaml"));
  EXPECT_TRUE(globMatches("a/*/c.yaml", "a/x/y/c.yaml"));
  EXPECT_TRUE(globMatches("[a-c]?.yaml", "b1.yaml"));
  EXPECT_FALSE(globMatches("[!a-c]?.yaml", "b1.yaml"));
  EXPECT_TRUE(globMatches("x\\*.yaml", "x*.yaml"));
  EXPECT_FALSE(globMatches("x\\*.yaml", "xy.yaml"));
  EXPECT_TRUE(globMatches("vendor", "a/vendor/b.yaml"));
  EXPECT_FALSE(globMatches("*?*?*?*?*?*?*?*?*Z", std::string(200, 'a')));
}

TEST(HostileLimits, DeepNestingIsRefusedBeforeAnyParserRecurses) {
  TempDir t;
  t.write("good.yaml", kIstioTooMany);
  const std::string deep = std::string(60000, '[') + std::string(60000, ']');
  t.write("baseline.json", "{\"version\": 1, \"findings\": " + deep + "}");
  auto b = runIn(t.path, "--baseline baseline.json good.yaml");
  expectSurvived(b);
  EXPECT_EQ(b.exit_code, 2) << b.err;
  EXPECT_NE(b.err.find("nest deeper than"), std::string::npos) << b.err;
  t.write("shard.json", "{\"version\": 1, \"findings\": [], \"errors\": [], \"x\": " + deep + "}");
  auto m = runIn(t.path, "merge shard.json");
  expectSurvived(m);
  EXPECT_EQ(m.exit_code, 2) << m.err;
  std::string key = "a";
  for (int i = 0; i < 150000; ++i) key += ".a";
  t.write("traefik.toml", "[http.middlewares.r.retry]\nattempts = 9\n" + key + " = 1\n");
  auto toml = runIn(t.path, "good.yaml traefik.toml");
  expectSurvived(toml);
  expectGoodFileReported(toml);
  expectErrorFor(toml, "traefik.toml", 3);
  t.write("deep.cpp", "void f(grpc::ChannelArguments &a) { a.SetServiceConfigJSON(\"" + deep + "\"); }\n");
  auto cpp = runIn(t.path, "good.yaml deep.cpp");
  expectSurvived(cpp);
  expectGoodFileReported(cpp);
}

TEST(HostileLimits, TheSimulationIsBoundedUpFront) {
  TempDir t;
  std::string layers = "layers:\n", chain = "chains:\n  - [";
  for (int i = 0; i < 1000; ++i) {
    layers += "  - {name: l" + std::to_string(i) + ", paths: [l" + std::to_string(i) + "/**]}\n";
    chain += (i ? ", l" : "l") + std::to_string(i);
    t.write("l" + std::to_string(i) + "/vs.yaml", virtualService(2));
  }
  t.write(".retrylint.yaml", layers + chain + "]\n");
  auto r = runLimited(t.path, "simulate --chain l0 --clients 1000000 .", 60);
  expectSurvived(r);
  EXPECT_EQ(r.err.find("bad_alloc"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("not simulated: 1000000 clients through 1000 layers make 1000000000 calls before any retry"), std::string::npos)
      << r.out.substr(0, 2000) << r.err;
}

// ---- Output turned against its reader -----------------------------------------------------------

TEST(HostileOutput, ReviewTextIsValidAndInert) {
  std::string md = markdownText("a\x1b[31mred \xff name https://evil.example/x www.evil.example HTTPS://X");
  EXPECT_EQ(md.find('\x1b'), std::string::npos) << md;
  EXPECT_EQ(validUtf8(md), md) << md;
  EXPECT_EQ(md.find("https://"), std::string::npos) << md;
  EXPECT_EQ(md.find("HTTPS://"), std::string::npos) << md;
  EXPECT_EQ(md.find("www."), std::string::npos) << md;
  EXPECT_NE(md.find("www&#8203;."), std::string::npos) << md;

  StormPicture pic;
  pic.title = std::string("policy \x01\x1b name \xff end");
  pic.series.push_back({"as \x02 configured", "configured", "#c0392b", StormResult{}});
  std::string svg;
  llvm::raw_string_ostream os(svg);
  writeStormSvg(os, pic);
  os.flush();
  for (char c : svg) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') << static_cast<int>(c);
  EXPECT_EQ(validUtf8(svg), svg);
}

// A file named like a workflow command never starts a line GitHub Actions would obey.
TEST(HostileOutput, NoLineStartsAWorkflowCommand) {
  TempDir t;
  t.write("::stop-commands::x.yaml", virtualService(9));
  t.write("cmd.yaml", virtualService(9) + "::add-mask::secret\n");
  t.write("cmd2.yaml", std::string("::error title=x::y: 1\n---\n") + virtualService(9));
  auto r = rl(t, "--show-source ::stop-commands::x.yaml cmd.yaml");
  auto gh = rl(t, "--format github ::stop-commands::x.yaml cmd.yaml cmd2.yaml");
  for (const std::string &text : {r.out, r.err, gh.out, gh.err}) {
    std::istringstream lines(text);
    for (std::string l; std::getline(lines, l);) {
      llvm::StringRef s = llvm::StringRef(l).ltrim();
      if (!s.startswith("::")) continue;
      EXPECT_TRUE(s.startswith("::warning file=") || s.startswith("::error file=") || s.startswith("::notice file=")) << l;
    }
  }
  EXPECT_NE(r.out.find("./::stop-commands::x.yaml:8:25:"), std::string::npos) << r.out;
}

TEST(HostileOutput, ExcerptsAreCappedAndComeFromTheAnalysedText) {
  TempDir t;
  // 20 MB on one line, with a finding: the excerpt is a window, not the line.
  std::string line = "{\"apiVersion\": \"networking.istio.io/v1\", \"kind\": \"VirtualService\", \"metadata\": {\"name\": \"x\"}, "
                     "\"spec\": {\"hosts\": [\"x\"], \"http\": [{\"retries\": {\"attempts\": 9, \"perTryTimeout\": \"1s\"}, "
                     "\"route\": [{\"destination\": {\"host\": \"x\"}}]}], \"x\": \"" +
                     std::string(20 << 20, 'z') + "\"}}\n";
  t.write("wide.json", line);
  auto r = runIn(t.path, "--show-source --max-file-size 64M wide.json");
  expectSurvived(r);
  EXPECT_EQ(r.exit_code, 1) << r.err.substr(0, 500);
  EXPECT_LT(r.out.size(), 4096u) << r.out.size();
  EXPECT_NE(r.out.find("\"attempts\": 9"), std::string::npos) << r.out.substr(0, 1000);

  // --stdin-filename names a link to a secret: the excerpt is standard input's text.
  TempDir outside;
  outside.write("secret.txt", "line1\nline2\nline3\nline4\nline5\nline6\nline7\n    SECRET_LINE_EIGHT: {attempts: 9}\n");
  fs::create_symlink(outside.path / "secret.txt", t.path / "vs.yaml");
  t.write("in.yaml", virtualService(9));
  auto s = runShellIn(t.path.string(), "\"$RL\" --show-source --stdin-filename vs.yaml - < in.yaml");
  EXPECT_EQ(s.exit_code, 1) << s.out << s.err;
  EXPECT_EQ(s.out.find("SECRET"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("    retries: {attempts: 9, perTryTimeout: 1s}"), std::string::npos) << s.out;
}

TEST(HostileOutput, MergeRefusesWhatNoRunWrites) {
  TempDir t;
  auto report = [&](const std::string &finding, const std::string &stats = "{}") {
    return "{\"version\": 1, \"findings\": [" + finding + "], \"errors\": [], \"stats\": " + stats + "}";
  };
  const std::string ok = "{\"rule\": \"RL203\", \"severity\": \"warning\", \"path\": \"a.yaml\", \"line\": 3, \"column\": 5}";
  t.write("ok.json", report(ok));
  auto good = runIn(t.path, "merge ok.json");
  EXPECT_EQ(good.exit_code, 1) << good.err;
  t.write("rule.json", report(std::regex_replace(ok, std::regex("RL203"), "RL999")));
  t.write("column.json", report(std::regex_replace(ok, std::regex("\"column\": 5"), "\"column\": -4")));
  t.write("fix.json", report(std::regex_replace(ok, std::regex("\\}$"), ", \"fixes\": [{\"description\": \"x\", \"edits\": [{\"line\": 1, "
                                                                          "\"column\": 1, \"offset\": 9223372036854775807, \"length\": 5, "
                                                                          "\"replacement\": \"y\"}]}]}")));
  t.write("count.json", report("", "{\"files_seen\": -3}"));
  for (const char *bad : {"rule.json", "column.json", "fix.json", "count.json"}) {
    auto r = runIn(t.path, std::string("merge ") + bad);
    expectSurvived(r);
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
  }
}

TEST(HostileOutput, LongFileNamesGetTheirTemporaries) {
  TempDir t;
  const std::string name = std::string(245, 'n') + ".yaml"; // 250 bytes
  t.write(name, "apiVersion: dapr.io/v1alpha1\nkind: Resiliency\nmetadata: {name: r}\nspec:\n  policies:\n    retries:\n"
                "      steady:\n        policy: constant\n        duration: 1s\n        maxRetries: 5\n"
                "  targets:\n    apps:\n      checkout: {retry: steady}\n");
  auto o = runIn(t.path, "--format json -o " + std::string(248, 'o') + " " + name);
  EXPECT_NE(o.exit_code, 2) << o.err;
  EXPECT_TRUE(fs::exists(t.path / std::string(248, 'o'))) << o.err;
  auto f = runIn(t.path, "--fix --unsafe-fixes " + name);
  EXPECT_EQ(f.err.find("temporary"), std::string::npos) << f.err;
  EXPECT_NE(f.err.find("applied"), std::string::npos) << f.err;
}
