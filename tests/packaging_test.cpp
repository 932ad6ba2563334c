// Shipping retrylint: one version everywhere, an installed tree that runs from anywhere with its
// own Clang headers, the GitHub Action's step and the build-from-source pre-commit hook.
// scripts/test-install.sh tests the .deb and the .tar.gz themselves in clean Debian roots.
#include <filesystem>
#include <regex>

#include <gtest/gtest.h>

#include "cli_support.h"
#include "lint/discover/discover.h"
#include "lint/extract/extractors.h"

namespace fs = std::filesystem;
using namespace retrylint::testing;

namespace {

const fs::path kSource = RETRYLINT_SOURCE_DIR;
const std::string kVersion = RETRYLINT_VERSION;

int sh(const std::string &cmd) {
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void writeExecutable(const TempDir &t, const std::string &name, const std::string &text) {
  fs::permissions(t.write(name, text), fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
}

std::string firstMatch(const std::string &text, const std::string &re) {
  std::smatch m;
  return std::regex_search(text, m, std::regex(re)) ? m[1].str() : std::string();
}

} // namespace

// CMakeLists.txt is the one place the version is written; everything that names a release agrees.
TEST(Release, OneVersionEverywhere) {
  CliRun v = runRetrylint("--version");
  EXPECT_EQ(v.out, "retrylint " + kVersion + "\n");
  EXPECT_EQ(firstMatch(slurp(kSource / "CHANGELOG.md"), R"(\n## \[(\d[^\]]*)\])"), kVersion)
      << "the newest release in CHANGELOG.md is not the version in CMakeLists.txt";
  EXPECT_EQ(firstMatch(slurp(kSource / "action.yml"), R"(version:\n(?:.*\n)*?\s+default: \"([^\"]+)\")"), kVersion)
      << "action.yml's default image tag";
  EXPECT_EQ(firstMatch(slurp(kSource / ".pre-commit-hooks.yaml"), R"(entry: ghcr.io/[^:]+:(\S+))"), kVersion)
      << ".pre-commit-hooks.yaml's image tag";
  EXPECT_EQ(firstMatch(slurp(kSource / "docs/ci/pre-commit-config.yaml"), R"(rev: v(\S+))"), kVersion);
  std::string readme = slurp(kSource / "README.md");
  for (const std::string &needle : {"retrylint_" + kVersion + "_amd64.deb", "retrylint-" + kVersion + "-linux-x86_64.tar.gz",
                                    "ghcr.io/OWNER/retrylint:" + kVersion})
    EXPECT_NE(readme.find(needle), std::string::npos) << "README does not name " << needle;
  // A licence a legal review can read, and the notices for what the packages link in.
  EXPECT_NE(slurp(kSource / "LICENSE").find("Apache License"), std::string::npos);
  std::string notices = slurp(kSource / "packaging/THIRD-PARTY-NOTICES");
  for (const char *lib : {"LLVM Exceptions", "yaml-cpp", "toml++", "zlib", "ncurses", "GCC Runtime Library Exception"})
    EXPECT_NE(notices.find(lib), std::string::npos) << lib;
}

// `cmake --install` gives a tree that can be moved anywhere: the program finds Clang's builtin
// headers next to itself (lib/retrylint/clang/include), not at the build machine's LLVM path.
TEST(Install, InstalledTreeIsRelocatableAndUsesItsOwnClangHeaders) {
  TempDir t;
  fs::path build = fs::path(RETRYLINT_BINARY).parent_path();
  ASSERT_EQ(sh("cmake --install '" + build.string() + "' --prefix '" + (t.path / "staged").string() + "' > '" +
               (t.path / "install.log").string() + "' 2>&1"),
            0)
      << slurp(t.path / "install.log");
  fs::rename(t.path / "staged", t.path / "moved"); // relocated after install
  fs::path bin = t.path / "moved/bin/retrylint";
  ASSERT_TRUE(fs::exists(bin));
  ASSERT_TRUE(fs::exists(t.path / "moved/lib/retrylint/clang/include/stddef.h"));
  EXPECT_TRUE(fs::exists(t.path / "moved/share/doc/retrylint/LICENSE"));
  EXPECT_TRUE(fs::exists(t.path / "moved/share/doc/retrylint/THIRD-PARTY-NOTICES"));
  // A header only the installed copy has: found only if the program reads the headers it carries.
  t.write("moved/lib/retrylint/clang/include/retrylint_installed_only.h", "typedef int installed_status;\n");
  t.write("work/retry.cpp", "#include <stddef.h>\n#include <retrylint_installed_only.h>\n"
                            "extern \"C\" unsigned sleep(unsigned seconds);\n"
                            "installed_status call(size_t n);\n"
                            "installed_status f() {\n"
                            "  for (;;) {\n"
                            "    if (call(1) == 0) return 0;\n"
                            "    sleep(1);\n"
                            "  }\n"
                            "}\n");
  CliRun r = runShellIn((t.path / "work").string(), "'" + bin.string() + "' --no-cache --format json retry.cpp");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("RL201"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"("cpp_files_without_full_types": ?\[\])")))
      << "the installed program did not read its own builtin headers:\n"
      << r.out;
  // The build tree's program reads the build machine's LLVM headers, which lack the sentinel.
  CliRun tree = runShellIn((t.path / "work").string(), "\"$RL\" --no-cache --format json retry.cpp");
  EXPECT_TRUE(std::regex_search(tree.out, std::regex(R"("cpp_files_without_full_types": ?\[\s*"retry.cpp")")))
      << tree.out;
}

