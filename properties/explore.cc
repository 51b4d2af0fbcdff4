#include "properties/explore.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>

#include "properties/checker_suite.h"
#include "properties/explore_tape.h"
#include "properties/visited_set.h"
#include "sim/explicit_run.h"
#include "sim/world.h"
#include "traces/event_sink.h"

namespace locksim {

namespace {

constexpr const char* kFaultNames[] = {"crash", "pause", "clock", "restart", "server_clock", "loss", "delay"};

// Nodes expanded at once (in parallel), whatever the number of workers.
// Depth first, the order of the results, hence everything the search
// finds, depends on it. Breadth first it does not (children are merged in
// frontier order, and a chunk only decides how far a replay runs on past
// its state, i.e. the cost): large chunks keep two workers busy (the last
// expansions of a chunk run alone).
constexpr size_t kChunkNodesDepthFirst = 32;
constexpr size_t kChunkNodesBreadthFirst = 512;
constexpr size_t kChunkWalks = 16;
constexpr size_t kNodeOverheadBytes = 48;  // a frontier node besides its path

// What one transition led to (its state and what the checkers said).
struct Outcome {
  uint64_t digest = 0;
  bool terminal = false;             // the run ended there
  std::vector<Violation> failing;    // new violations the policy fails on
  std::vector<std::string> advisory; // properties of new advisory reports
  std::vector<std::string> explained;  // properties of other new reports it does not fail on
};

// The transitions that follow a state on its first options (no fault, on
// time, the first actor at every choice point met), found by running on
// past it in the replay that reached it; `next` is the first not yet
// taken. Expanding a state with a chain takes the chain's next step as its
// first child instead of replaying its path (only its other options, the
// choices that step met, are replayed): a state's first child costs one
// transition, and a long stretch without choices (a waiter polling a free
// lock, once the fault budget is spent) costs one replay in all.
struct Chain {
  std::vector<Outcome> steps;
  std::vector<uint8_t> taken;      // every choice from the start to the last step
  std::vector<uint8_t> options;    // how many options each had
  size_t path_begin = 0;           // taken.size() at the state before steps[0]
  std::vector<size_t> path_end;    // per step: taken.size() after it
};
using ChainRef = std::shared_ptr<const Chain>;

struct Node {
  std::vector<uint8_t> path;
  uint64_t depth = 0;
  ChainRef chain;     // forced continuation, or null
  size_t chain_next = 0;
};

// One transition's outcome.
struct Child {
  std::vector<uint8_t> path;         // every choice from the start
  uint64_t depth = 0;
  Outcome outcome;
  ChainRef chain;                    // the forced continuation from its state
  size_t chain_next = 0;
};

// Steps a replay runs on past the state it was for: forced steps (no
// choice met) at most kMaxChainSteps, and steps that met a choice at most
// kMaxChoiceSteps (beyond a few the states they reach are mostly found
// first by other paths, and the work is wasted).
constexpr size_t kMaxChainSteps = 1 << 16;
constexpr size_t kMaxChoiceSteps = 8;

class EventCounter final : public EventSink {
 public:
  void on_event(const Event&) override { ++events; }
  uint64_t events = 0;
};

// One run from the start, transition by transition.
class PathRun {
 public:
  PathRun(const ExploreConfig& config, BackendSource& source, ExploreTape& tape, EventSink* also)
      : config_(config), tape_(tape), suite_(with_design(config.check, config.plan.scenario.design)) {
    fan_.add(&counter_);
    fan_.add(&suite_);
    if (also != nullptr) fan_.add(also);
    run_.emplace(config.plan, source.fresh(config.plan.scenario), fan_, &tape);
  }

