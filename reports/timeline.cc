#include "reports/timeline.h"

#include <sys/wait.h>

#include <cassert>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace locksim {

namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

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
    if (e.op == "redis_restart") return "redis " + std::to_string(e.target < 0 ? 0 : e.target);
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
      if ((e.op == "lock" || e.op == "try_lock") && e.value == 1) return "palegreen";
      if (e.op == "unlock") return "lightblue";
      return "white";
    case EventKind::Fail: return "lightgrey";
    case EventKind::Info: return e.op == "hold_lost" ? "khaki" : "white";
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
      out << e.op << " " << e.lock;
      if (e.wait_ms >= 0) out << " wait " << e.wait_ms << " ms";
      if (e.lease_ms >= 0) out << " lease " << e.lease_ms << " ms";
      break;
    case EventKind::Ok: out << e.op << " ok" << (e.op == "unlock" ? " -> " + std::to_string(e.value) : ""); break;
    case EventKind::Fail: out << e.op << " fail" << (e.detail.empty() ? "" : ": " + e.detail); break;
    case EventKind::Info: out << e.op << (e.detail.empty() ? "" : ": " + e.detail); break;
    case EventKind::Script:
      out << e.script << " " << e.lock << "\n" << e.owner << " -> " << e.reply << "\nserver " << e.server_ms << " ms";
      break;
    case EventKind::Deliver:
      out << "message";
      for (const auto& p : e.published) out << " " << p;
      break;
    case EventKind::Fault:
      out << e.op;
      if (e.duration_ms != 0) out << " " << e.duration_ms << " ms";
      if (!e.detail.empty()) out << " (" << e.detail << ")";
      break;
    case EventKind::Verdict: out << "verdict: " << e.detail; break;
  }
  return out.str();
}

std::string timeline_dot(const std::vector<Event>& all_events, const TimelineOptions& options) {
  const size_t count = std::min(all_events.size(), options.max_events);
  // Lanes in order of first appearance (deterministic), clients before servers.
  std::vector<std::string> lanes;
  std::map<std::string, size_t> lane_index;
  for (size_t i = 0; i < count; ++i) {
    const std::string lane = lane_of(all_events[i]);
    if (lane_index.emplace(lane, lanes.size()).second) lanes.push_back(lane);
  }
  std::ostringstream dot;
  std::string title = options.title;
  if (count < all_events.size()) {
    title += " (first " + std::to_string(count) + " of " + std::to_string(all_events.size()) + " events)";
  }
  dot << "digraph timeline {\n"
      << "  graph [rankdir=TB, nodesep=0.25, ranksep=0.12, fontname=\"Helvetica\", labelloc=t, label=\""
      << escape(title) << "\"];\n"
      << "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=9, height=0.3];\n"
      << "  edge [arrowhead=none, color=grey70];\n";
  // Lane headers and the time axis.
  dot << "  { rank=same; axis_head [label=\"true time\", shape=plaintext, style=\"\"];";
  for (size_t l = 0; l < lanes.size(); ++l) {
    dot << " lane" << l << " [label=\"" << escape(lanes[l]) << "\", shape=box, style=\"filled\", fillcolor=grey85];";
  }
  dot << " }\n";
  std::vector<std::string> last_in_lane(lanes.size());
  for (size_t l = 0; l < lanes.size(); ++l) last_in_lane[l] = "lane" + std::to_string(l);
  std::string last_axis = "axis_head";
  std::map<uint64_t, std::string> last_of_op;  // op_id -> node of its latest event
  for (size_t i = 0; i < count; ++i) {
    const Event& e = all_events[i];
    const size_t l = lane_index.at(lane_of(e));
    const std::string node = "e" + std::to_string(e.id);
    const std::string axis = "t" + std::to_string(e.id);
    const bool hot = options.highlight_ids.count(e.id) > 0;
    std::string label = "#" + std::to_string(e.id) + " " + describe_event(e);
    if (!e.owner.empty() && e.kind != EventKind::Script) label += "\n" + e.owner;
    dot << "  { rank=same; " << axis << " [label=\"" << format_seconds(e.true_us)
        << "\", shape=plaintext, style=\"\", fontsize=8]; " << node << " [label=\"" << escape(label)
        << "\", fillcolor=" << (hot ? "tomato" : colour_of(e)) << (hot ? ", penwidth=2.5" : "") << "]; }\n";
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

void render_timeline(const std::string& dot_text, const std::string& out_path, const std::string& format) {
  if (format == "dot") {
    std::ofstream out(out_path);
    if (!out) throw std::runtime_error("cannot write " + out_path);
    out << dot_text;
    if (!out.flush()) throw std::runtime_error("cannot write " + out_path);
    return;
  }
  if (format != "svg" && format != "png" && format != "pdf") {
    throw std::runtime_error("unknown timeline format '" + format + "' (expected svg, png, pdf or dot)");
  }
  const std::string dot_path = out_path + ".dot.tmp";
  {
    std::ofstream out(dot_path);
    if (!out) throw std::runtime_error("cannot write " + dot_path);
    out << dot_text;
  }
  const std::string cmd = "dot -T" + format + " -o '" + out_path + "' '" + dot_path + "' 2>&1";
  std::string output;
  int status = -1;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[512];
    while (size_t n = std::fread(buf, 1, sizeof buf, p)) output.append(buf, n);
    status = ::pclose(p);
  }
  std::remove(dot_path.c_str());
  if (status != 0) {
    throw std::runtime_error("dot failed to render " + out_path + ": " +
                             (output.empty() ? std::string("is graphviz installed?") : output));
  }
}

}  // namespace locksim
