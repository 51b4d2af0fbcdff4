#include "reports/timeline.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>

#include "properties/scenario_check.h"
#include "reports/timeline_review.h"
#include "reports/violation_window.h"
#include "reports/dot_text.h"
#include "traces/output_file.h"
#include "traces/event_detail.h"

namespace locksim {

namespace {

std::string format_seconds(int64_t true_us) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(true_us) / 1e6);
  return buf;
}

// Which lane an event is drawn in: scripts on their server, faults on their
// target, everything else on the acting client.
std::string lane_of(const Event& e) {
  if (e.kind == EventKind::Script) return "redis " + std::to_string(e.server < 0 ? 0 : e.server);
  if (e.kind == EventKind::Fault) {
    // Server faults (restart, failover, a server's clock jump) on that server's lane.
    if (e.op == Op::RedisRestart || e.op == Op::Failover) return "redis " + std::to_string(e.target < 0 ? 0 : e.target);
    if (e.op == Op::ClockJump && e.client < 0 && e.server >= 0) return "redis " + std::to_string(e.server);
    if (e.target >= 0) return "client " + std::to_string(e.target);
    if (e.client >= 0) return "client " + std::to_string(e.client);
    return "nemesis";
  }
  if (e.client >= 0) return "client " + std::to_string(e.client);
  return "nemesis";
}

const char* colour_of(const Event& e) {
  switch (e.kind) {
    case EventKind::Ok:
      if ((e.op == Op::Lock || e.op == Op::TryLock) && e.value == 1) return "palegreen";
      if (e.op == Op::Unlock) return "lightblue";
      return "white";
    case EventKind::Fail: return "lightgrey";
    case EventKind::Info: return e.op == Op::HoldLost ? "khaki" : "white";
    case EventKind::Fault: return "orange";
    case EventKind::Script: return "lightyellow";
    case EventKind::Deliver: return "lavender";
    case EventKind::Invoke: return "white";
    case EventKind::Verdict: return "tomato";
  }
  return "white";
}

}  // namespace

std::string describe_event(const Event& e) {
  std::ostringstream out;
  switch (e.kind) {
    case EventKind::Invoke:
      out << op_name(e.op) << " " << e.lock.name();
      if (e.wait_ms >= 0) out << " wait " << e.wait_ms << " ms";
      if (e.lease_ms >= 0) out << " lease " << e.lease_ms << " ms";
      break;
    case EventKind::Ok: out << op_name(e.op) << " ok" << (e.op == Op::Unlock ? " -> " + std::to_string(e.value) : ""); break;
    case EventKind::Fail: out << op_name(e.op) << " fail" << (has_detail_text(e) ? ": " + detail_text(e) : ""); break;
    case EventKind::Info: out << op_name(e.op) << (has_detail_text(e) ? ": " + detail_text(e) : ""); break;
    case EventKind::Script:
      out << e.script << " " << e.lock.name() << "\n" << e.owner.str() << " -> " << e.reply.to_text() << "\nserver " << e.server_ms << " ms";
      break;
    case EventKind::Deliver:
      out << "message";
      for (const auto& p : e.published) out << " " << p;
      break;
    case EventKind::Fault:
      out << op_name(e.op);
      if (e.duration_ms != 0) out << " " << e.duration_ms << " ms";
      if (has_detail_text(e)) out << " (" << detail_text(e) << ")";
      break;
    case EventKind::Verdict: out << "verdict: " << detail_text(e); break;
  }
  return out.str();
}

namespace {

// The explicit layout: columns (the time axis, then one per lane) and rows
// (the lane headers, then one per event), in points. Sizes are estimated
// from the label text (Helvetica 9 pt: about 5.5 pt per character, 12 pt per
// line), so the work is linear in the number of events and Graphviz only
// draws (neato -n2) instead of searching for a layout, which took minutes
// for a few thousand events or a few hundred lanes.
constexpr double kCharPt = 5.5;
constexpr double kLinePt = 12;
constexpr double kPadPt = 18;
constexpr double kColumnGapPt = 24;
constexpr double kRowGapPt = 8;
constexpr double kAxisWidthPt = 60;

struct TextSize {
  size_t longest_line = 0;
  size_t lines = 1;
};

TextSize text_size(const std::string& label) {
  TextSize t;
  size_t current = 0;
  for (char c : label) {
    if (c == '\n') {
      ++t.lines;
      current = 0;
    } else {
      t.longest_line = std::max(t.longest_line, ++current);
    }
  }
  return t;
}

std::string pos(double x_pt, double y_pt) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f,%.0f!", x_pt, y_pt);
  return buf;
}

}  // namespace