  // One transition: the faults chosen at a new instant (before its actions),
  // or else one live action. False when the run is over (nothing live is
  // due before the quiet time).
  bool transition() {
    World& world = run_->world();
    for (;;) {
      const int64_t t = world.next_live_us(run_->quiet_until_us());
      if (t < 0) return false;
      if (t != fault_instant_) {
        fault_instant_ = t;
        world.advance_to(t);
        if (tape_.node_faults(*run_, t) > 0) return true;
        continue;
      }
      const uint64_t before = world.stats().actions;
      run_->step();
      if (world.stats().actions > before) return true;
    }
  }
  // The run ends here (nothing live is due before the quiet time).
  bool over() { return run_->world().next_live_us(run_->quiet_until_us()) < 0; }
  void finish() { suite_.finish(run_->summary().end_true_us); }
  uint64_t digest() {
    StateDigest d;
    run_->digest(&d);
    d.add(tape_.faults_used());
    d.add(fault_instant_ == run_->world().now_us());
    return d.value();
  }
  CheckerSuite& suite() { return suite_; }
  uint64_t events() const { return counter_.events; }

 private:
  const ExploreConfig& config_;
  ExploreTape& tape_;
  EventCounter counter_;
  CheckerSuite suite_;
  FanoutSink fan_;
  std::optional<ExplicitRun> run_;
  int64_t fault_instant_ = -1;
};

// A worker: its backend source and tape; replays paths.
class Worker {
 public:
  // `visited` is read (never written) while the worker expands: the search
  // changes it only between chunks.
  Worker(const ExploreConfig& config, BackendSource& source, const VisitedSet& visited)
      : config_(config), source_(source), visited_(visited), tape_(config) {}

  // Every transition out of `node`'s state, in the order of their choices.
  // *replayed counts the transitions run.
  void expand(const Node& node, std::vector<Child>* out, uint64_t* replayed) {
    std::vector<std::vector<uint8_t>> todo;
    if (node.chain && node.chain_next < node.chain->steps.size()) {
      // The first child, known from the replay that reached this state;
      // the other options of the choices its step met are replayed.
      const Chain& chain = *node.chain;
      const size_t i = node.chain_next;
      const size_t begin = i == 0 ? chain.path_begin : chain.path_end[i - 1];
      const size_t end = chain.path_end[i];
      Child child;
      child.path.assign(chain.taken.begin(), chain.taken.begin() + static_cast<std::ptrdiff_t>(end));
      child.depth = node.depth + 1;
      child.outcome = chain.steps[i];
      child.chain = node.chain;
      child.chain_next = i + 1;
      out->push_back(std::move(child));
      push_siblings(chain.taken, chain.options, begin, end, &todo);
    } else {
      todo.push_back(node.path);
    }
    while (!todo.empty()) {
      const std::vector<uint8_t> prefix = std::move(todo.back());
      todo.pop_back();
      tape_.start(&prefix, nullptr);
      PathRun run(config_, source_, tape_, nullptr);
      for (uint64_t i = 0; i < node.depth; ++i) {
        if (!run.transition()) throw std::logic_error("explore: a replayed path ended early");
      }
      *replayed += node.depth + 1;
      if (tape_.taken().size() != node.path.size()) {
        throw std::logic_error("explore: a replayed path does not fit its run");
      }
      Child child;
      child.depth = node.depth + 1;
      if (!outcome(run, &child.outcome)) {
        throw std::logic_error("explore: a state taken as live has no transition");
      }
      child.path = tape_.taken();
      push_siblings(tape_.taken(), tape_.options(), prefix.size(), child.path.size(), &todo);
      child.chain = continuation(run, child, replayed);
      out->push_back(std::move(child));
    }
  }

  // One random walk from the start: every transition, until the run ends,
  // a failing violation, or the depth bound.
  void walk(uint64_t index, std::vector<Child>* out, uint64_t* replayed) {
    Rng random = Rng(config_.walk_seed).split(index);
    tape_.start(nullptr, &random);
    PathRun run(config_, source_, tape_, nullptr);
    for (uint64_t depth = 0; depth < static_cast<uint64_t>(config_.max_depth); ++depth) {
      Child child;
      child.depth = depth + 1;
      if (!outcome(run, &child.outcome)) return;
      child.path = tape_.taken();
      ++*replayed;
      const bool stop = child.outcome.terminal || !child.outcome.failing.empty();
      out->push_back(std::move(child));
      if (stop) return;
    }
  }

