#include "tools/server/redis_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <thread>
#include <vector>

#include "impl/redis_conn.h"
#include "tools/server/clock_probe.h"
#include "tools/server/exit_cleanup.h"

namespace locksim {

namespace {

constexpr const char* kAppendDirName = "appendonlydir";  // redis-server's default appenddirname

// Asks the kernel for a free loopback port. Another process could take it
// before redis-server binds it; start() retries on a failed start-up.
int pick_free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw RedisError(std::string("redis-server: socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    throw RedisError(std::string("redis-server: bind to a free port: ") + std::strerror(errno));
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

std::string log_tail(const std::string& path, size_t max_lines) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    lines.push_back(line);
    if (lines.size() > max_lines) lines.erase(lines.begin());
  }
  std::string out;
  for (const auto& l : lines) out += "\n  | " + l;
  return out;
}

// The dynamic loader's complaints in a server log (a shim that could not be
// preloaded), as " (ld.so: ...)", or "".
std::string loader_complaints(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  for (int n = 0; n < 100 && std::getline(in, line); ++n) {
    if (line.find("LD_PRELOAD") != std::string::npos) return " (" + line + ")";
  }
  return "";
}

// True while the child has not exited. Does not reap it (WNOWAIT), so its
// pid cannot be reused before the caller has forgotten it.
bool process_alive(pid_t pid) {
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return false;
  return info.si_pid == 0;
}

}  // namespace

std::string default_vclock_shim_path() {
  if (const char* env = std::getenv("LOCKSIM_VCLOCK_SHIM"); env && env[0]) return env;
  std::error_code ec;
  std::string installed;
#ifdef LOCKSIM_VCLOCK_SHIM_RELPATH
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    installed = (self.parent_path() / LOCKSIM_VCLOCK_SHIM_RELPATH).lexically_normal().string();
    if (std::filesystem::exists(installed, ec)) return installed;
  }
#endif
#ifdef LOCKSIM_VCLOCK_SHIM_PATH
  if (std::filesystem::exists(LOCKSIM_VCLOCK_SHIM_PATH, ec)) return LOCKSIM_VCLOCK_SHIM_PATH;
#endif
  return installed;
}

RedisServer::RedisServer(RedisServerOptions options) : options_(std::move(options)) {
  if (options_.shim_path.empty()) options_.shim_path = default_vclock_shim_path();
  if (options_.virtual_clock &&
      (options_.shim_path.empty() || !std::filesystem::exists(options_.shim_path))) {
    throw RedisError("redis-server: vclock shim not found at '" + options_.shim_path +
                     "' (build the locksim_vclock target or set LOCKSIM_VCLOCK_SHIM)");
  }
  dir_ = ServerDir::create();
  cleanup_.emplace(dir_.path().c_str());
  const std::string clock_path = dir_.path() + "/clock";
  clock_fd_ = ::open(clock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (clock_fd_ < 0 || ::ftruncate(clock_fd_, 4096) != 0) {
    if (clock_fd_ >= 0) ::close(clock_fd_);
    throw RedisError("redis-server: cannot create clock file " + clock_path);
  }
  void* addr = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, clock_fd_, 0);
  if (addr == MAP_FAILED) {
    ::close(clock_fd_);
    throw RedisError("redis-server: cannot map clock file " + clock_path);
  }
  clock_word_ = static_cast<volatile int64_t*>(addr);
  set_clock_us(options_.initial_clock_us);
  try {
    start();
  } catch (...) {
    stop();
    ::munmap(const_cast<int64_t*>(clock_word_), 4096);
    ::close(clock_fd_);
    throw;  // dir_ and cleanup_ go with the members
  }
}

RedisServer::~RedisServer() {
  stop();
  if (clock_word_) ::munmap(const_cast<int64_t*>(clock_word_), 4096);
  if (clock_fd_ >= 0) ::close(clock_fd_);
  dir_.remove();
}

void RedisServer::set_clock_us(int64_t now_us) {
  assert(clock_word_ != nullptr);
  __atomic_store_n(clock_word_, now_us, __ATOMIC_RELEASE);
}

