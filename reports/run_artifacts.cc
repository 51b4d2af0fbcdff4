#include "reports/run_artifacts.h"

#include <algorithm>
#include <filesystem>

#include "properties/scenario_check.h"
#include "reports/run_plot.h"
#include "reports/run_summary.h"
#include "reports/timeline.h"
#include "sim/explicit_plan_json.h"
#include "sim/run.h"
#include "traces/output_file.h"
#include "traces/trace_writer.h"

namespace locksim {

namespace {

namespace fs = std::filesystem;

void make_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) throw OutputError(dir.string() + ": cannot create the directory: " + ec.message());
}

// Keeps the first `limit` events of a run.
class FirstEvents final : public EventSink {
 public:
  explicit FirstEvents(size_t limit) : limit_(limit) {}
  void on_event(const Event& e) override {
    if (events.size() < limit_) events.push_back(e);
  }
  std::vector<Event> events;

 private:
  size_t limit_;
};

constexpr size_t kSampleTimelineEvents = 120;

// Renders timelines until dot turns out not to be there; from then on it
// draws nothing and remembers why.
class Drawer {
 public:
  // Whether `path` was drawn.
  bool render(const std::string& dot_text, const fs::path& path) {
    if (!result.timelines_not_drawn.empty()) return false;
    try {
      render_timeline(dot_text, path.string(), "svg");
      return true;
    } catch (const DotNotFound&) {
      result.timelines_not_drawn = kDotMissingReason;
      return false;
    }
  }
  void draw(const std::vector<Event>& events, const Violation& v, const std::string& title, const Scenario& s,
            const fs::path& path) {
    TimelineOptions timeline = timeline_options_for(s);
    timeline.title = title;
    render(violation_timeline_dot(events, v, timeline), path);
  }
  RunArtifacts result;
};

// The campaign's checker configuration: its properties.
CheckConfig artifacts_config(const CampaignOptions& o, const Scenario& s) {
  CheckConfig config = check_config_for(s);
  config.properties = o.properties;
  return config;
}

}  // namespace

RunArtifacts write_run_artifacts(const std::string& dir_name, const CampaignOptions& o, const CampaignResult& r,
                                 BackendSource& source, const std::vector<std::string>& inputs) {
  const fs::path dir(dir_name);
  Drawer drawer;
  if (r.failures.empty()) {
    // Nothing failed: a sample of the first seed instead, drawn by the
    // unsharded campaign or shard 0 only (whose first seed is the campaign's).
    if (o.shard_index != 0 || r.seeds_run == 0) return drawer.result;
    make_dir(dir / "timelines");
    const fs::path svg = dir / kSampleTimelineFile;
    refuse_output_over_input(svg.string(), inputs);
    FirstEvents sample(kSampleTimelineEvents);
    RunPlotSink plot;  // the seed's whole run, for report.html's plots
    FanoutSink both;
    both.add(&sample);
    both.add(&plot);
    check_scenario_on(source, r.scenario, artifacts_config(o, r.scenario), &both);
    const fs::path plot_file = dir / kSamplePlotFile;
    refuse_output_over_input(plot_file.string(), inputs);
    OutputFile plot_out(plot_file.string());
    plot_out.write(plot.data().dump());
    plot_out.commit();
    TimelineOptions timeline = timeline_options_for(r.scenario);
    timeline.title = "seed " + std::to_string(r.scenario.seed) + ", its first " +
                     std::to_string(sample.events.size()) + " events (a sample: no seed failed)";
    drawer.render(timeline_dot(sample.events, timeline), svg);
    return drawer.result;
  }
  make_dir(dir / "failures");
  const size_t drawn_seeds = static_cast<size_t>(std::max(0, o.shrink_seeds));
  if (drawn_seeds > 0) make_dir(dir / "timelines");
  for (size_t j = 0; j < r.failures.size(); ++j) {
    const SeedFailure& f = r.failures[j];
    const bool drawn = j < drawn_seeds;
    const Scenario s = f.scenario_of(r.scenario);
    // The full trace; the history too when a timeline may need it. A
    // guided campaign's plan run: the plan's trace (its header carries it).
    const fs::path trace = dir / failure_trace_file(f.seed);
    refuse_output_over_input(trace.string(), inputs);
    TraceHeader header = make_trace_header(f.plan ? f.plan->scenario : s, source.kind());
    if (f.plan) header.plan = explicit_plan_to_json(*f.plan);
    TraceWriter writer(trace.string(), header);
    VectorSink history;
    FanoutSink fanout;
    fanout.add(&writer);
    if (drawn) fanout.add(&history);
    if (f.plan) {
      check_plan_on(source, *f.plan, artifacts_config(o, s), &fanout);
    } else {
      check_scenario_on(source, s, artifacts_config(o, s), &fanout);
    }
    writer.close();
    if (!drawn) continue;
    const std::vector<std::string> properties = violated_properties(f);
    for (size_t nth = 0; nth < properties.size(); ++nth) {
      const std::string& property = properties[nth];
      if (!has_timeline(f, property)) continue;
      const std::string where = "seed " + std::to_string(f.seed) + ": " + property;
      const fs::path svg = dir / timeline_file(f.seed, property, nth);
      refuse_output_over_input(svg.string(), inputs);
      if (const Counterexample* cx = counterexample_for(f, property)) {
        if (cx->plan) {
          const fs::path shrunk = dir / shrunk_trace_file(f.seed, property, nth);
          refuse_output_over_input(shrunk.string(), inputs);
          TraceHeader header = make_trace_header(cx->plan->scenario, source.kind());
          header.plan = explicit_plan_to_json(*cx->plan);
          TraceWriter shrunk_writer(shrunk.string(), header);
          run_explicit(*cx->plan, source.fresh(cx->plan->scenario), shrunk_writer);
          shrunk_writer.close();
        }
        drawer.draw(cx->events, cx->violation,
                    where + " (shrunk counterexample, " + counterexample_extent(*cx) + ")", s, svg);
        continue;
      }
      // Not shrunk: the seed's history up to the first such violation.
      const auto v = std::find_if(f.violations.begin(), f.violations.end(),
                                  [&](const Violation& x) { return x.property == property; });
      const size_t end = std::min<size_t>(history.events.size(), v->detected_at_event + 1);
      const std::vector<Event> events(history.events.begin(), history.events.begin() + static_cast<std::ptrdiff_t>(end));
      drawer.draw(events, *v, where + " (the seed's history up to the violation, not shrunk)", s, svg);
    }
  }
  return drawer.result;
}

}  // namespace locksim