// action.yml's step: the image runs as the runner's user over the workspace, inputs are data (a
// path cannot run a command), a SARIF report is written even when there are findings, and the
// exit code is the lint's.
TEST(Action, RunsTheImageAsTheRunnerWithInputsAsData) {
  TempDir t;
  std::string ws = (t.path / "ws").string();
  fs::create_directories(t.path / "ws/deploy");
  fs::copy_file(kSource / "fixtures/demo/gateway-routes.yaml", t.path / "ws/deploy/gateway-routes.yaml");
  // A docker that records its arguments and runs the image's entry point (the built retrylint) in
  // the mounted workspace, as `docker run --volume W:/src --workdir /src IMAGE ARGS` would.
  writeExecutable(t, "bin/docker",
                  "#!/usr/bin/env bash\n"
                  "printf '%s\\n' \"$@\" > \"$DOCKER_LOG\"\n"
                  "shift; vol=; while [ \"${1#--}\" != \"$1\" ]; do\n"
                  "  case \"$1\" in --rm) shift ;; --volume) vol=\"${2%:/src}\"; shift 2 ;; *) shift 2 ;; esac\n"
                  "done\n"
                  "image=\"$1\"; shift\n"
                  "cd \"$vol\" && exec \"" + std::string(RETRYLINT_BINARY) + "\" --no-cache \"$@\"\n");
  std::string env = "export PATH='" + (t.path / "bin").string() + "':$PATH GITHUB_WORKSPACE='" + ws +
                    "' GITHUB_OUTPUT='" + (t.path / "output").string() + "' DOCKER_LOG='" +
                    (t.path / "docker.log").string() + "' RETRYLINT_VERSION=" + kVersion +
                    " RETRYLINT_FORMAT=github RETRYLINT_FAIL_ON=warning RETRYLINT_SARIF=retrylint.sarif "
                    "RETRYLINT_ARGS= RETRYLINT_DIFF= && ";
  std::string script = (kSource / "packaging/action-run.sh").string();

  CliRun r = runShellIn(ws, env + "RETRYLINT_PATHS='deploy\n$(touch pwned);touch pwned2' '" + script + "'");
  EXPECT_EQ(r.exit_code, 2) << "paths that do not exist are an error: " << r.err; // no SARIF step success
  EXPECT_FALSE(fs::exists(t.path / "ws/pwned"));
  EXPECT_FALSE(fs::exists(t.path / "ws/pwned2"));

  r = runShellIn(ws, env + "RETRYLINT_PATHS=deploy '" + script + "'");
  EXPECT_EQ(r.exit_code, 1) << r.err; // the demo's warnings fail the step at --fail-on warning
  EXPECT_NE(r.out.find("::error file=deploy/gateway-routes.yaml,line=17"), std::string::npos) << r.out;
  std::string sarif = slurp(t.path / "ws/retrylint.sarif");
  EXPECT_NE(sarif.find("\"ruleId\": \"RL301\""), std::string::npos) << sarif.substr(0, 400);
  EXPECT_NE(slurp(t.path / "output").find("sarif-file=retrylint.sarif"), std::string::npos);
  std::string args = slurp(t.path / "docker.log");
  EXPECT_NE(args.find("--user\n" + std::to_string(::getuid()) + ":" + std::to_string(::getgid()) + "\n"),
            std::string::npos)
      << args;
  EXPECT_NE(args.find("ghcr.io/OWNER/retrylint:" + kVersion + "\n"), std::string::npos) << args;
  EXPECT_NE(args.find("--volume\n" + ws + ":/src\n"), std::string::npos) << args;
}

