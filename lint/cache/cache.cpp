#include "lint/cache/cache.h"
#include "lint/yaml/json_strict.h"
#include "lint/report/finding_json.h"
#include "lint/extract/extractors.h"
#include "lint/io/posix.h"

#include <atomic>
#include <cerrno>

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm/Support/Errno.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/SHA1.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/raw_ostream.h>

namespace retrylint {
namespace {

namespace json = llvm::json;

// Identifies this very binary, so a rebuilt tool never trusts results of the previous build.
std::string toolIdentity() {
  static const std::string id = [] {
    std::string exe = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
    llvm::sys::fs::file_status st;
    std::string out = std::string(RETRYLINT_VERSION) + "|" + exe;
    if (!exe.empty() && !llvm::sys::fs::status(exe, st))
      out += "|" + std::to_string(st.getSize()) + "|" + std::to_string(st.getLastModificationTime().time_since_epoch().count());
    return out;
  }();
  return id;
}

} // namespace

std::string fileResultToJson(const FileResult &r) {
  std::string out;
  llvm::raw_string_ostream os(out);
  json::OStream j(os);
  j.object([&] {
    j.attributeArray("findings", [&] {
      for (const Finding &f : r.findings) writeFindingJson(j, f, FindingFields::Full);
    });
    j.attributeArray("errors", [&] {
      for (const Diagnostic &d : r.errors) writeDiagnosticJson(j, d);
    });
    j.attribute("analysed", r.analysed);
    j.attribute("policies", static_cast<int64_t>(r.policies));
  });
  return os.str();
}

std::optional<FileResult> fileResultFromJson(const std::string &text) {
  auto parsed = yaml::parseJsonWithin(text);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return std::nullopt;
  }
  const json::Object *o = parsed->getAsObject();
  if (!o) return std::nullopt;
  FileResult r;
  const json::Array *findings = o->getArray("findings"), *errors = o->getArray("errors");
  auto analysed = o->getBoolean("analysed");
  auto policies = o->getInteger("policies");
  if (!findings || !errors || !analysed || !policies || *policies < 0) return std::nullopt;
  r.analysed = *analysed;
  r.policies = static_cast<size_t>(*policies);
  std::string error;
  for (const json::Value &v : *findings) {
    Finding f;
    if (!readFindingJson(v, FindingFields::Full, f, error)) return std::nullopt;
    r.findings.push_back(std::move(f));
  }
  for (const json::Value &v : *errors) {
    Diagnostic d;
    if (!readDiagnosticJson(v, d, error)) return std::nullopt;
    r.errors.push_back(std::move(d));
  }
  return r;
}

std::string ResultCache::key(const Candidate &file, const std::string &content, const RunOptions &options,
                             const RuleSeverities &rules) {
  const std::string &path = file.path;
  // Everything a file's result depends on. A new field in Settings or ExtractOptions must be
  // added here: these asserts fail the build until it is.
  // (Settings::layer is per file and only set when layers are declared; the engine does not use
  // the cache then.)
  static_assert(sizeof(ExtractOptions) <= 2 * sizeof(std::string) + sizeof(size_t) + sizeof(uint64_t) + 2 * sizeof(int) + sizeof(void *),
                "add the new ExtractOptions field to the cache key");
  std::string head = toolIdentity();
  head += '\0' + path + '\0' + (file.named ? "named" : "found") + '\0';
  for (size_t i = 0; i < rules.size() && i < allRules().size(); ++i)
    head += std::string(allRules()[i]->code) + "=" + (rules[i] ? std::string(severityName(*rules[i])) : "off") + ";";
  const Settings st = options.settingsFor(path);
  head += '\0' + std::to_string(st.request.max_attempts) + "," + std::to_string(st.request.max_wait.nanos) + "," +
          std::to_string(st.background.max_attempts) + "," + std::to_string(st.background.max_wait.nanos) + "," +
          std::to_string(st.max_amplification);
  head += '\0' + options.extract.compile_commands_dir + (options.extract.prefilter ? "|pf" : "|nopf");
  head += '\0' + std::to_string(options.extract.max_file_bytes) + "," + std::to_string(options.extract.max_nesting) + "," +
          std::to_string(options.extract.cpp_timeout_seconds) + "," + std::to_string(options.extract.cpp_memory_bytes) +
          (options.extract.cpp_worker.empty() ? "|inproc" : "|worker");
  // Files the extractor reads besides this one (a gRPC service config's BUILD.bazel); hashed so that
  // the head stays small.
  if (std::string extra = extractionInputsBesides(path, content); !extra.empty()) {
    llvm::SHA1 extraSha;
    extraSha.update(extra);
    head += '\0' + llvm::toHex(extraSha.final(), /*LowerCase=*/true);
  }
  head += '\0' + std::to_string(head.size()) + '\0';
  llvm::SHA1 sha;
  sha.update(head);
  sha.update(content);
  return llvm::toHex(sha.final(), /*LowerCase=*/true);
}