  // The start's fingerprint, and whether the run is over at once.
  std::pair<uint64_t, bool> start_state() {
    tape_.start(nullptr, nullptr);
    PathRun run(config_, source_, tape_, nullptr);
    const uint64_t digest = run.digest();
    return {digest, run.over()};
  }

  // Replays `path` (depth transitions) recording its history; the plan of
  // the run from the tape.
  ExplicitPlan replay(const std::vector<uint8_t>& path, uint64_t depth, EventSink* history) {
    tape_.start(&path, nullptr);
    PathRun run(config_, source_, tape_, history);
    for (uint64_t i = 0; i < depth; ++i) {
      if (!run.transition()) throw std::logic_error("explore: a counterexample's path ended early");
    }
    if (run.over()) run.finish();
    return tape_.plan(config_.plan);
  }

 private:
  // The other options of the choices taken[begin, end) (met for the first
  // time by one transition), pushed so that they come out of the stack
  // nearest first, in the order of choices.
  static void push_siblings(const std::vector<uint8_t>& taken, const std::vector<uint8_t>& options, size_t begin,
                            size_t end, std::vector<std::vector<uint8_t>>* todo) {
    for (size_t j = begin; j < end; ++j) {
      for (size_t k = options[j]; k-- > 1;) {
        std::vector<uint8_t> sibling(taken.begin(), taken.begin() + static_cast<std::ptrdiff_t>(j));
        sibling.push_back(static_cast<uint8_t>(k));
        todo->push_back(std::move(sibling));
      }
    }
  }

  // Runs on past `child`'s state on first options (Chain), up to a
  // terminal state, a failing violation, a state already visited (the
  // search will not go past it), the depth bound, or the step limits; null
  // when no step was run.
  ChainRef continuation(PathRun& run, const Child& child, uint64_t* replayed) {
    const Outcome* last = &child.outcome;
    uint64_t depth = child.depth;
    auto chain = std::make_shared<Chain>();
    chain->path_begin = tape_.taken().size();
    size_t choice_steps = 0;
    while (!last->terminal && last->failing.empty() && depth < static_cast<uint64_t>(config_.max_depth) &&
           chain->steps.size() < kMaxChainSteps && !visited_.contains(last->digest)) {
      const size_t choices = tape_.taken().size();
      Outcome next;
      if (!outcome(run, &next)) break;
      ++*replayed;
      chain->steps.push_back(std::move(next));
      chain->path_end.push_back(tape_.taken().size());
      last = &chain->steps.back();
      ++depth;
      if (tape_.taken().size() != choices && ++choice_steps >= kMaxChoiceSteps) break;
    }
    if (chain->steps.empty()) return nullptr;
    chain->taken = tape_.taken();
    chain->options = tape_.options();
    return chain;
  }

  // The next transition of `run` into *out; false if the run is over.
  bool outcome(PathRun& run, Outcome* out) {
    Outcome* child = out;
    const uint64_t reports_before = run.suite().reports();
    const uint64_t first_event = run.events();
    if (!run.transition()) return false;
    child->digest = run.digest();
    child->terminal = run.over();
    if (child->terminal) run.finish();
    if (run.suite().reports() == reports_before) return true;
    std::set<std::string> seen;
    for (const Violation& v : run.suite().violations()) {
      if (v.detected_at_event < first_event) continue;
      if (!seen.insert(v.property).second) continue;
      if (config_.policy.fails_unless_fault_named(v)) {
        child->failing.push_back(v);
      } else if (is_advisory_property(v.property)) {
        child->advisory.push_back(v.property);
      } else {
        child->explained.push_back(v.property);
      }
    }
    return true;
  }