const char* timeline_view_name(TimelineView view) {
  return view == TimelineView::Review ? "review" : "sequence";
}

bool timeline_view_from_name(const std::string& name, TimelineView* out) {
  if (name == "review") *out = TimelineView::Review;
  else if (name == "sequence") *out = TimelineView::Sequence;
  else return false;
  return true;
}

namespace {

std::string sequence_timeline_dot(const std::vector<Event>& all_events, const TimelineOptions& options) {
  const size_t count = std::min(all_events.size(), options.max_events);
  // Lanes in order of first appearance (deterministic), clients before servers.
  std::vector<std::string> lanes;
  std::map<std::string, size_t> lane_index;
  std::vector<size_t> event_lane(count);
  std::vector<std::string> labels(count);
  for (size_t i = 0; i < count; ++i) {
    const Event& e = all_events[i];
    const std::string lane = lane_of(e);
    auto [it, added] = lane_index.emplace(lane, lanes.size());
    if (added) lanes.push_back(lane);
    event_lane[i] = it->second;
    labels[i] = "#" + std::to_string(e.id) + " " + describe_event(e);
    if (!e.owner.empty() && e.kind != EventKind::Script) labels[i] += "\n" + e.owner.str();
  }
  // Column widths and centres.
  std::vector<double> lane_width_pt(lanes.size());
  for (size_t l = 0; l < lanes.size(); ++l) {
    lane_width_pt[l] = static_cast<double>(lanes[l].size()) * kCharPt + kPadPt;
  }
  for (size_t i = 0; i < count; ++i) {
    const double w = static_cast<double>(text_size(labels[i]).longest_line) * kCharPt + kPadPt;
    lane_width_pt[event_lane[i]] = std::max(lane_width_pt[event_lane[i]], w);
  }
  std::vector<double> lane_x_pt(lanes.size());
  double x_pt = kAxisWidthPt + kColumnGapPt;
  for (size_t l = 0; l < lanes.size(); ++l) {
    lane_x_pt[l] = x_pt + lane_width_pt[l] / 2;
    x_pt += lane_width_pt[l] + kColumnGapPt;
  }
  const double axis_x_pt = kAxisWidthPt / 2;

  std::ostringstream dot;
  std::string title = options.title;
  if (count < all_events.size()) {
    title += " (first " + std::to_string(count) + " of " + std::to_string(all_events.size()) + " events)";
  }
  dot << "digraph timeline {\n"
      << "  graph [rankdir=TB, nodesep=0.25, ranksep=0.12, splines=line, fontname=\"Helvetica\", labelloc=t, label=\""
      << dot_escape(title) << "\"];\n"
      << "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=9, height=0.3];\n"
      << "  edge [arrowhead=none, color=grey70];\n";
  // Lane headers and the time axis.
  double y_pt = 0;
  dot << "  { rank=same; axis_head [label=\"true time\", shape=plaintext, style=\"\", pos=\"" << pos(axis_x_pt, y_pt)
      << "\"];";
  for (size_t l = 0; l < lanes.size(); ++l) {
    dot << " lane" << l << " [label=\"" << dot_escape(lanes[l]) << "\", shape=box, style=\"filled\", fillcolor=grey85, pos=\""
        << pos(lane_x_pt[l], y_pt) << "\"];";
  }
  dot << " }\n";
  double last_half_height_pt = kLinePt;
  std::vector<std::string> last_in_lane(lanes.size());
  for (size_t l = 0; l < lanes.size(); ++l) last_in_lane[l] = "lane" + std::to_string(l);
  std::string last_axis = "axis_head";
  std::map<uint64_t, std::string> last_of_op;  // op_id -> node of its latest event
  for (size_t i = 0; i < count; ++i) {
    const Event& e = all_events[i];
    const size_t l = event_lane[i];
    const std::string node = "e" + std::to_string(e.id);
    const std::string axis = "t" + std::to_string(e.id);
    const bool hot = options.highlight_ids.count(e.id) > 0;
    const double half_height_pt = (static_cast<double>(text_size(labels[i]).lines) * kLinePt + kPadPt / 2) / 2;
    y_pt -= last_half_height_pt + kRowGapPt + half_height_pt;
    last_half_height_pt = half_height_pt;
    dot << "  { rank=same; " << axis << " [label=\"" << format_seconds(e.true_us)
        << "\", shape=plaintext, style=\"\", fontsize=8, pos=\"" << pos(axis_x_pt, y_pt) << "\"]; " << node
        << " [label=\"" << dot_escape(labels[i]) << "\", fillcolor=" << (hot ? "tomato" : colour_of(e))
        << (hot ? ", penwidth=2.5" : "") << ", pos=\"" << pos(lane_x_pt[l], y_pt) << "\"]; }\n";
    dot << "  " << last_axis << " -> " << axis << " [style=invis];\n";
    dot << "  " << last_in_lane[l] << " -> " << node << " [color=grey40, weight=10];\n";
    if (e.op_id != 0) {
      auto it = last_of_op.find(e.op_id);
      if (it != last_of_op.end() && it->second != last_in_lane[l]) {
        dot << "  " << it->second << " -> " << node << " [constraint=false, style=dashed, arrowhead=normal];\n";
      }
      last_of_op[e.op_id] = node;
    }
    last_in_lane[l] = node;
    last_axis = axis;
  }
  dot << "}\n";
  return dot.str();
}

}  // namespace