namespace {

// Entries: this line, then the result as JSON. The MAC covers the key the entry is stored under
// and the JSON, so an entry cannot be edited nor moved to another key.
constexpr llvm::StringLiteral kEntryMagic = "retrylint-cache-v2 ";
// A file's result is a few kilobytes; anything far larger in the cache is not an entry of ours.
constexpr size_t kMaxEntryBytes = 16u << 20;

// Opens directory `name` in `parent` without following a symbolic link there, creating it
// first when asked. -1 when it is missing, not a directory, or a link.
int openDirAt(int parent, const std::string &name, bool create) {
  int fd = ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && create) {
    if (::mkdirat(parent, name.c_str(), 0755) != 0 && errno != EEXIST) return -1;
    fd = ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  }
  return fd;
}

bool writeAll(int fd, llvm::StringRef data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data = data.drop_front(static_cast<size_t>(n));
  }
  return true;
}

// Reads a regular file of at most `limit` bytes from an open descriptor; false otherwise.
bool readRegular(int fd, size_t limit, std::string &out) {
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 || static_cast<uint64_t>(st.st_size) > limit)
    return false;
  return io::readFd(fd, static_cast<size_t>(st.st_size), out);
}

// `path` made absolute, with its longest existing prefix resolved through symbolic links (the
// rest, not yet created, appended as written).
std::string resolvedPath(const std::string &path) {
  llvm::SmallString<256> abs(path);
  llvm::sys::fs::make_absolute(abs);
  llvm::sys::path::remove_dots(abs, /*remove_dot_dot=*/true);
  std::vector<std::string> missing;
  llvm::SmallString<256> existing(abs);
  while (!existing.empty() && !llvm::sys::fs::exists(existing)) {
    missing.push_back(llvm::sys::path::filename(existing).str());
    llvm::StringRef parent = llvm::sys::path::parent_path(existing);
    if (parent == existing) break;
    existing = parent;
  }
  llvm::SmallString<256> out;
  if (llvm::sys::fs::real_path(existing, out)) out = existing;
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) llvm::sys::path::append(out, *it);
  return std::string(out.str());
}

bool isWithin(const std::string &inner, const std::string &outer) {
  if (inner == outer || outer == "/") return true;
  return inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 && inner[outer.size()] == '/';
}

constexpr const char *kKeyFile = "cache-key";
constexpr size_t kKeyBytes = 32, kMinKeyBytes = 16, kMaxKeyBytes = 4096;