int64_t RedisServer::clock_us() const {
  assert(clock_word_ != nullptr);
  return __atomic_load_n(clock_word_, __ATOMIC_ACQUIRE);
}

// Starts redis-server and waits until it answers PING. Retries with another
// port when the start fails (the chosen port may have been taken meanwhile),
// unless a port is already fixed (restart keeps its port).
void RedisServer::start() {
  const bool keep_port = port_ != 0;
  const int attempts = keep_port ? 1 : 3;
  std::string last_error;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    if (!keep_port) port_ = pick_free_port();
    const std::string log_path = dir_.path() + "/redis.log";
    const std::string port_text = std::to_string(port_);
    const std::string clock_path = dir_.path() + "/clock";
    std::vector<std::string> args = {
        options_.redis_server_path, "--port", port_text, "--bind", "127.0.0.1",
        "--save", "", "--appendonly", append_only_ ? "yes" : "no", "--appendfsync", "always",
        "--dir", dir_.path(), "--daemonize", "no",
        "--protected-mode", "no", "--logfile", "", "--databases", "1",
        "--enable-debug-command", "local",  // DEBUG SET-ACTIVE-EXPIRE (sim/live_backend.h)
        // jemalloc's background thread sleeps until a CLOCK_REALTIME deadline
        // read through the clock shim: on virtual time every sleep ends at
        // once and the thread spins (a quarter of the CPU of a live run).
        "--jemalloc-bg-thread", "no"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // The child's environment is built here: between fork and exec a
    // multi-threaded parent's child may only make async-signal-safe calls
    // (setenv may allocate while another thread held the allocator's lock).
    std::vector<std::string> env_text;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
      const std::string_view var(*e);
      if (var.rfind("LD_PRELOAD=", 0) == 0 || var.rfind("LOCKSIM_VCLOCK_FILE=", 0) == 0) continue;
      env_text.emplace_back(var);
    }
    if (options_.virtual_clock) {
      env_text.push_back("LD_PRELOAD=" + options_.shim_path);
      env_text.push_back("LOCKSIM_VCLOCK_FILE=" + clock_path);
    }
    std::vector<char*> envp;
    for (auto& v : env_text) envp.push_back(v.data());
    envp.push_back(nullptr);
    const std::string exec_failed = "exec " + options_.redis_server_path + ": ";
    const pid_t parent = ::getpid();
    // No signal between fork and recording the child in the cleanup table.
    sigset_t all_signals, old_mask;
    sigfillset(&all_signals);
    ::pthread_sigmask(SIG_BLOCK, &all_signals, &old_mask);
    const pid_t pid = ::fork();
    if (pid != 0) {
      if (pid > 0) cleanup_->set_pid(pid);
      ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
    }
    if (pid < 0) throw RedisError(std::string("redis-server: fork: ") + std::strerror(errno));
    if (pid == 0) {
      ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
      // Child: die with the parent, even if the parent is SIGKILLed.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      ::setpgid(0, 0);
      int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
      if (log_fd >= 0) {
        ::dup2(log_fd, 1);
        ::dup2(log_fd, 2);
      }
      int null_fd = ::open("/dev/null", O_RDONLY);
      if (null_fd >= 0) ::dup2(null_fd, 0);
      ::execvpe(argv[0], argv.data(), envp.data());
      const char* why = std::strerror(errno);
      if (::write(2, exec_failed.data(), exec_failed.size()) >= 0 && ::write(2, why, std::strlen(why)) >= 0) {
        [[maybe_unused]] const auto n = ::write(2, "\n", 1);
      }
      ::_exit(127);
    }
    pid_ = pid;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.startup_timeout_ms);
    while (std::chrono::steady_clock::now() < deadline) {
      if (!process_alive(pid_)) {
        cleanup_->set_pid(-1);
        int status = 0;
        ::waitpid(pid_, &status, 0);  // reap it
        pid_ = -1;
        last_error = "redis-server exited during start-up on port " + port_text + log_tail(log_path, 8);
        break;
      }
      std::optional<RedisConn> ready;
      try {
        RedisConnOptions opts;
        opts.port = port_;
        opts.connect_timeout_ms = 200;
        opts.io_timeout_ms = 1000;
        auto conn = RedisConn::connect(opts);
        if (conn.command({"PING"}) == Reply::bulk("PONG")) ready.emplace(std::move(conn));
      } catch (const RedisError&) {
      }
      if (ready) {
        if (options_.virtual_clock) {
          // Before the probe moves the clock far ahead: the server's own
          // active expiry would delete every key it kept (AOF) meanwhile.
          const Reply r = ready->command({"DEBUG", "SET-ACTIVE-EXPIRE", "0"});
          if (r.is_error()) {
            stop();
            throw RedisError("redis-server on port " + port_text + ": DEBUG SET-ACTIVE-EXPIRE 0: " + r.text);
          }
          check_clock(log_path);
        }
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (pid_ > 0) {
      last_error = "redis-server did not answer PING within " +
                   std::to_string(options_.startup_timeout_ms) + " ms on port " + port_text +
                   log_tail(log_path, 8);
      stop();
    }
  }
  throw RedisError(last_error);
}