TimelineOptions timeline_options_for(const Scenario& scenario) {
  TimelineOptions options;
  options.check = check_config_for(scenario);
  options.servers = scenario.servers;
  options.redlock = scenario.lock_kind == ScenarioLockKind::RedLock;
  return options;
}

std::string violation_subtitle(const std::string& explanation, const std::string& cause) {
  // An explanation that already gives its cause (Violation::to_string()'s
  // kCauseMark) says it once, not twice in two wordings.
  if (cause.empty() || explanation.find(cause) != std::string::npos ||
      explanation.find(kCauseMark) != std::string::npos) {
    return explanation;
  }
  return explanation + ". Cause: " + cause + ".";
}

std::string violation_subtitle(const Violation& v) { return violation_subtitle(v.message, v.stated_blame()); }

std::string violation_timeline_dot(const std::vector<Event>& history, const Violation& v, TimelineOptions options) {
  options.view = TimelineView::Review;
  options.highlight_ids.insert(v.event_ids.begin(), v.event_ids.end());
  if (options.caption.empty()) options.caption = violation_subtitle(v);
  options.focus = {v};
  options.total_events = history.size();
  if (history.empty()) return review_dot(HistoryRecording{}, {}, options);
  uint64_t from = history.front().id;
  uint64_t to = history.back().id;
  if (history.size() > options.max_events) {
    ViolationWindow planner(v, 20, options.max_events);
    for (const Event& e : history) planner.on_event(e);
    from = planner.range().from_id;
    to = planner.range().to_id;
    options.highlight_ids.insert(planner.named_ids().begin(), planner.named_ids().end());
  }
  std::vector<Event> window;
  for (const Event& e : history)
    if (e.id >= from && e.id <= to) window.push_back(e);
  options.max_events = std::max(options.max_events, window.size());
  return review_dot(record_history(history, options.check.value_or(default_check_config()), from, to), window,
                    options);
}

std::string timeline_dot(const std::vector<Event>& events, const TimelineOptions& options) {
  if (options.view == TimelineView::Sequence) return sequence_timeline_dot(events, options);
  const size_t count = std::min(events.size(), options.max_events);
  if (count == 0) return review_dot(HistoryRecording{}, {}, options);
  const std::vector<Event> window(events.begin(), events.begin() + static_cast<std::ptrdiff_t>(count));
  return review_dot(
      record_history(window, options.check.value_or(default_check_config()), window.front().id, window.back().id),
      window, options);
}