  const ExploreConfig& config_;
  BackendSource& source_;
  const VisitedSet& visited_;
  ExploreTape tape_;
};

// Runs fn(worker, index) for index in [0, count) on the workers, one
// thread each; rethrows the exception of the lowest index that threw.
class Pool {
 public:
  explicit Pool(std::vector<std::unique_ptr<Worker>>& workers) : workers_(workers) {
    for (size_t w = 1; w < workers_.size(); ++w) threads_.emplace_back([this, w] { serve(w); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  void run(size_t count, const std::function<void(Worker&, size_t)>& fn) {
    errors_.assign(count, nullptr);
    {
      std::lock_guard<std::mutex> lock(mu_);
      fn_ = &fn;
      count_ = count;
      next_.store(0);
      busy_ = threads_.size();
      ++generation_;
    }
    cv_.notify_all();
    work(*workers_[0]);
    {
      std::unique_lock<std::mutex> lock(mu_);
      done_cv_.wait(lock, [this] { return busy_ == 0; });
      fn_ = nullptr;
    }
    for (const std::exception_ptr& e : errors_) {
      if (e) std::rethrow_exception(e);
    }
  }

 private:
  void work(Worker& worker) {
    for (;;) {
      const size_t i = next_.fetch_add(1);
      if (i >= count_) return;
      try {
        (*fn_)(worker, i);
      } catch (...) {
        errors_[i] = std::current_exception();
      }
    }
  }
  void serve(size_t w) {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
      }
      work(*workers_[w]);
      {
        std::lock_guard<std::mutex> lock(mu_);
        --busy_;
      }
      done_cv_.notify_all();
    }
  }

  std::vector<std::unique_ptr<Worker>>& workers_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable done_cv_;
  const std::function<void(Worker&, size_t)>* fn_ = nullptr;
  size_t count_ = 0;
  std::atomic<size_t> next_{0};
  size_t busy_ = 0;
  uint64_t generation_ = 0;
  bool stopping_ = false;
  std::vector<std::exception_ptr> errors_;
};

// A frontier node's memory: its path, and the chain steps still ahead of
// it (one node of a chain is in the frontier at a time).
size_t node_bytes(const Node& n) {
  const size_t ahead = n.chain ? n.chain->steps.size() - n.chain_next : 0;
  const size_t chain_path = n.chain ? 2 * n.chain->taken.size() : 0;
  return n.path.capacity() + kNodeOverheadBytes + ahead * (sizeof(Outcome) + sizeof(size_t)) + chain_path;
}

class Search {
 public:
  Search(const ExploreConfig& config, const std::vector<BackendSource*>& sources, const ExploreProgress& progress)
      : config_(config), progress_(progress), check_source_(*sources[0]) {
    for (int w = 0; w < config.workers; ++w) {
      workers_.push_back(std::make_unique<Worker>(config, *sources[w], visited_));
    }
  }

  ExploreResult run() {
    Pool pool(workers_);
    const auto [start_digest, start_over] = workers_[0]->start_state();
    visited_.insert(start_digest);
    note_memory();
    if (config_.order == ExploreOrder::RandomWalk) {
      walks(pool);
    } else if (!start_over) {
      expand_all(pool);
    } else {
      result_.complete = true;
    }
    result_.distinct_states = visited_.size();
    finish_counterexamples();
    return result_;
  }

