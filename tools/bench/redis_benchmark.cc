#include "tools/bench/redis_benchmark.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace locksim {

std::optional<double> parse_redis_benchmark_csv(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("\"test\"", 0) == 0 || line.empty() || line[0] != '"') continue;
    // "COMMAND ...","12345.67","..."
    const size_t sep = line.find("\",\"");
    if (sep == std::string::npos) continue;
    const size_t start = sep + 3;
    const size_t end = line.find('"', start);
    if (end == std::string::npos) continue;
    const std::string rate = line.substr(start, end - start);
    char* stop = nullptr;
    const double value = std::strtod(rate.c_str(), &stop);
    if (stop == rate.c_str() || *stop != '\0') continue;
    return value;
  }
  return std::nullopt;
}

RedisBenchmarkResult run_redis_benchmark(int port, uint64_t requests, const std::vector<std::string>& command) {
  std::vector<std::string> args = {"redis-benchmark", "-h", "127.0.0.1", "-p", std::to_string(port), "-c", "1",
                                   "-n", std::to_string(requests), "--csv"};
  args.insert(args.end(), command.begin(), command.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out[2];
  if (::pipe(out) != 0) return {std::nullopt, "pipe failed"};
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(out[0]);
    ::close(out[1]);
    return {std::nullopt, "fork failed"};
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(126);
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(out[1], STDERR_FILENO);
    ::close(out[0]);
    ::close(out[1]);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  std::string output;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n > 0) {
      if (output.size() < (1 << 20)) output.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  ::close(out[0]);
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  const double cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return {std::nullopt, "redis-benchmark not found on PATH"};
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return {std::nullopt, "redis-benchmark failed: " + output.substr(0, 200)};
  }
  const std::optional<double> rate = parse_redis_benchmark_csv(output);
  if (!rate || *rate <= 0) return {std::nullopt, "no rate in redis-benchmark's output: " + output.substr(0, 200)};
  return {rate, "", cpu_s};
}

}  // namespace locksim
