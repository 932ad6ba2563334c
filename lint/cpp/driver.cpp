// The C++ dialect: parse the file's in-memory text with Clang (flags from compile_commands.json
// with -p, sensible defaults without), collect its loops, and hand them to the loop analysis.
//
// Missing headers never stop the analysis: include-not-found errors are suppressed, every error
// is ignored, and out-of-line member definitions whose class Clang cannot see (it drops their
// whole body) are parsed a second time with their `Class::` qualifiers blanked — same length, so
// every offset, line and column stays exact.
#include <chrono>
#include <mutex>

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/JSONCompilationDatabase.h>
#include <llvm/Support/MemoryBuffer.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/VirtualFileSystem.h>

#include "lint/cpp/cpp_frontend.h"
#include "lint/cpp/driver.h"
#include "lint/yaml/json_strict.h"
#include "lint/cpp/isolation.h"
#include "lint/extract/extractors.h"

namespace retrylint {
namespace cpp {
namespace {

constexpr std::string_view kFormat = "cpp";
// Clang's builtin headers (stddef.h, stdarg.h, the intrinsics …) live in a "resource directory".
// An installed or unpacked retrylint carries its own copy in <prefix>/lib/retrylint/clang, found
// from the executable's path, so a package runs without LLVM installed; a build tree falls back to
// the directory of the LLVM it was built against (RETRYLINT_CLANG_RESOURCE_DIR, set by CMake).
const std::string &resourceDir() {
  static const std::string dir = [] {
    std::string exe = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
    if (!exe.empty()) {
      llvm::SmallString<256> d(llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
      llvm::sys::path::append(d, "lib", "retrylint", "clang");
      if (llvm::sys::fs::exists(d + "/include/stddef.h")) return std::string(d);
    }
    if (llvm::sys::fs::is_directory(std::string(RETRYLINT_CLANG_RESOURCE_DIR) + "/include"))
      return std::string(RETRYLINT_CLANG_RESOURCE_DIR);
    return std::string();
  }();
  return dir;
}

struct Collected {
  FileFacts facts;
  bool missing_include = false;
  std::set<size_t> bodies; // offsets of the `{` of every function body Clang kept
};

class Visitor : public clang::RecursiveASTVisitor<Visitor> {
public:
  Visitor(clang::ASTContext &ctx, Collected &out) : sm_(ctx.getSourceManager()), ctx_(ctx), out_(out) {}
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitLambdaBodies() const { return true; }

  // The main-file offset a statement's first token is spelled at (macro arguments included).
  std::optional<size_t> mainOffset(clang::SourceLocation loc) {
    if (loc.isInvalid()) return std::nullopt;
    if (loc.isMacroID()) loc = sm_.getSpellingLoc(loc);
    if (!sm_.isWrittenInMainFile(loc)) return std::nullopt;
    return sm_.getFileOffset(loc);
  }
  bool VisitFunctionDecl(clang::FunctionDecl *fd) {
    if (!fd->doesThisDeclarationHaveABody() || !fd->getBody()) return true;
    auto b = mainOffset(fd->getBody()->getBeginLoc());
    auto e = mainOffset(fd->getBody()->getEndLoc());
    if (b && e) { out_.bodies.insert(*b); fns_.push_back({*b, *e + 1}); }
    return true;
  }
  bool VisitLambdaExpr(clang::LambdaExpr *le) {
    if (auto *body = le->getBody()) {
      auto b = mainOffset(body->getBeginLoc());
      auto e = mainOffset(body->getEndLoc());
      if (b && e) fns_.push_back({*b, *e + 1});
    }
    return true;
  }
  void loop(clang::Stmt *s) {
    if (auto off = mainOffset(s->getBeginLoc())) out_.facts.loops.push_back(LoopSite{*off, 0, 0});
  }
  bool VisitForStmt(clang::ForStmt *s) { loop(s); return true; }
  bool VisitWhileStmt(clang::WhileStmt *s) { loop(s); return true; }
  bool VisitDoStmt(clang::DoStmt *s) { loop(s); return true; }
  // The file position a token of the user's file is at: a macro argument where it is spelled, a
  // macro's expansion where the macro name is written (the token the analyses see).
  std::optional<size_t> fileOffset(clang::SourceLocation loc) {
    if (loc.isInvalid()) return std::nullopt;
    loc = sm_.getFileLoc(loc);
    if (!sm_.isWrittenInMainFile(loc)) return std::nullopt;
    return sm_.getFileOffset(loc);
  }
  std::string typeName(clang::QualType q) {
    if (q.isNull() || q->containsErrors() || q->isDependentType()) return "";
    clang::PrintingPolicy pp(ctx_.getLangOpts());
    pp.SuppressTagKeyword = true;
    pp.FullyQualifiedName = true;
    return q.getNonReferenceType().getCanonicalType().getUnqualifiedType().getAsString(pp);
  }
  void typed(clang::SourceLocation loc, Typed t) {
    if (t.type.empty() && t.callee.empty()) return;
    if (auto off = fileOffset(loc)) out_.facts.typed.emplace(*off, std::move(t));
  }
  bool VisitDeclRefExpr(clang::DeclRefExpr *e) {
    if (!e->containsErrors() && llvm::isa<clang::VarDecl>(e->getDecl()) && !e->getDecl()->isInvalidDecl())
      typed(e->getLocation(), Typed{typeName(e->getType()), "", false, false});
    return true;
  }
  bool VisitCallExpr(clang::CallExpr *ce) {
    if (ce->containsErrors()) return true;
    const clang::FunctionDecl *fd = ce->getDirectCallee();
    if (!fd || fd->isInvalidDecl()) return true;
    const clang::Expr *callee = ce->getCallee()->IgnoreParenImpCasts();
    clang::SourceLocation at;
    if (auto *me = llvm::dyn_cast<clang::MemberExpr>(callee)) at = me->getMemberLoc();
    else if (auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(callee)) at = dr->getLocation();
    else return true;
    auto *md = llvm::dyn_cast<clang::CXXMethodDecl>(fd);
    typed(at, Typed{typeName(ce->getType()), fd->getQualifiedNameAsString(), md && md->isConst(), fd->isNoReturn()});
    return true;
  }
  // Both operands of a comparison, where Clang can evaluate them and the tokens alone could not
  // (a name: a macro, an enumerator, a constant from a header).
  bool VisitBinaryOperator(clang::BinaryOperator *bo) {
    if (!bo->isComparisonOp() || bo->containsErrors() || bo->isValueDependent()) return true;
    for (const clang::Expr *side : {bo->getLHS(), bo->getRHS()}) {
      const clang::Expr *bare = side->IgnoreParenImpCasts();
      if ((llvm::isa<clang::IntegerLiteral>(bare) && !side->getBeginLoc().isMacroID()) || side->isValueDependent() ||
          !side->getType()->isIntegralOrEnumerationType())
        continue;
      clang::Expr::EvalResult r;
      if (!side->EvaluateAsInt(r, ctx_)) continue;
      auto b = fileOffset(side->getBeginLoc()), e = fileOffset(side->getEndLoc());
      if (b && e) out_.facts.values[{*b, *e}] = r.Val.getInt().getExtValue();
    }
    return true;
  }
  bool VisitVarDecl(clang::VarDecl *vd) {
    if (!vd->isInvalidDecl() && vd->getIdentifier()) typed(vd->getLocation(), Typed{typeName(vd->getType()), "", false, false});
    const clang::Expr *init = vd->getInit();
    if (!init || !vd->getIdentifier() || !vd->getType()->isIntegralOrEnumerationType()) return true;
    if (!vd->isConstexpr() && !vd->getType().isConstQualified()) return true;
    if (init->containsErrors() || init->isValueDependent()) return true;
    clang::Expr::EvalResult r;
    if (init->EvaluateAsInt(r, ctx_)) out_.facts.constants[vd->getName().str()] = r.Val.getInt().getExtValue();
    return true;
  }
  // Each loop belongs to the innermost function (or lambda) body around it.
  void finish() {
    out_.facts.functions = fns_;
    for (LoopSite &l : out_.facts.loops) {
      size_t best = SIZE_MAX;
      for (auto [b, e] : fns_)
        if (b <= l.keyword_offset && l.keyword_offset < e && e - b < best) {
          best = e - b;
          l.fn_begin = b;
          l.fn_end = e;
        }
    }
  }

private:
  clang::SourceManager &sm_;
  clang::ASTContext &ctx_;
  Collected &out_;
  std::vector<std::pair<size_t, size_t>> fns_;
};

class Consumer : public clang::ASTConsumer {
public:
  explicit Consumer(Collected &out) : out_(out) {}
  void Initialize(clang::ASTContext &ctx) override { sm_ = &ctx.getSourceManager(); }
  // Function bodies in headers are never analysed: skip parsing them.
  bool shouldSkipFunctionBody(clang::Decl *d) override {
    return sm_ && !sm_->isWrittenInMainFile(sm_->getExpansionLoc(d->getLocation()));
  }
  void HandleTranslationUnit(clang::ASTContext &ctx) override {
    Visitor v(ctx, out_);
    v.TraverseDecl(ctx.getTranslationUnitDecl());
    v.finish();
  }

private:
  Collected &out_;
  clang::SourceManager *sm_ = nullptr;
};

// The per-file time guard: every token the parser receives is counted, and once the deadline
// has passed each one is turned into end-of-file, so Clang winds down as on a truncated file.
struct Deadline {
  std::chrono::steady_clock::time_point at = std::chrono::steady_clock::time_point::max();
  bool expired = false;
  unsigned count = 0;
  void watch(const clang::Token &tok) {
    if (!expired && (++count & 255) == 0 && std::chrono::steady_clock::now() > at) expired = true;
    if (expired) const_cast<clang::Token &>(tok).setKind(clang::tok::eof); // the caller's token, not const
  }
};

// Notes that an #include was not found (Clang goes on without it).
class MissingIncludes : public clang::PPCallbacks {
public:
  explicit MissingIncludes(bool &missing) : missing_(missing) {}
  void InclusionDirective(clang::SourceLocation, const clang::Token &, llvm::StringRef, bool, clang::CharSourceRange,
                          const clang::FileEntry *file, llvm::StringRef, llvm::StringRef, const clang::Module *,
                          clang::SrcMgr::CharacteristicKind) override {
    if (!file) missing_ = true;
  }

private:
  bool &missing_;
};

class Action : public clang::ASTFrontendAction {
public:
  Action(Collected &out, Deadline &deadline) : out_(out), deadline_(deadline) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &ci, llvm::StringRef) override {
    return std::make_unique<Consumer>(out_);
  }
  bool BeginSourceFileAction(clang::CompilerInstance &ci) override {
    // A missing header is skipped silently and the rest of the file is parsed; whether one was
    // missing is recorded (the JSON says which files were analysed without full types).
    ci.getPreprocessor().SetSuppressIncludeNotFoundError(true);
    ci.getPreprocessor().addPPCallbacks(std::make_unique<MissingIncludes>(out_.missing_include));
    ci.getPreprocessor().setTokenWatcher([d = &deadline_](const clang::Token &t) { d->watch(t); });
    return true;
  }

private:
  Collected &out_;
  Deadline &deadline_;
};

// The disk as Clang sees it: regular files and directories only. `#include "/dev/stdin"`, a
// FIFO or a device would block the parse or never end; they are "not found" instead (and
// missing headers are skipped). Checked again on the opened file, should the path have been
// swapped since.
class RegularFilesOnly : public llvm::vfs::ProxyFileSystem {
public:
  using ProxyFileSystem::ProxyFileSystem;
  static bool acceptable(const llvm::vfs::Status &st) {
    return st.getType() == llvm::sys::fs::file_type::regular_file ||
           st.getType() == llvm::sys::fs::file_type::directory_file;
  }
  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine &path) override {
    auto st = ProxyFileSystem::status(path);
    if (st && !acceptable(*st)) return std::make_error_code(std::errc::no_such_file_or_directory);
    return st;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine &path) override {
    auto st = ProxyFileSystem::status(path);
    if (!st || st->getType() != llvm::sys::fs::file_type::regular_file)
      return std::make_error_code(std::errc::no_such_file_or_directory);
    auto file = ProxyFileSystem::openFileForRead(path);
    if (!file) return file;
    auto opened = (*file)->status();
    if (!opened || opened->getType() != llvm::sys::fs::file_type::regular_file)
      return std::make_error_code(std::errc::no_such_file_or_directory);
    return file;
  }
};

Collected parse(const std::vector<std::string> &args, const std::string &absPath, const std::string &code,
                const std::string &workdir, Deadline &deadline) {
  Collected out;
  llvm::IntrusiveRefCntPtr<RegularFilesOnly> disk(new RegularFilesOnly(llvm::vfs::createPhysicalFileSystem()));
  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> overlay(new llvm::vfs::OverlayFileSystem(disk));
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> memory(new llvm::vfs::InMemoryFileSystem);
  overlay->pushOverlay(memory);
  if (!workdir.empty()) overlay->setCurrentWorkingDirectory(workdir);
  memory->addFile(absPath, 0, llvm::MemoryBuffer::getMemBufferCopy(code, absPath));
  llvm::IntrusiveRefCntPtr<clang::FileManager> files(new clang::FileManager(clang::FileSystemOptions(), overlay));
  clang::IgnoringDiagConsumer quiet;
  auto action = std::make_unique<Action>(out, deadline);
  clang::tooling::ToolInvocation inv(args, std::move(action), files.get());
  inv.setDiagnosticConsumer(&quiet);
  inv.run();
  return out;
}

// Loaded databases, by directory (a run analyses many files against one database).
std::shared_ptr<clang::tooling::CompilationDatabase> loadDatabase(const std::string &dir, std::string &error) {
  static std::mutex mu;
  static std::map<std::string, std::pair<std::shared_ptr<clang::tooling::CompilationDatabase>, std::string>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(dir);
  if (it == cache.end()) {
    std::string err;
    llvm::SmallString<256> file(dir);
    llvm::sys::path::append(file, "compile_commands.json");
    std::unique_ptr<clang::tooling::CompilationDatabase> db;
    // LLVM's YAML parser, which reads it, recurses per level: a planted database nests no deeper
    // than a real one (3 levels) by far.
    auto text = llvm::MemoryBuffer::getFile(file, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (text && yaml::jsonDepth((*text)->getBuffer()) > yaml::kMaxJsonDepth)
      err = file.str().str() + ": arrays and objects nest deeper than " + std::to_string(yaml::kMaxJsonDepth) + ": not used";
    else
      db = clang::tooling::JSONCompilationDatabase::loadFromFile(file, err, clang::tooling::JSONCommandLineSyntax::AutoDetect);
    std::shared_ptr<clang::tooling::CompilationDatabase> shared;
    if (db) shared = clang::tooling::inferMissingCompileCommands(std::move(db));
    it = cache.emplace(dir, std::make_pair(shared, err)).first;
  }
  error = it->second.second;
  return it->second.first;
}


} // namespace

std::vector<std::string> clangArgs(const std::string &absPath, const ExtractOptions &options, std::string &workdir,
                                   std::string &error) {
  std::vector<std::string> args{"retrylint-cpp"};
  bool fromDb = false;
  if (!options.compile_commands_dir.empty()) {
    auto db = loadDatabase(options.compile_commands_dir, error);
    if (db) {
      auto cmds = db->getCompileCommands(absPath);
      if (!cmds.empty()) {
        const auto &cmd = cmds.front();
        workdir = cmd.Directory;
        // The database's flags pass an allow-list (lint/cpp/compile_flags.cpp): argument 0 is
        // the compiler, never run.
        args = allowedCompileFlags(std::vector<std::string>(cmd.CommandLine.begin() + (cmd.CommandLine.empty() ? 0 : 1),
                                                            cmd.CommandLine.end()));
        args.insert(args.begin(), "retrylint-cpp");
        fromDb = true;
      }
    }
  }
  if (!fromDb) args.push_back("-std=c++17");
  args.insert(args.end(), {"-fsyntax-only", "-w", "-ferror-limit=0"});
  // Bounds on the work one file can ask of Clang (the time guard covers the rest).
  args.insert(args.end(), {"-ftemplate-depth=256", "-fconstexpr-depth=128", "-fconstexpr-steps=200000",
                           "-fbracket-depth=256"});
  // `#pragma clang __debug crash` (and parser_crash, llvm_fatal_error, overflow_stack …) are
  // compiler-testing hooks: in a stranger's file they are only a way to kill the run.
  args.insert(args.end(), {"-Xclang", "-disable-pragma-debug-crash"});
  if (!resourceDir().empty()) {
    args.push_back("-resource-dir");
    args.push_back(resourceDir());
  }
  args.insert(args.end(), {"-x", "c++", absPath});
  return args;
}

// `Ret Class::Name(...) {` definitions Clang dropped: blank the `Class::` qualifiers so the
// body parses as a free function's. Returns the rewritten text, or "" when nothing was dropped.
std::string blankDroppedQualifiers(const std::string &text, const Tokens &t, const std::set<size_t> &bodies) {
  std::string out;
  for (size_t i = 0; i + 3 < t.size(); ++i) {
    if (!isIdent(t[i]) || !t.is(i + 1, "::")) continue;
    if (i > 0 && (t.is(i - 1, "::") || t.is(i - 1, ".") || t.is(i - 1, "->"))) continue;
    size_t j = i;
    while (isIdent(t[j]) && t.is(j + 1, "::") && j + 2 < t.size()) j += 2;
    if (!isIdent(t[j]) || !t.is(j + 1, "(")) continue; // Class::~Class and operators are left alone
    if (i > 0 && !(isIdent(t[i - 1]) || t.is(i - 1, ">") || t.is(i - 1, "*") || t.is(i - 1, "&"))) continue;
    if (i > 0 && (t[i - 1].text == "return" || t[i - 1].text == "new" || t[i - 1].text == "else")) continue;
    size_t k = t.close(j + 1) + 1;
    while (k < t.size() && (t[k].text == "const" || t[k].text == "noexcept" || t[k].text == "override" ||
                            t[k].text == "final" || t[k].text == "&" || t[k].text == "&&"))
      ++k;
    if (!t.is(k, "{") || bodies.count(t[k].offset)) continue;
    size_t end = t.close(k);
    bool hasLoop = false;
    for (size_t m = k; m < end && m < t.size(); ++m)
      hasLoop |= t[m].text == "for" || t[m].text == "while" || t[m].text == "do";
    if (!hasLoop) continue;
    if (out.empty()) out = text;
    for (size_t m = t[i].offset; m < t[j].offset; ++m)
      if (out[m] != '\n') out[m] = ' ';
    i = k;
  }
  return out;
}

// Integral constants written in the file (`constexpr int kMaxAttempts = 5;`), for files Clang
// could not evaluate (a type from a missing header in the same declaration list).
void tokenConstants(const Tokens &t, std::map<std::string, long long> &out) {
  for (size_t i = 0; i + 3 < t.size(); ++i) {
    if (t[i].text != "constexpr" && t[i].text != "const") continue;
    size_t j = i + 1;
    while (j < t.size() && j < i + 6 && isIdent(t[j]) && !t.is(j + 1, "=")) ++j;
    if (!isIdent(t[j]) || !t.is(j + 1, "=") || j + 3 >= t.size() || t[j + 2].kind != Tok::Number || !t.is(j + 3, ";")) continue;
    try {
      if (!out.count(t[j].text)) out[t[j].text] = std::stoll(t[j + 2].text, nullptr, 0);
    } catch (...) {}
  }
}

bool mayHoldRetryLoop(const Tokens &t) {
  // Mirrors analyseLoops: a retry loop is a `while (`, a `do … while (` or a three-clause
  // `for (;;)` (a range-for is iteration) whose statement holds evidence of retrying: a `try`, or
  // a name that speaks of sleeping, waiting, retrying, attempts, tries or backoff (analyseLoops
  // needs one of these in the body or as the counter's name). Loops spelled in headers are never
  // analysed. A superset of analyseLoops, so no file with a retry loop is ever skipped.
  auto evidence = [&](size_t b, size_t e) {
    for (size_t j = b; j < e && j < t.size(); ++j) {
      if (!isIdent(t[j])) continue;
      const std::string l = lower(t[j].text);
      for (const char *w : {"sleep", "wait_for", "wait_until", "retr", "attempt", "backoff", "tries", "try"})
        if (l.find(w) != std::string::npos) return true;
    }
    return false;
  };
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    const std::string &kw = t[i].text;
    if (kw == "do") {
      if (evidence(i + 1, t.statementEnd(i))) return true;
      continue;
    }
    if (!t.is(i + 1, "(") || (kw != "while" && kw != "for")) continue;
    if (kw == "for") {
      size_t end = t.close(i + 1), semis = 0;
      for (size_t j = i + 2; j < end && j < t.size(); ++j) {
        const std::string &s = t[j].text;
        if (s == "(" || s == "[" || s == "{") j = t.close(j);
        else if (s == ";") ++semis;
      }
      if (semis != 2) continue;
    }
    if (evidence(i + 2, t.statementEnd(i))) return true;
  }
  return false;
}

ParseOutcome parseFile(const ParseRequest &req) {
  ParseOutcome out;
  Deadline deadline;
  if (req.timeout_seconds > 0) deadline.at = std::chrono::steady_clock::now() + std::chrono::seconds(req.timeout_seconds);
  auto timedOut = [&] {
    if (!deadline.expired) return false;
    out.failure = "the C++ front end gave up after " + std::to_string(req.timeout_seconds) + " s (--cpp-timeout); not analysed";
    return true;
  };
  Collected got = parse(req.args, req.abs_path, req.code, req.workdir, deadline);
  if (timedOut()) return out;
  Tokens toks(req.code);
  std::string rewritten = blankDroppedQualifiers(req.code, toks, got.bodies);
  if (!rewritten.empty()) {
    Collected again = parse(req.args, req.abs_path, rewritten, req.workdir, deadline);
    if (timedOut()) return out;
    for (auto &[k, v] : got.facts.constants) again.facts.constants.emplace(k, v);
    for (auto &[k, v] : got.facts.typed) again.facts.typed.emplace(k, v);
    for (auto &[k, v] : got.facts.values) again.facts.values.emplace(k, v);
    again.facts.functions.insert(again.facts.functions.end(), got.facts.functions.begin(), got.facts.functions.end());
    again.missing_include |= got.missing_include;
    got = std::move(again);
  }
  got.facts.full_types = !got.missing_include;
  out.facts = std::move(got.facts);
  return out;
}

namespace {

const std::vector<std::string_view> kFileKinds = {".cpp", ".cc", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".ipp", ".inl"};

bool recogniseText(const SourceFile &src) { return isFileKind(src.path().str(), kFileKinds); }

void extractText(const SourceFile &src, ExtractContext &cx) {
  llvm::SmallString<256> abs(src.path().str());
  llvm::sys::fs::make_absolute(abs);
  llvm::sys::path::remove_dots(abs, true);
  const std::string absPath(abs.str());
  std::string workdir, dbError;
  auto args = clangArgs(absPath, cx.options, workdir, dbError);
  if (!dbError.empty()) cx.errors.push_back(Diagnostic{src.path(), 0, 0, "cannot load compile_commands.json: " + dbError});

  Tokens toks(src.text());
  // No loop that could be a retry loop and no retry library configuration (lint/cpp/config.cpp):
  // Clang has nothing to find here.
  auto mentionsRetryLibrary = [&] {
    for (const char *word : {"RetryStrategy", "ClientConfiguration", "SetServiceConfigJSON", "GRPC_ARG_SERVICE_CONFIG",
                             "grpc.service_config"})
      if (src.text().find(word) != std::string::npos) return true;
    return false;
  };
  if (cx.options.prefilter && !mayHoldRetryLoop(toks) && !mentionsRetryLibrary()) {
    // Retries written as recursion or in macro bodies are read from the text alone: no parse.
    analyseRecursion(toks, FileFacts{}, cx);
    analyseMacroLoops(src.text(), cx);
    analyseRearms(toks, FileFacts{}, cx);
    analyseTimeGates(toks, FileFacts{}, cx);
    analyseCalculators(toks, FileFacts{}, cx);
    return;
  }
  ParseRequest req{args, absPath, src.text(), workdir, cx.options.cpp_timeout_seconds, cx.options.cpp_memory_bytes};
  ParseOutcome got = cx.options.cpp_worker.empty() ? parseFile(req) : parseInWorker(cx.options.cpp_worker, req);
  if (!got.failure.empty()) {
    cx.errors.push_back(Diagnostic{src.path(), 0, 0, got.failure});
    return;
  }
  cx.model.without_full_types = !got.facts.full_types;
  tokenConstants(toks, got.facts.constants);
  analyseLoops(toks, got.facts, cx);
  analyseRecursion(toks, got.facts, cx);
  analyseMacroLoops(src.text(), cx);
  analyseConfig(toks, got.facts, cx);
  analyseRearms(toks, got.facts, cx);
  analyseTimeGates(toks, got.facts, cx);
  analyseCalculators(toks, got.facts, cx);
}

} // namespace
} // namespace cpp

namespace {
const Extractor &cppExtractor() {
  static const Extractor e{
      .format = cpp::kFormat,
      .recogniseText = cpp::recogniseText,
      .extractText = cpp::extractText,
      .priority = 160,
      .file_kinds = cpp::kFileKinds,
      .cacheable = false,
  };
  return e;
}
const ExtractorRegistration registered(&cppExtractor);
} // namespace

} // namespace retrylint