// Reads the key file in `dirFd`: a regular file of ours (not a link), writable by us alone.
// errno-style result: 0, ENOENT when it is not there yet, or -1 with `why` set.
int readKeyFile(int dirFd, const std::string &shownPath, std::string &key, std::string &why) {
  int fd = ::openat(dirFd, kKeyFile, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return ENOENT;
    why = "cannot open the key file " + shownPath + ": " +
          (errno == ELOOP ? std::string("it is a symbolic link") : llvm::sys::StrError(errno));
    return -1;
  }
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0;
  if (ok && !S_ISREG(st.st_mode)) why = "the key file " + shownPath + " is not a regular file";
  else if (ok && st.st_uid != ::geteuid()) why = "the key file " + shownPath + " belongs to another user";
  else if (ok && (st.st_mode & 022)) why = "the key file " + shownPath + " is writable by other users";
  else if (!ok || !readRegular(fd, kMaxKeyBytes, key)) why = "cannot read the key file " + shownPath;
  else if (key.size() < kMinKeyBytes) why = "the key file " + shownPath + " holds fewer than 16 bytes";
  ::close(fd);
  return why.empty() ? 0 : -1;
}

// Creates the key file in `dirFd` with fresh random bytes: written aside (O_CREAT|O_EXCL,
// O_NOFOLLOW, mode 0600), then linked to its name, which fails if it exists meanwhile, so
// concurrent first runs agree on one key and never read a half-written one.
bool createKeyFile(int dirFd, const std::string &shownPath, std::string &why) {
  uint8_t key[kKeyBytes];
  if (!io::randomBytes(key, sizeof key)) {
    why = "cannot get random bytes for a new key file " + shownPath;
    return false;
  }
  std::string tmp = std::string(kKeyFile) + ".new." + std::to_string(::getpid()) + "." + io::randomHex(8);
  int fd = ::openat(dirFd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    why = "cannot create the key file " + shownPath + ": " + llvm::sys::StrError(errno);
    return false;
  }
  bool ok = writeAll(fd, llvm::StringRef(reinterpret_cast<const char *>(key), sizeof key)) && ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok;
  if (ok && ::linkat(dirFd, tmp.c_str(), dirFd, kKeyFile, 0) != 0 && errno != EEXIST) ok = false;
  ::unlinkat(dirFd, tmp.c_str(), 0);
  if (!ok) why = "cannot write the key file " + shownPath;
  return ok;
}

} // namespace

std::array<uint8_t, 32> hmacSha256(std::string_view key, std::string_view message) {
  constexpr size_t kBlock = 64; // SHA-256's block size
  std::array<uint8_t, kBlock> k{};
  if (key.size() > kBlock) {
    auto h = llvm::SHA256::hash(llvm::arrayRefFromStringRef(llvm::StringRef(key.data(), key.size())));
    std::copy(h.begin(), h.end(), k.begin());
  } else {
    std::copy(key.begin(), key.end(), k.begin());
  }
  std::array<uint8_t, kBlock> ipad, opad;
  for (size_t i = 0; i < kBlock; ++i) {
    ipad[i] = k[i] ^ 0x36;
    opad[i] = k[i] ^ 0x5c;
  }
  llvm::SHA256 inner;
  inner.update(ipad);
  inner.update(llvm::StringRef(message.data(), message.size()));
  llvm::SHA256 outer;
  outer.update(opad);
  outer.update(inner.final());
  llvm::StringRef digest = outer.final();
  std::array<uint8_t, 32> out;
  std::copy(digest.bytes_begin(), digest.bytes_end(), out.begin());
  return out;
}