// The build-from-source hook: parallel pre-commit batches build once, progress shows meanwhile,
// and a failed build shows why. A stand-in cmake keeps the test to seconds.
TEST(PreCommitBuildHook, OneBuildForParallelBatchesProgressAndFailureTail) {
  TempDir t;
  fs::create_directories(t.path / "hook/scripts");
  fs::copy_file(kSource / "scripts/pre-commit-build.sh", t.path / "hook/scripts/pre-commit-build.sh");
  writeExecutable(t, "bin/cmake",
                  "#!/usr/bin/env bash\n"
                  "if [ \"$1\" = --build ]; then\n"
                  "  echo build >> \"$CMAKE_LOG\"\n"
                  "  [ -z \"$CMAKE_FAIL\" ] || { echo 'fatal error: llvm/Support/JSON.h: No such file'; exit 1; }\n"
                  "  echo '[1/2] Building CXX object a.o'; sleep 3; echo '[2/2] Linking CXX executable retrylint'\n"
                  "  printf '#!/bin/sh\\necho \"ran $*\"\\n' > \"$2/retrylint\"; chmod +x \"$2/retrylint\"\n"
                  "else echo configure >> \"$CMAKE_LOG\"; mkdir -p \"$4\"; fi\n");
  std::string env = "export PATH='" + (t.path / "bin").string() + "':$PATH CMAKE_LOG='" + (t.path / "cmake.log").string() +
                    "' RETRYLINT_PROGRESS_SECONDS=1 && ";
  std::string hook = (t.path / "hook/scripts/pre-commit-build.sh").string();

  CliRun failed = runShellIn(t.path.string(), env + "CMAKE_FAIL=1 '" + hook + "' a.yaml");
  EXPECT_EQ(failed.exit_code, 2);
  EXPECT_NE(failed.err.find("the build failed"), std::string::npos) << failed.err;
  EXPECT_NE(failed.err.find("llvm/Support/JSON.h: No such file"), std::string::npos) << failed.err;
  fs::remove(t.path / "cmake.log");

  CliRun both = runShellIn(t.path.string(), env + "('" + hook + "' a.yaml > a.out 2> a.err &) ; '" + hook +
                                                "' b.yaml > b.out 2> b.err; "
                                                "for i in $(seq 60); do [ -s a.out ] && break; sleep 0.5; done");
  EXPECT_EQ(both.exit_code, 0) << both.err;
  std::string calls = slurp(t.path / "cmake.log");
  EXPECT_EQ(calls, "configure\nbuild\n") << "the build ran more than once for two parallel batches";
  EXPECT_EQ(slurp(t.path / "a.out"), "ran a.yaml\n");
  EXPECT_EQ(slurp(t.path / "b.out"), "ran b.yaml\n");
  std::string progress = slurp(t.path / "a.err") + slurp(t.path / "b.err");
  EXPECT_NE(progress.find("building from source on first use"), std::string::npos) << progress;
  EXPECT_NE(progress.find("still building [1/2]"), std::string::npos) << progress;
}

// pre-commit passes a hook only the files its `files` pattern matches (Python's re.search on the
// path): every kind of file a dialect reads must match, or a commit that breaks a Terraform state
// machine or an NGINX site passes unseen; and files no dialect reads must not, since a file named
// on the command line with an unknown extension is tried as YAML.
TEST(PreCommit, HookFilesPatternMatchesEveryFileKindADialectReads) {
  const std::string hooks = slurp(kSource / ".pre-commit-hooks.yaml");
  const std::string pattern = firstMatch(hooks, R"(files: &retrylint-files '([^']+)')");
  ASSERT_FALSE(pattern.empty()) << "no `files: &retrylint-files '…'` in .pre-commit-hooks.yaml";
  const std::regex files(pattern); // ECMAScript: the pattern keeps to what it and Python's re share
  auto sample = [](std::string_view kind) {
    std::string k(kind);
    if (k.size() > 2 && k.compare(k.size() - 2, 2, "/*") == 0) return "deploy/" + k.substr(0, k.size() - 1) + "example.com";
    if (k[0] == '*') return "deploy/site" + k.substr(1);
    if (k.size() > 2 && k.compare(k.size() - 2, 2, ".*") == 0) return "deploy/" + k.substr(0, k.size() - 1) + "prod";
    if (k[0] == '.') return "deploy/app" + k;
    return "deploy/" + k;
  };
  std::vector<std::string> paths = {"deploy/vs.yaml", "deploy/vs.yml", "sfn/flow.asl.json", "sfn/flow.asl.json.tpl",
                                    "sfn/definition.json.tftpl", "deploy/.env"};
  for (const retrylint::Extractor &ex : retrylint::extractors())
    for (std::string_view kind : ex.file_kinds) paths.push_back(sample(kind));
  for (const std::string &p : paths) {
    ASSERT_TRUE(retrylint::hasConfigExtension(p)) << p << ": the sample of a file kind is not one retrylint reads";
    EXPECT_TRUE(std::regex_search(p, files)) << p << " is read by retrylint but the pre-commit hooks never pass it";
  }
  for (const char *p : {"README.md", "src/main.py", "templates/index.html.j2", "roles/lb/templates/lb.cfg.erb",
                        "docs/notes.txt", "package.json.bak"}) {
    EXPECT_FALSE(retrylint::hasConfigExtension(p)) << p;
    EXPECT_FALSE(std::regex_search(std::string(p), files)) << p << " would be passed to retrylint and tried as YAML";
  }
}
