#include "reports/run_plot.h"

#include <algorithm>
#include <exception>
#include <vector>

#include "properties/scenario_check.h"
#include "traces/trace_reader.h"

namespace locksim {

namespace {

using nlohmann::json;

json plot_json(const HistoryRecording& rec) {
  const RunSeries& series = rec.series;
  const double bucket_s = static_cast<double>(series.bucket_us) / 1e6;
  json t = json::array(), acquired = json::array(), gave_up = json::array(), unknown = json::array(),
       unlocked = json::array(), refused = json::array(), polls = json::array(), p50 = json::array(),
       max = json::array();
  for (size_t i = 0; i < series.buckets.size(); ++i) {
    const SeriesBucket& b = series.buckets[i];
    t.push_back(static_cast<double>(i) * bucket_s);
    acquired.push_back(b.acquired);
    gave_up.push_back(b.gave_up);
    unknown.push_back(b.unknown);
    unlocked.push_back(b.unlocked);
    refused.push_back(b.unlock_refused);
    polls.push_back(b.polls);
    if (b.latency_us.empty()) {
      p50.push_back(nullptr);
      max.push_back(nullptr);
    } else {
      std::vector<int64_t> sorted = b.latency_us;
      std::sort(sorted.begin(), sorted.end());
      // Milliseconds, at least 0.01 (a log scale cannot show 0).
      p50.push_back(std::max(0.01, static_cast<double>(sorted[sorted.size() / 2]) / 1000));
      max.push_back(std::max(0.01, static_cast<double>(b.latency_max_us) / 1000));
    }
  }
  json faults = json::array();
  for (const RecordedFault& f : rec.faults) {
    const std::string where =
        f.client >= 0 ? "client " + std::to_string(f.client) : "server " + std::to_string(std::max(f.server, 0));
    faults.push_back({static_cast<double>(f.start_us) / 1e6, static_cast<double>(f.end_us) / 1e6,
                      where + ": " + f.label, recorded_fault_name(f)});
  }
  return {{"bucket_s", bucket_s}, {"t", t}, {"acquired", acquired}, {"gave_up", gave_up}, {"unknown", unknown},
          {"unlocked", unlocked}, {"unlock_refused", refused}, {"polls", polls}, {"latency_p50_ms", p50},
          {"latency_max_ms", max}, {"faults", faults}};
}

}  // namespace

RunPlotSink::RunPlotSink() : context_(default_check_config()), recorder_(default_check_config()) {}

void RunPlotSink::on_event(const Event& e) {
  if (e.kind == EventKind::Verdict) return;
  context_.on_event(e);
  recorder_.on_event(e, context_);
}

json RunPlotSink::data() { return plot_json(recorder_.finish()); }

json run_plot_of_stream(std::istream& in, const std::string& name) {
  RunPlotSink plot;
  try {
    TraceReader reader(in, name);
    Event e;
    while (reader.next(e)) plot.on_event(e);
  } catch (const std::exception&) {
    return json();
  }
  return plot.data();
}

}  // namespace locksim