std::optional<std::string> cacheSecret(const std::string &cacheDir, std::string &why) {
  // A cache directory that is a link is not used (ResultCache opens it without following).
  if (llvm::sys::fs::file_status st; !llvm::sys::fs::status(cacheDir, st, /*follow=*/false) &&
                                     st.type() == llvm::sys::fs::file_type::symlink_file) {
    why = "it is a symbolic link (name the directory it points to)";
    return std::nullopt;
  }
  if (auto env = llvm::sys::Process::GetEnv("RETRYLINT_CACHE_KEY"); env && !env->empty()) {
    if (env->size() < kMinKeyBytes) {
      why = "$RETRYLINT_CACHE_KEY is shorter than 16 characters";
      return std::nullopt;
    }
    return *env;
  }
  llvm::SmallString<256> keyDir;
  auto xdg = llvm::sys::Process::GetEnv("XDG_CONFIG_HOME");
  auto home = llvm::sys::Process::GetEnv("HOME");
  if (xdg && llvm::sys::path::is_absolute(*xdg)) {
    keyDir = *xdg;
  } else if (home && llvm::sys::path::is_absolute(*home)) {
    keyDir = *home;
    llvm::sys::path::append(keyDir, ".config");
  } else {
    why = "there is no key to authenticate its entries with ($RETRYLINT_CACHE_KEY, $XDG_CONFIG_HOME and $HOME are unset)";
    return std::nullopt;
  }
  llvm::sys::path::append(keyDir, "retrylint");
  llvm::SmallString<256> keyFile(keyDir);
  llvm::sys::path::append(keyFile, kKeyFile);
  const std::string shown(keyFile.str());
  auto inside = [&] {
    if (!isWithin(resolvedPath(shown), resolvedPath(cacheDir))) return false;
    why = "its key file " + shown + " would lie inside it, where whoever writes the cache could read or replace the key; "
          "use a cache directory elsewhere or set $RETRYLINT_CACHE_KEY";
    return true;
  };
  // Checked before creating anything, and again once the key's directory exists (its path then
  // resolves through every link).
  if (inside()) return std::nullopt;
  if (std::error_code ec = llvm::sys::fs::create_directories(keyDir, /*IgnoreExisting=*/true, llvm::sys::fs::owner_all)) {
    why = "cannot create " + keyDir.str().str() + " for its key file: " + ec.message();
    return std::nullopt;
  }
  if (inside()) return std::nullopt;
  int dirFd = ::open(keyDir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd < 0) {
    why = "cannot open " + keyDir.str().str() + ": " + llvm::sys::StrError(errno);
    return std::nullopt;
  }
  std::string key;
  int got = readKeyFile(dirFd, shown, key, why);
  if (got == ENOENT && createKeyFile(dirFd, shown, why)) got = readKeyFile(dirFd, shown, key, why);
  if (got == ENOENT) why = "the key file " + shown + " vanished while it was created";
  ::close(dirFd);
  if (got != 0) return std::nullopt;
  return key;
}

bool resultFitsFile(const FileResult &r, const std::string &path, std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3); // the engine analyses without the BOM
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(i + 1);
  const int64_t lines = static_cast<int64_t>(starts.size());
  auto lineLength = [&](int64_t line) {
    size_t b = starts[line - 1], e = line < lines ? starts[line] - 1 : text.size();
    return static_cast<int64_t>(e - b);
  };
  auto fits = [&](int64_t line, int64_t column) {
    return line >= 1 && line <= lines && column >= 1 && column <= lineLength(line) + 1;
  };
  auto spanFits = [&](const Span &s) {
    if (s.path != path || !fits(s.line, s.column)) return false;
    if (s.end_line == 0 && s.end_column == 0) return true;
    return fits(s.end_line, s.end_column) && (s.end_line > s.line || (s.end_line == s.line && s.end_column >= s.column));
  };
  for (const Finding &f : r.findings) {
    if (!spanFits(f.where)) return false;
    for (const Fix &fix : f.fixes)
      for (const TextEdit &e : fix.edits)
        if (!spanFits(e.where) || e.offset > text.size() || e.length > text.size() - e.offset) return false;
  }
  for (const Diagnostic &d : r.errors) {
    if (d.path != path) return false;
    if ((d.line != 0 || d.column != 0) && !(d.line >= 1 && d.line <= lines && d.column >= 0 && d.column <= lineLength(d.line) + 1))
      return false;
  }
  return true;
}

ResultCache::ResultCache(std::string dir, std::string secret) : dir_(std::move(dir)), secret_(std::move(secret)) {}

ResultCache::~ResultCache() {
  if (entriesFd_ >= 0) ::close(entriesFd_);
  if (rootFd_ >= 0) ::close(rootFd_);
}