 private:
  // Breadth first: a FIFO frontier; depth first: a stack. Chunks of
  // chunk_nodes nodes are expanded at once, their children merged in order.
  void expand_all(Pool& pool) {
    std::deque<Node> frontier;
    frontier.push_back(Node{{}, 0, nullptr, 0});
    frontier_bytes_ = node_bytes(frontier.back());
    const bool bfs = config_.order == ExploreOrder::BreadthFirst;
    const size_t chunk_nodes = bfs ? kChunkNodesBreadthFirst : kChunkNodesDepthFirst;
    bool depth_cut = false;
    std::vector<Node> chunk;
    std::vector<std::vector<Child>> children;
    std::vector<uint64_t> replayed;
    while (!frontier.empty()) {
      if (stop_for_limits()) return;
      chunk.clear();
      while (!frontier.empty() && chunk.size() < chunk_nodes) {
        if (bfs) {
          chunk.push_back(std::move(frontier.front()));
          frontier.pop_front();
        } else {
          chunk.push_back(std::move(frontier.back()));
          frontier.pop_back();
        }
        frontier_bytes_ -= std::min(frontier_bytes_, node_bytes(chunk.back()));
      }
      children.assign(chunk.size(), {});
      replayed.assign(chunk.size(), 0);
      pool.run(chunk.size(), [&](Worker& w, size_t i) { w.expand(chunk[i], &children[i], &replayed[i]); });
      std::vector<Node> fresh;
      for (size_t i = 0; i < chunk.size(); ++i) {
        result_.replayed_transitions += replayed[i];
        for (Child& child : children[i]) {
          if (!take(child)) continue;
          if (child.depth >= static_cast<uint64_t>(config_.max_depth)) {
            depth_cut = true;
            continue;
          }
          fresh.push_back(Node{std::move(child.path), child.depth, std::move(child.chain), child.chain_next});
        }
      }
      if (bfs) {
        for (Node& n : fresh) {
          frontier_bytes_ += node_bytes(n);
          frontier.push_back(std::move(n));
        }
      } else {
        for (auto it = fresh.rbegin(); it != fresh.rend(); ++it) {
          frontier_bytes_ += node_bytes(*it);
          frontier.push_back(std::move(*it));
        }
      }
      note_memory();
      report_progress();
    }
    if (depth_cut) {
      result_.limit = "max-depth";
    } else {
      result_.complete = true;
    }
  }

  void walks(Pool& pool) {
    std::vector<std::vector<Child>> children;
    std::vector<uint64_t> replayed;
    for (uint64_t first = 0; first < config_.walks; first += kChunkWalks) {
      if (stop_for_limits()) return;
      const size_t count = static_cast<size_t>(std::min<uint64_t>(kChunkWalks, config_.walks - first));
      children.assign(count, {});
      replayed.assign(count, 0);
      pool.run(count, [&](Worker& w, size_t i) { w.walk(first + i, &children[i], &replayed[i]); });
      for (size_t i = 0; i < count; ++i) {
        result_.replayed_transitions += replayed[i];
        for (Child& child : children[i]) take(child);
      }
      note_memory();
      report_progress();
    }
    result_.limit = "walks";  // random walks never cover every schedule
  }

  // Merges one transition; true when its state is new and to be expanded.
  bool take(Child& child) {
    const Outcome& o = child.outcome;
    result_.transitions++;
    result_.max_depth = std::max(result_.max_depth, child.depth);
    for (const std::string& p : o.advisory) result_.advisories[p]++;
    for (const std::string& p : o.explained) result_.explained[p]++;
    if (!o.failing.empty()) {
      for (const Violation& v : o.failing) note_violation(v, child);
      return false;
    }
    if (o.terminal) result_.terminal_transitions++;
    const bool fresh = visited_.insert(o.digest);
    return fresh && !o.terminal;
  }

  void note_violation(const Violation& v, const Child& child) {
    for (size_t i = 0; i < result_.violations.size(); ++i) {
      if (result_.violations[i].violation.property == v.property) {
        result_.violations[i].paths++;
        return;
      }
    }
    ExploreCounterexample cx;
    cx.violation = v;
    cx.depth = child.depth;
    cx.distinct_before = visited_.size();
    cx.paths = 1;
    result_.violations.push_back(std::move(cx));
    paths_.push_back(child.path);
  }