namespace {

// An anonymous in-memory file holding `text`, positioned at its start.
int memory_file(const char* name, const std::string& text) {
  const int fd = ::memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) throw std::runtime_error(std::string("cannot create a memory file: ") + std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      throw std::runtime_error(std::string("cannot write a memory file: ") + std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
  ::lseek(fd, 0, SEEK_SET);
  return fd;
}

std::string read_start(int fd, size_t max_bytes) {
  std::string out(max_bytes, '\0');
  const ssize_t n = ::pread(fd, out.data(), out.size(), 0);
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

constexpr int kDotNotFound = 127;

// Appends everything `fd` holds, from its start, to `out` (whose own write
// errors, a full disk say, are then locksim's to report, not dot's).
void copy_to(int fd, OutputFile& out) {
  std::string buffer(1 << 16, '\0');
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buffer.data(), buffer.size(), at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("cannot read dot's drawing back: ") + std::strerror(errno));
    if (n == 0) return;
    out.write(std::string_view(buffer.data(), static_cast<size_t>(n)));
    at += n;
  }
}

// Runs `dot -Kneato -n2 -T<format>` (draw at the given positions) with the
// text on stdin and stdout into `out_fd` (a memory file: dot never meets
// the output's own errors); no shell, so no quoting of paths.
// Kills it (SIGKILL) at the time limit; it also dies with us (PDEATHSIG).
void run_dot(const std::string& dot_text, const std::string& format, int out_fd, const std::string& out_path,
             int time_limit_ms) {
  const int in_fd = memory_file("locksim-timeline.dot", dot_text);
  const int err_fd = memory_file("locksim-dot-stderr", "");
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(in_fd);
    ::close(err_fd);
    throw std::runtime_error(std::string("cannot start dot: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::setpgid(0, 0);  // its own group: a timeout kills whatever it started too
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    if (::dup2(in_fd, 0) < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err_fd, 2) < 0) ::_exit(1);
    const std::string type = "-T" + format;
    ::execlp("dot", "dot", "-Kneato", "-n2", type.c_str(), static_cast<char*>(nullptr));
    ::_exit(kDotNotFound);
  }
  ::setpgid(pid, pid);  // also here: whichever runs first
  ::close(in_fd);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(time_limit_ms);  // real-time-ok: bounds the outside dot process, not the simulation
  int status = 0;
  bool timed_out = false;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() >= deadline) {  // real-time-ok: dot time limit
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      timed_out = true;
      break;
    }
    ::usleep(5'000);
  }
  const std::string messages = read_start(err_fd, 2048);
  ::close(err_fd);
  if (timed_out) {
    throw std::runtime_error("dot did not finish drawing " + out_path + " within " +
                             std::to_string((int64_t{time_limit_ms} + 999) / 1000) +
                             " s and was stopped; draw fewer events (--max-events, --from/--to, --lock)");
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kDotNotFound) {
    throw DotNotFound("cannot run dot to render " + out_path + ": is graphviz installed (the dot command on PATH)?");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("dot failed to render " + out_path + ": " +
                             (messages.empty() ? std::string("no message") : messages));
  }
}

}  // namespace

void render_timeline(const std::string& dot_text, const std::string& out_path, const std::string& format,
                     int time_limit_ms) {
  if (format != "svg" && format != "png" && format != "pdf" && format != "dot") {
    throw std::runtime_error("unknown timeline format '" + format + "' (expected svg, png, pdf or dot)");
  }
  OutputFile out(out_path);  // nothing appears under out_path unless it is complete
  if (format == "dot") {
    out.write(dot_text);
  } else {
    const int drawn_fd = memory_file("locksim-timeline-drawn", "");
    try {
      run_dot(dot_text, format, drawn_fd, out_path, time_limit_ms);
      copy_to(drawn_fd, out);
    } catch (...) {
      ::close(drawn_fd);
      throw;
    }
    ::close(drawn_fd);
  }
  out.commit();
}

}  // namespace locksim
