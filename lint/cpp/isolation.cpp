#include "lint/cpp/isolation.h"
#include "lint/sanitizers.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <new>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm/Support/ErrorHandling.h>

extern char **environ;

namespace retrylint::cpp {

namespace {

constexpr bool kAsan = kAddressSanitizer;

// The worker's exit codes for the ways it stops on its own.
constexpr int kExitOutOfMemory = 3;
constexpr int kExitFatal = 4;
constexpr int kExitBadRequest = 5;
// An answer larger than this is no answer of ours.
constexpr size_t kMaxAnswer = 256u << 20;

struct Writer {
  std::string out;
  void u64(uint64_t v) {
    char b[8];
    std::memcpy(b, &v, 8);
    out.append(b, 8);
  }
  void str(const std::string &s) {
    u64(s.size());
    out += s;
  }
};

struct Reader {
  const std::string &in;
  size_t at = 0;
  bool ok = true;
  uint64_t u64() {
    if (!ok || in.size() - at < 8) {
      ok = false;
      return 0;
    }
    uint64_t v;
    std::memcpy(&v, in.data() + at, 8);
    at += 8;
    return v;
  }
  std::string str() {
    uint64_t n = u64();
    if (!ok || n > in.size() - at) {
      ok = false;
      return {};
    }
    std::string s = in.substr(at, n);
    at += n;
    return s;
  }
  // A count of items, each at least `minBytes` long: never more than the bytes left allow.
  uint64_t count(size_t minBytes) {
    uint64_t n = u64();
    if (ok && n > (in.size() - at) / minBytes) ok = false;
    return ok ? n : 0;
  }
  bool done() const { return ok && at == in.size(); }
};

bool sendAll(int fd, const std::string &data) {
  size_t at = 0;
  while (at < data.size()) {
    ssize_t n = ::send(fd, data.data() + at, data.size() - at, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += static_cast<size_t>(n);
  }
  return true;
}

// The resident memory of a process, in bytes (0 when unknown).
uint64_t residentBytes(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/statm", static_cast<int>(pid));
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[128];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  unsigned long long size = 0, resident = 0;
  if (std::sscanf(buf, "%llu %llu", &size, &resident) != 2) return 0;
  return resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

[[noreturn]] void outOfMemory() { ::_exit(kExitOutOfMemory); }

} // namespace

std::string encodeRequest(const ParseRequest &req) {
  Writer w;
  w.u64(req.args.size());
  for (const std::string &a : req.args) w.str(a);
  w.str(req.abs_path);
  w.str(req.code);
  w.str(req.workdir);
  w.u64(req.timeout_seconds);
  w.u64(req.memory_bytes);
  return std::move(w.out);
}

bool decodeRequest(const std::string &bytes, ParseRequest &req) {
  Reader r{bytes};
  uint64_t n = r.count(8);
  for (uint64_t i = 0; i < n && r.ok; ++i) req.args.push_back(r.str());
  req.abs_path = r.str();
  req.code = r.str();
  req.workdir = r.str();
  req.timeout_seconds = static_cast<unsigned>(r.u64());
  req.memory_bytes = r.u64();
  return r.done();
}

std::string encodeOutcome(const ParseOutcome &out) {
  Writer w;
  w.str(out.failure);
  w.u64(out.facts.loops.size());
  for (const LoopSite &l : out.facts.loops) {
    w.u64(l.keyword_offset);
    w.u64(l.fn_begin);
    w.u64(l.fn_end);
  }
  w.u64(out.facts.constants.size());
  for (const auto &[name, value] : out.facts.constants) {
    w.str(name);
    w.u64(static_cast<uint64_t>(value));
  }
  w.u64(out.facts.typed.size());
  for (const auto &[at, ty] : out.facts.typed) {
    w.u64(at);
    w.str(ty.type);
    w.str(ty.callee);
    w.u64((ty.const_method ? 1 : 0) | (ty.no_return ? 2 : 0));
  }
  w.u64(out.facts.values.size());
  for (const auto &[at, value] : out.facts.values) {
    w.u64(at.first);
    w.u64(at.second);
    w.u64(static_cast<uint64_t>(value));
  }
  w.u64(out.facts.full_types ? 1 : 0);
  w.u64(out.facts.functions.size());
  for (const auto &[b, e] : out.facts.functions) {
    w.u64(b);
    w.u64(e);
  }
  return std::move(w.out);
}

bool decodeOutcome(const std::string &bytes, ParseOutcome &out) {
  Reader r{bytes};
  out.failure = r.str();
  uint64_t loops = r.count(24);
  for (uint64_t i = 0; i < loops && r.ok; ++i) {
    LoopSite l;
    l.keyword_offset = r.u64();
    l.fn_begin = r.u64();
    l.fn_end = r.u64();
    out.facts.loops.push_back(l);
  }
  uint64_t constants = r.count(16);
  for (uint64_t i = 0; i < constants && r.ok; ++i) {
    std::string name = r.str();
    out.facts.constants[name] = static_cast<long long>(r.u64());
  }
  uint64_t typed = r.count(32);
  for (uint64_t i = 0; i < typed && r.ok; ++i) {
    size_t at = r.u64();
    Typed ty;
    ty.type = r.str();
    ty.callee = r.str();
    uint64_t flags = r.u64();
    ty.const_method = flags & 1;
    ty.no_return = flags & 2;
    out.facts.typed[at] = std::move(ty);
  }
  uint64_t values = r.count(24);
  for (uint64_t i = 0; i < values && r.ok; ++i) {
    size_t b = r.u64(), e = r.u64();
    out.facts.values[{b, e}] = static_cast<long long>(r.u64());
  }
  out.facts.full_types = r.u64() == 1;
  uint64_t functions = r.count(16);
  for (uint64_t i = 0; i < functions && r.ok; ++i) {
    size_t b = r.u64(), e = r.u64();
    out.facts.functions.emplace_back(b, e);
  }
  return r.done();
}

int cppWorkerMain() {
  // The request and the answer travel on the socket handed over as standard input; standard
  // input, output and error themselves become /dev/null.
  int sock = ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (sock < 0 || null < 0) return kExitBadRequest;
  for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) ::dup2(null, fd);
  ::close(null);
  struct rlimit noCore = {0, 0};
  ::setrlimit(RLIMIT_CORE, &noCore);

  std::string bytes;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::recv(sock, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return kExitBadRequest;
    if (n == 0) break;
    bytes.append(buf, static_cast<size_t>(n));
  }
  ParseRequest req;
  if (!decodeRequest(bytes, req)) return kExitBadRequest;
  bytes.clear();
  bytes.shrink_to_fit();

  // Out of memory is an answer of its own, not a crash report.
  std::set_new_handler(outOfMemory);
  llvm::install_bad_alloc_error_handler([](void *, const char *, bool) { outOfMemory(); });
  llvm::install_fatal_error_handler([](void *, const char *, bool) { ::_exit(kExitFatal); });
  // Under AddressSanitizer the address space is mostly shadow memory: the parent's watch of
  // the resident memory is the limit there.
  if (req.memory_bytes > 0 && !kAsan) {
    struct rlimit as = {req.memory_bytes, req.memory_bytes};
    ::setrlimit(RLIMIT_AS, &as);
  }
  ParseOutcome out = parseFile(req);
  bool sent = sendAll(sock, encodeOutcome(out));
  // _exit: no destructors, no leak report: the answer is all this process had to give.
  ::_exit(sent ? 0 : kExitBadRequest);
}

ParseOutcome parseInWorker(const std::string &worker, const ParseRequest &req) {
  ParseOutcome out;
  auto fail = [&](std::string why) {
    out.facts = FileFacts{};
    out.failure = std::move(why);
    return out;
  };
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return fail(std::string("cannot start the C++ front end: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, sv[1], STDIN_FILENO); // dup2 clears close-on-exec
  const char *argv[] = {worker.c_str(), "--cpp-worker", nullptr};
  pid_t pid = -1;
  int spawned = ::posix_spawn(&pid, worker.c_str(), &actions, nullptr, const_cast<char *const *>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(sv[1]);
  if (spawned != 0) {
    ::close(sv[0]);
    return fail(std::string("cannot start the C++ front end: ") + std::strerror(spawned));
  }

  const bool sentAll = sendAll(sv[0], encodeRequest(req));
  ::shutdown(sv[0], SHUT_WR);
  // The worker stops itself at the time limit (the token watcher); a worker that does not,
  // because it is stuck where no token passes, is killed a little later.
  using Clock = std::chrono::steady_clock;
  const auto killAt = req.timeout_seconds > 0 ? Clock::now() + std::chrono::seconds(req.timeout_seconds) + std::chrono::seconds(2)
                                              : Clock::time_point::max();
  std::string answer;
  bool killedForTime = false, killedForMemory = false;
  char buf[1 << 16];
  while (sentAll) {
    int wait = 100;
    if (killAt != Clock::time_point::max()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(killAt - Clock::now()).count();
      if (left <= 0) {
        killedForTime = true;
        break;
      }
      wait = static_cast<int>(std::min<long long>(left, 100));
    }
    if (req.memory_bytes > 0 && residentBytes(pid) > req.memory_bytes) {
      killedForMemory = true;
      break;
    }
    struct pollfd p = {sv[0], POLLIN, 0};
    int ready = ::poll(&p, 1, wait);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    ssize_t n = ::recv(sv[0], buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    answer.append(buf, static_cast<size_t>(n));
    if (answer.size() > kMaxAnswer) break;
  }
  ::close(sv[0]);
  if (killedForTime || killedForMemory || !sentAll) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}

  const std::string memory = std::to_string(req.memory_bytes >> 20) + " MiB";
  if (killedForTime)
    return fail("the C++ front end gave up after " + std::to_string(req.timeout_seconds) + " s (--cpp-timeout); not analysed");
  if (killedForMemory || (WIFEXITED(status) && WEXITSTATUS(status) == kExitOutOfMemory))
    return fail("the C++ front end needed more than " + memory + " of memory (--cpp-memory); not analysed");
  if (WIFSIGNALED(status))
    return fail("the C++ front end crashed on this file (signal " + std::to_string(WTERMSIG(status)) + ": " +
                strsignal(WTERMSIG(status)) + "); not analysed");
  if (WIFEXITED(status) && WEXITSTATUS(status) == kExitFatal)
    return fail("the C++ front end stopped with a fatal error on this file; not analysed");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !decodeOutcome(answer, out))
    return fail("the C++ front end stopped without an answer (exit " +
                std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + "); not analysed");
  return out;
}

} // namespace retrylint::cpp
