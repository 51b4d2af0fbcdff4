// locksim doctor: checks the environment, one line per item, and says what to
// install when something is missing. With --port it instead checks that a
// user-named server answers (read-only: PING and INFO, no data touched).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "impl/redis_conn.h"
#include "tools/cli/commands.h"
#include "tools/cli/number_option.h"
#include "tools/server/redis_server.h"

namespace locksim::cli {

namespace {

// Runs a command and returns its first output line ("" if it failed).
std::string first_line_of(const std::string& command) {
  std::string out;
  if (FILE* p = ::popen((command + " 2>&1").c_str(), "r")) {
    char buf[512];
    if (std::fgets(buf, sizeof buf, p)) out = buf;
    const int status = ::pclose(p);
    if (status != 0) return "";
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::filesystem::path candidate = std::filesystem::path(dirs.substr(start, end - start)) / name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate.string();
    start = end + 1;
  }
  return "";
}

// The virtual-clock check: every RedisServer start probes its clock
// (tools/server/clock_probe.h: a key set with PX 1000 at t is still there at
// exactly t+1000 ms and gone at t+1001 ms) and throws when it fails.
std::string check_virtual_clock() {
  try {
    RedisServer server;
  } catch (const RedisError& e) {
    return e.what();
  }
  return "";
}

int run_doctor() {
  bool all_ok = true;
  std::string install;
  const std::string redis_path = find_in_path("redis-server");
  if (redis_path.empty()) {
    std::printf("redis-server: MISSING (not found in PATH)\n");
    all_ok = false;
    install += " redis-server";
  } else {
    std::printf("redis-server: ok (%s, %s)\n", redis_path.c_str(),
                first_line_of("redis-server --version").c_str());
  }
  const std::string shim = default_vclock_shim_path();
  const bool shim_ok = !shim.empty() && std::filesystem::exists(shim);
  std::printf("vclock shim: %s (%s)\n", shim_ok ? "ok" : "MISSING", shim.empty() ? "unset" : shim.c_str());
  if (!shim_ok) all_ok = false;
  if (!redis_path.empty() && shim_ok) {
    try {
      const std::string problem = check_virtual_clock();
      if (problem.empty()) {
        std::printf("virtual clock: ok (SET PX 1000 kept at +1000 ms, gone at +1001 ms)\n");
      } else {
        std::printf("virtual clock: FAILED (%s)\n", problem.c_str());
        all_ok = false;
      }
    } catch (const std::exception& e) {
      std::printf("virtual clock: FAILED (%s)\n", e.what());
      all_ok = false;
    }
  } else {
    std::printf("virtual clock: SKIPPED (needs redis-server and the vclock shim)\n");
    all_ok = false;
  }
  const std::string dot = first_line_of("dot -V");
  if (dot.empty()) {
    std::printf("dot: MISSING (graphviz)\n");
    all_ok = false;
    install += " graphviz";
  } else {
    std::printf("dot: ok (%s)\n", dot.c_str());
  }
  if (!all_ok) {
    if (!install.empty()) std::printf("to fix: apt-get install -y%s\n", install.c_str());
    if (!shim_ok) {
      std::printf("to fix: build the locksim_vclock target (cmake --build build), install locksim (cmake --install), "
                  "or set LOCKSIM_VCLOCK_SHIM to the shim's path\n");
    }
  }
  return all_ok ? 0 : 1;
}

struct DoctorOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  int64_t timeout_ms = 2000;
};

int check_named_server(const DoctorOptions& o) {
  RedisConnOptions opts;
  opts.host = o.host;
  opts.port = o.port;
  opts.connect_timeout_ms = o.timeout_ms;
  opts.io_timeout_ms = o.timeout_ms;
  try {
    auto conn = RedisConn::connect(opts);
    Reply pong = conn.command({"PING"});
    if (pong.is_error()) throw RedisError(conn.where() + ": PING: " + pong.text);
    std::printf("redis %s:%d: ok (PING answered %s)\n", o.host.c_str(), o.port, pong.to_string().c_str());
    return 0;
  } catch (const RedisError& e) {
    std::fprintf(stderr, "locksim: %s\n", e.what());
    return 2;
  }
}

}  // namespace

void add_doctor_command(CLI::App& app, CliContext* ctx) {
  auto* cmd = app.add_subcommand("doctor", "Check the environment: redis-server, the virtual clock, graphviz");
  auto opts = std::make_shared<DoctorOptions>();
  CLI::Option* port =
      cmd->add_option("--port", opts->port, "Check that an existing Redis server on this port answers (read-only)")
          ->transform(integer_in(1, 65535));
  cmd->add_option("--host", opts->host, "With --port: host of an existing server to check (read-only)")->needs(port);
  cmd->add_option("--timeout-ms", opts->timeout_ms, "Connect/read timeout for --port")
      ->transform(integer_in(int64_t{1}, int64_t{600000}))
      ->needs(port);
  cmd->callback([opts, ctx] {
    ctx->exit_code = opts->port != 0 ? check_named_server(*opts) : run_doctor();
  });
}

}  // namespace locksim::cli