  // Each counterexample's plan and history, from a replay of its path; the
  // plan is run once more on its own (run_explicit) and must give the same
  // history: what replay, check and timeline will see.
  void finish_counterexamples() {
    for (size_t i = 0; i < result_.violations.size(); ++i) {
      ExploreCounterexample& cx = result_.violations[i];
      VectorSink history;
      cx.plan = workers_[0]->replay(paths_[i], cx.depth, &history);
      CheckerSuite suite(with_design(config_.check, cx.plan.scenario.design));
      VectorSink again;
      FanoutSink fan;
      fan.add(&suite);
      fan.add(&again);
      const RunSummary summary = run_explicit(cx.plan, check_source_.fresh(cx.plan.scenario), fan);
      suite.finish(summary.end_true_us);
      const size_t end = static_cast<size_t>(cx.violation.detected_at_event) + 1;
      if (history.events.size() < end || again.events.size() < end ||
          !std::equal(history.events.begin(), history.events.begin() + static_cast<std::ptrdiff_t>(end),
                      again.events.begin())) {
        throw std::logic_error("explore: the counterexample's plan does not replay its path (property " +
                               cx.violation.property + ")");
      }
      cx.events.assign(history.events.begin(), history.events.begin() + static_cast<std::ptrdiff_t>(end));
    }
  }
  bool stop_for_limits() {
    if (visited_.size() >= config_.max_states) {
      result_.limit = "max-states";
      return true;
    }
    if (visited_.bytes_after_growth() + frontier_bytes_ > config_.max_memory_bytes) {
      result_.limit = "max-memory";
      return true;
    }
    return false;
  }
  void note_memory() {
    result_.memory_bytes = std::max<uint64_t>(result_.memory_bytes, visited_.bytes() + frontier_bytes_);
  }
  void report_progress() {
    if (!progress_) return;
    result_.distinct_states = visited_.size();
    progress_(result_);
  }

 private:
  const ExploreConfig& config_;
  ExploreProgress progress_;
  BackendSource& check_source_;  // the first worker's, used after the search
  VisitedSet visited_;  // before the workers, which read it
  std::vector<std::unique_ptr<Worker>> workers_;
  size_t frontier_bytes_ = 0;
  ExploreResult result_;
  std::vector<std::vector<uint8_t>> paths_;  // of result_.violations
};

}  // namespace

const char* explore_fault_name(ExploreFault fault) { return kFaultNames[static_cast<size_t>(fault)]; }

std::optional<ExploreFault> explore_fault_from_name(const std::string& name) {
  for (const ExploreFault f : all_explore_faults()) {
    if (name == explore_fault_name(f)) return f;
  }
  return std::nullopt;
}

std::vector<ExploreFault> all_explore_faults() {
  return {ExploreFault::Crash,       ExploreFault::Pause, ExploreFault::ClientClock, ExploreFault::Restart,
          ExploreFault::ServerClock, ExploreFault::Loss,  ExploreFault::Delay};
}

ExploreResult run_explore(const ExploreConfig& config, const std::vector<BackendSource*>& sources,
                          const ExploreProgress& progress) {
  validate_scenario(config.plan.scenario);
  if (!config.plan.schedule) throw std::invalid_argument("explore: the plan needs a schedule (its latency)");
  if (!config.plan.faults.actions.empty()) throw std::invalid_argument("explore: the plan has fault actions");
  if (config.workers < 1 || sources.size() < static_cast<size_t>(config.workers)) {
    throw std::invalid_argument("explore: one backend source per worker");
  }
  if (config.max_faults < 0 || config.max_depth < 1 || config.max_states < 1 || config.pause_ms < 0 ||
      config.jump_ms < 0) {
    throw std::invalid_argument("explore: bad bounds");
  }
  Search search(config, sources, progress);
  return search.run();
}

}  // namespace locksim