// Every start proves the virtual clock works (tools/server/clock_probe.h):
// a server on the wall clock (shim missing, not preloadable, or not
// answering the time calls) would make every live result meaningless.
void RedisServer::check_clock(const std::string& log_path) {
  std::string problem;
  try {
    problem = probe_virtual_clock(*this);
  } catch (const RedisError& e) {
    problem = e.what();
  }
  if (problem.empty()) return;
  stop();
  throw ClockProbeFailure("redis-server does not run on the virtual clock: " + problem +
                          "; the vclock shim '" + options_.shim_path + "' is not loaded or not working" +
                          loader_complaints(log_path) + " (check with `locksim doctor`)");
}

void RedisServer::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  cleanup_->set_pid(-1);  // killed: the signal path need not (and must not, once reaped) kill it
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

void RedisServer::restart() {
  stop();
  std::error_code ignored;
  std::filesystem::remove_all(dir_.path() + "/" + kAppendDirName, ignored);  // empty data, AOF or not
  start();
}

void RedisServer::restart_keeping_data() {
  if (!append_only_) throw RedisError("redis-server on port " + std::to_string(port_) +
                                      ": a restart that keeps the data needs append-only persistence");
  stop();
  start();
}

// CONFIG SET appendonly yes starts a background rewrite of the data into a
// new AOF; the server logs every write from then on, but the AOF holds the
// data only once the rewrite is done: wait for it (a condition, bounded).
void RedisServer::set_append_only(bool on) {
  if (on == append_only_) return;
  RedisConnOptions opts;
  opts.port = port_;
  auto conn = RedisConn::connect(opts);
  const auto config_set = [&](const std::string& name, const std::string& value) {
    const Reply r = conn.command({"CONFIG", "SET", name, value});
    if (r.is_error()) {
      throw RedisError(conn.where() + ": CONFIG SET " + name + " " + value + ": " + r.to_string());
    }
  };
  config_set("appendfsync", "always");
  config_set("appendonly", on ? "yes" : "no");
  append_only_ = on;
  if (!on) return;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.startup_timeout_ms);
  while (true) {
    const Reply info = conn.command({"INFO", "persistence"});
    const bool busy = info.text.find("aof_rewrite_in_progress:0") == std::string::npos ||
                      info.text.find("aof_rewrite_scheduled:0") == std::string::npos;
    if (!busy) return;
    if (std::chrono::steady_clock::now() > deadline) {
      throw RedisError(conn.where() + ": the append-only rewrite did not finish within " +
                       std::to_string(options_.startup_timeout_ms) + " ms");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

std::string RedisServer::version() {
  RedisConnOptions opts;
  opts.port = port_;
  auto conn = RedisConn::connect(opts);
  Reply info = conn.command({"INFO", "server"});
  std::istringstream in(info.text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("redis_version:", 0) == 0) {
      std::string v = line.substr(14);
      while (!v.empty() && (v.back() == '\r' || v.back() == '\n')) v.pop_back();
      return v;
    }
  }
  return "unknown";
}

}  // namespace locksim