int ResultCache::entriesDir(bool create) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (entriesFd_ >= 0) return entriesFd_;
  if (rootFd_ < 0) {
    // The directory the user named must not itself be a link (a checkout that plants one where
    // CI keeps its cache would steer the writes elsewhere); nothing under it is followed either.
    if (create && llvm::sys::fs::create_directories(dir_)) return -1;
    rootFd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (rootFd_ < 0) return -1;
  }
  entriesFd_ = openDirAt(rootFd_, "v2", create);
  return entriesFd_;
}

std::string ResultCache::mac(const std::string &key, std::string_view body) const {
  std::string message = kEntryMagic.str();
  message += key;
  message += '\n';
  message += body;
  return llvm::toHex(hmacSha256(secret_, message), /*LowerCase=*/true);
}

std::optional<FileResult> ResultCache::load(const Candidate &file, const std::string &text, const RunOptions &options,
                                            const RuleSeverities &rules, std::string &key, bool &rejected) const {
  key = ResultCache::key(file, text, options, rules);
  const std::string &path = file.path;
  rejected = false;
  if (key.size() < 3) return std::nullopt;
  int dir = entriesDir(/*create=*/false);
  if (dir < 0) return std::nullopt;
  int sub = openDirAt(dir, key.substr(0, 2), /*create=*/false);
  if (sub < 0) return std::nullopt;
  std::string name = key.substr(2) + ".json";
  int fd = ::openat(sub, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  int openErrno = errno;
  ::close(sub);
  if (fd < 0) {
    rejected = openErrno != ENOENT; // a link or worse where an entry belongs
    return std::nullopt;
  }
  std::string entry;
  bool read = readRegular(fd, kMaxEntryBytes, entry);
  ::close(fd);
  auto reject = [&]() -> std::optional<FileResult> {
    rejected = true;
    return std::nullopt;
  };
  llvm::StringRef e(entry);
  const size_t macChars = 64;
  if (!read || !e.startswith(kEntryMagic) || e.size() < kEntryMagic.size() + macChars + 1 ||
      e[kEntryMagic.size() + macChars] != '\n')
    return reject();
  llvm::StringRef stored = e.substr(kEntryMagic.size(), macChars);
  llvm::StringRef body = e.drop_front(kEntryMagic.size() + macChars + 1);
  std::string expected = mac(key, std::string_view(body.data(), body.size()));
  unsigned char diff = 0; // compared in constant time
  for (size_t i = 0; i < macChars; ++i) diff |= static_cast<unsigned char>(stored[i] ^ expected[i]);
  if (diff != 0) return reject();
  auto r = fileResultFromJson(body.str());
  if (!r || !resultFitsFile(*r, path, text)) return reject();
  return r;
}

void ResultCache::store(const std::string &key, const FileResult &r) const {
  static std::atomic<unsigned> counter{0};
  if (key.size() < 3) return;
  std::string body = fileResultToJson(r);
  if (body.size() > kMaxEntryBytes - 128) return;
  int dir = entriesDir(/*create=*/true);
  if (dir < 0) return;
  int sub = openDirAt(dir, key.substr(0, 2), /*create=*/true);
  if (sub < 0) return;
  // Write aside under a fresh name (never an existing file or link), then rename: a concurrent
  // reader sees the old entry or the whole new one, and a link planted at the entry's name is
  // replaced, not written through.
  std::string name = key.substr(2) + ".json";
  std::string tmp = name + ".tmp" + std::to_string(::getpid()) + "." + std::to_string(counter++) + "." + io::randomHex(4);
  int fd = ::openat(sub, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) {
    bool ok = writeAll(fd, kEntryMagic) && writeAll(fd, mac(key, body)) && writeAll(fd, "\n") && writeAll(fd, body);
    ok = ::close(fd) == 0 && ok;
    if (!ok || ::renameat(sub, tmp.c_str(), sub, name.c_str()) != 0) ::unlinkat(sub, tmp.c_str(), 0);
  }
  ::close(sub);
}

} // namespace retrylint
