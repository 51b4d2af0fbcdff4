#include "search/explore.h"

#include <algorithm>
#include <atomic>
#include <chrono>
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
#include <type_traits>
#include <utility>

#include "redis/lua_scripting.h"
#include "properties/cause_search.h"
#include "properties/checker_suite.h"
#include "properties/scenario_check.h"
#include "search/chain_marks.h"
#include "search/explore_tape.h"
#include "search/visited_set.h"
#include "sim/explicit_run.h"
#include "sim/image_buffers.h"
#include "sim/snapshot_arena.h"
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
// expansions of a chunk run alone, and every chunk ends by waiting for the
// slowest worker: beside two other busy processes, two workers took 0.8 to
// 0.9 s on the rlock configuration with chunks of 512 nodes, 0.4 to 0.55 s
// with 2048; on a quiet machine both the same); one worker is faster with
// small ones (the rlock configuration: 3 to 4% with 64 nodes rather than
// 512; a chunk's children, waiting to be merged, stay in the cache).
constexpr size_t kChunkNodesDepthFirst = 32;
constexpr size_t kChunkNodesBreadthFirst = 2048;
constexpr size_t kChunkNodesBreadthFirstOneWorker = 64;
constexpr size_t kChunkWalks = 16;
constexpr size_t kNodeOverheadBytes = 48;  // a frontier node besides its path

struct StateCopies;

// A state copied for replays (sim/snapshot_arena.h): a replay of a path
// through that state restores a copy and runs only the transitions after
// it. A worker restores only copies of its own arena; no copies: the start
// (every worker has its own).
struct Checkpoint {
  std::shared_ptr<StateCopies> copies;
  uint64_t depth = 0;   // transitions from the start to its state
  int owner = -1;       // the worker that made it
};

// A replay that ran at least this many transitions from its checkpoint
// leaves a new one at the state it reached (if memory allows): a copy costs
// about as much as a few transitions. (Measured with one worker's chunks
// of 64 nodes: 6 rather than 8, with node copies after one transition
// rather than two, is 4% faster on the rlock configuration and 10% on the
// fair one, for 20% more checkpoint memory.)
constexpr uint64_t kCheckpointSteps = 6;
// A replay of at least this many transitions to the state of the node
// being expanded that left no checkpoint there copies that state for the
// node's other children: they restore it and run no transition before
// theirs.
constexpr uint64_t kNodeCopySteps = 1;
// A node whose checkpoint is another worker's is taken by a worker with
// nothing of its own left only up to this depth (it may replay much of the
// path: from the nearest checkpoint above that it has a copy of, the start
// at worst).
constexpr uint64_t kStealDepth = 64;

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
  Checkpoint from;    // replays of its path start there
  size_t bytes = 0;   // node_bytes() when it joined the frontier
};

// One transition's outcome.
struct Child {
  std::vector<uint8_t> path;         // every choice from the start
  uint64_t depth = 0;
  Outcome outcome;
  ChainRef chain;                    // the forced continuation from its state
  size_t chain_next = 0;
  Checkpoint from;                   // the latest checkpoint on its path
};

// Steps a replay runs on past the state it was for: forced steps (no
// choice met) at most kMaxChainSteps. It stops before a step that starts
// with a choice (faults at a new instant, a pick among actors), and after
// one that met a choice inside (a message's fate). The states past a
// choice are mostly found first by other paths (their work is wasted), and
// the options of a choice are replayed from the state before it anyway:
// going on for up to 8 steps past choices cost the fair configuration 1.8
// times the transitions; stopping before the choices it can foresee, instead
// of after, saves the rlock one 11% of its transitions.
constexpr size_t kMaxChainSteps = 1 << 16;

class EventCounter final : public EventSink {
 public:
  void on_event(const Event&) override { ++events; }
  uint64_t events = 0;
};

// One run from the start, transition by transition.
class PathRun {
 public:
  PathRun(const ExploreConfig& config, Backend& backend, ExploreTape& tape, EventSink* also)
      : tape_(tape), suite_(config_for_scenario(config.check, config.plan.scenario)) {
    fan_.add(&counter_);
    fan_.add(&suite_);
    if (also != nullptr) fan_.add(also);
    run_.emplace(config.plan, backend, fan_, &tape);
  }

  // One transition: the faults chosen at a new instant (before its actions),
  // or else one live action. False when the run is over (nothing live is
  // due before the quiet time).
  bool transition() {
    World& world = run_->world();
    for (;;) {
      const int64_t t = next_live_us();
      if (t < 0) return false;
      live_known_ = false;  // a fault or a step follows
      if (t != fault_instant_) {
        fault_instant_ = t;
        world.advance_to(t);
        if (tape_.node_faults(*run_, t) > 0) return true;
        // No fault: the queue is as next_live_us() left it, with live
        // actions at t.
      }
      const uint64_t before = world.stats().actions;
      run_->step();
      if (world.stats().actions > before) return true;
    }
  }
  // The next transition starts with a choice: faults at a new instant, or
  // a pick among the actors due.
  bool choice_next() {
    const int64_t t = next_live_us();
    if (t < 0) return false;
    if (t != fault_instant_ && tape_.fault_choice_possible(*run_)) return true;
    return run_->world().due_pick_pending();
  }
  // The run ends here (nothing live is due before the quiet time).
  bool over() { return next_live_us() < 0; }
  void finish() { suite_.finish(run_->summary().end_true_us); }
  // The state's fingerprint, with the buffers of *scratch (the worker's,
  // outside any arena; they grow outside it too: the fingerprint only reads
  // the run). The dead actions it counted are then dropped, in the arena
  // when the run is in one.
  uint64_t digest(DigestScratch* scratch) {
    StateDigest d;
    QueueCensus census;
    {
      const SnapshotArena::Pause scratch_outside;
      census = run_->digest(&d, scratch);
    }
    if (census.worth_purging()) run_->world().purge_dead();
    d.add(tape_.faults_used());
    d.add(fault_instant_ == run_->world().now_us());
    return d.value();
  }
  CheckerSuite& suite() { return suite_; }
  uint64_t events() const { return counter_.events; }

 private:
  ExploreTape& tape_;
  EventCounter counter_;
  CheckerSuite suite_;
  FanoutSink fan_;
  std::optional<ExplicitRun> run_;
  int64_t fault_instant_ = -1;
  // The world's next_live_us(quiet time), known until the next fault or
  // step: asking again would drop and defer nothing more, and give the same
  // instant (the fingerprint's purge only drops dead actions).
  bool live_known_ = false;
  int64_t live_us_ = -1;

  int64_t next_live_us() {
    if (!live_known_) {
      live_us_ = run_->world().next_live_us(run_->quiet_until_us());
      live_known_ = true;
    }
    return live_us_;
  }
};

// A run that lives in a worker's arena, with its tape and its backend:
// built once; then restored from copies (the start's, checkpoints).
struct ArenaRun {
  ArenaRun(const ExploreConfig& config, std::unique_ptr<Backend> copyable)
      : tape(config), backend(std::move(copyable)), run(config, *backend, tape, nullptr) {}
  ExploreTape tape;
  std::unique_ptr<Backend> backend;
  PathRun run;
};

// Checkpoints' memory, shared by the workers: a new one is made only while
// the copies alive and the search's own memory (set between chunks) stay
// within the bound. The copies' buffers are reused (a new buffer's pages
// would each be faulted in and cleared), and come from huge-page slabs
// (sim/image_buffers.h: the rlock configuration faulted in 13,300 pages,
// two thirds of them for checkpoints).
struct CheckpointMemory {
  explicit CheckpointMemory(uint64_t max) : max_bytes(max) {}
  const uint64_t max_bytes;
  std::atomic<uint64_t> search_bytes{0};  // the visited set, the frontier and the chain marks
  std::atomic<uint64_t> image_bytes{0};
  bool room_for(uint64_t bytes) const { return search_bytes.load() + image_bytes.load() + bytes <= max_bytes; }

  // An image to save into (a spare one, or a new one).
  std::unique_ptr<SnapshotArena::Image> take() {
    std::lock_guard<std::mutex> lock(mu);
    if (spare.empty()) return std::make_unique<SnapshotArena::Image>(&buffers);
    std::unique_ptr<SnapshotArena::Image> image = std::move(spare.back());
    spare.pop_back();
    return image;
  }
  void give_back(SnapshotArena::Image* image) {
    image_bytes -= image->bytes();
    std::lock_guard<std::mutex> lock(mu);
    spare.emplace_back(image);
  }
  std::mutex mu;
  ImageBuffers buffers;  // before the images, which give their buffers back to it
  std::vector<std::unique_ptr<SnapshotArena::Image>> spare;
};

// A checkpoint's copies of its state, one per worker at most: the worker
// that made it has the first; another one that expands a node through it
// makes its own (a copy holds pointers into its maker's arena: it replays
// the path from the nearest checkpoint above that it has a copy of, the
// start at worst) and keeps it for the next nodes it takes through the same
// state. (Two workers on the rlock configuration: 0.18 million transitions
// run when such nodes were replayed from the start, 0.17 million with these
// copies; one worker runs 0.155.) Only worker w reads or
// writes images[w]; the copies go back to the memory with the last
// reference, and each checkpoint keeps the one above it alive (with more
// than one worker).
struct StateCopies {
  StateCopies(CheckpointMemory& m, size_t workers) : memory(m), images(workers, nullptr) {}
  ~StateCopies() {
    for (SnapshotArena::Image* image : images) {
      if (image != nullptr) memory.give_back(image);
    }
    // The ancestors only this one keeps alive go one by one, not by
    // recursion (a deep search makes long lines of them). A count of one
    // cannot grow meanwhile: no one else holds the pointer.
    std::shared_ptr<StateCopies> up = std::move(parent.copies);
    while (up && up.use_count() == 1) {
      std::shared_ptr<StateCopies> next = std::move(up->parent.copies);
      up = std::move(next);
    }
  }
  StateCopies(const StateCopies&) = delete;
  StateCopies& operator=(const StateCopies&) = delete;
  CheckpointMemory& memory;
  std::vector<SnapshotArena::Image*> images;
  Checkpoint parent;  // the one the replay that made it started from
};

// A worker: its backend source and tape; replays paths. When the source
// makes copyable backends (model, lua), the worker's runs live in its arena:
// a run from the start restores the start's copy instead of building a
// world, and a replay that ran kCheckpointSteps transitions or more from
// its checkpoint copies the state it reached, from which the replays of
// the paths through it start (a shorter one, of kNodeCopySteps or more,
// copies it only for the other children of the node). A node whose
// checkpoint another worker made is expanded from this worker's own copy of
// that state (StateCopies), made the first time. Otherwise each run is
// built anew and replays from the start. The transitions taken, hence
// everything the search finds, are the same either way.
class Worker {
 public:
  // `visited` is only read here (contains, prefetch: a continuation stops
  // at a state already in it); the search may insert into it while the
  // worker expands, never grow it. `index`: the worker's place.
  Worker(const ExploreConfig& config, BackendSource& source, const VisitedSet& visited, int index,
         CheckpointMemory& memory)
      : config_(config), source_(source), visited_(visited), tape_(config), index_(index), memory_(memory) {
    try {
      arena_ = std::make_unique<SnapshotArena>();
    } catch (const std::bad_alloc&) {
      return;  // no address range for it: runs are built anew (same results, slower)
    }
    in_arena([&] {
      std::unique_ptr<Backend> backend = source.make_copyable(config.plan.scenario);
      if (backend) live_ = new ArenaRun(config, std::move(backend));  // dropped with the arena
    });
    if (live_ == nullptr) {
      arena_.reset();
      return;
    }
    start_ = arena_->save();
  }
  int index() const { return index_; }
  // Between chunks: the memory of its chain marks.
  size_t marks_bytes() const { return marks_.bytes(); }
  // A new chunk, whose shallowest node is at `depth`.
  void new_chunk(uint64_t depth, bool breadth_first) {
    if (breadth_first) {
      marks_.new_chunk(depth);
    } else {
      marks_.clear();
    }
  }

  // Every transition out of `node`'s state, in the order of their choices.
  // *replayed counts the transitions run.
  void expand(const Node& node, std::vector<Child>* out, uint64_t* replayed) {
    Checkpoint from = node.from;
    if (from.copies && !own_copy(node, from, replayed)) from = Checkpoint{};
    std::vector<std::vector<uint8_t>> todo;
    if (node.chain && node.chain_next < node.chain->steps.size()) {
      // The first child, known from the replay that reached this state;
      // the other options of the choices its step met are replayed.
      const Chain& chain = *node.chain;
      const size_t i = node.chain_next;
      const size_t begin = i == 0 ? chain.path_begin : chain.path_end[i - 1];
      const size_t end = chain.path_end[i];
      Child child;
      child.depth = node.depth + 1;
      child.outcome = chain.steps[i];
      if (!merged_before(child.outcome)) {
        child.path.assign(chain.taken.begin(), chain.taken.begin() + static_cast<std::ptrdiff_t>(end));
        child.chain = node.chain;
        child.chain_next = i + 1;
        child.from = node.from;
      }
      out->push_back(std::move(child));
      push_siblings(chain.taken, chain.options, begin, end, &todo);
    } else {
      todo.push_back(node.path);
    }
    bool at_node_copy = false;  // node_copy_ holds this node's state
    while (!todo.empty()) {
      const std::vector<uint8_t> prefix = std::move(todo.back());
      todo.pop_back();
      PathRun& run = at_node_copy ? resume(node_copy_, &prefix) : start_at(from, &prefix);
      if (!at_node_copy) {
        const uint64_t steps = node.depth - from.depth;
        run_on(run, steps, "explore: a replayed path ended early");
        *replayed += steps;
        if (steps >= kCheckpointSteps) checkpoint(node.depth, &from);
        if (arena_ && from.depth != node.depth && steps >= kNodeCopySteps) {
          // No checkpoint here (a short replay, or no memory left for one).
          arena_->save_into(&node_copy_);
          at_node_copy = true;
        }
      }
      ++*replayed;
      if (tape().taken().size() != node.path.size()) {
        throw std::logic_error("explore: a replayed path does not fit its run");
      }
      Child child;
      child.depth = node.depth + 1;
      if (!outcome(run, &child.outcome)) {
        throw std::logic_error("explore: a state taken as live has no transition");
      }
      push_siblings(tape().taken(), tape().options(), prefix.size(), tape().taken().size(), &todo);
      if (!merged_before(child.outcome)) {
        child.path = tape().taken();
        child.from = from;
        child.chain = continuation(run, child, replayed);
      }
      out->push_back(std::move(child));
    }
  }

  // A child whose state an earlier merge took (the visited set only grows,
  // so the merge of this child will not take it): the merge only counts
  // its transition (Search::take), so it carries no path, checkpoint or
  // chain (their copies and frees were a tenth of two workers' time, the
  // checkpoints' reference counts shared between threads). A continuation
  // from it would stop at once. One that fails is kept whole: its path
  // may be a counterexample's.
  bool merged_before(const Outcome& o) const { return o.failing.empty() && visited_.contains(o.digest); }

  // One random walk from the start: every transition, until the run ends,
  // a failing violation, or the depth bound.
  void walk(uint64_t index, std::vector<Child>* out, uint64_t* replayed) {
    Rng random = Rng(config_.walk_seed).split(index);
    PathRun& run = start_run(nullptr, &random);
    for (uint64_t depth = 0; depth < static_cast<uint64_t>(config_.max_depth); ++depth) {
      Child child;
      child.depth = depth + 1;
      if (!outcome(run, &child.outcome)) return;
      child.path = tape().taken();
      ++*replayed;
      const bool stop = child.outcome.terminal || !child.outcome.failing.empty();
      out->push_back(std::move(child));
      if (stop) return;
    }
  }

  // The start's fingerprint, and whether the run is over at once.
  std::pair<uint64_t, bool> start_state() {
    PathRun& run = start_run(nullptr, nullptr);
    return in_arena([&] { return std::pair<uint64_t, bool>(run.digest(&digest_scratch_), run.over()); });
  }

  // Replays `path` (depth transitions) recording its history; the plan of
  // the run from the tape. Built anew, never in the arena: `history` is
  // outside it.
  ExplicitPlan replay(const std::vector<uint8_t>& path, uint64_t depth, EventSink* history) {
    PathRun& run = build_anew(&path, nullptr, history);
    for (uint64_t i = 0; i < depth; ++i) {
      if (!run.transition()) throw std::logic_error("explore: a counterexample's path ended early");
    }
    if (run.over()) run.finish();
    return tape_.plan(config_.plan);
  }

 private:
  // A run from the start that follows `prefix` (null: none), then takes
  // first options, or random ones from `random` (not null).
  PathRun& start_run(const std::vector<uint8_t>* prefix, Rng* random) {
    if (arena_) {
      arena_->restore(start_);
      live_->tape.start(prefix, random);
      return live_->run;
    }
    return build_anew(prefix, random, nullptr);
  }
  // A run built anew outside any arena, as start_run()'s, that also
  // streams its events into `history` (null: none).
  PathRun& build_anew(const std::vector<uint8_t>* prefix, Rng* random, EventSink* history) {
    tape_.start(prefix, random);
    own_.reset();  // before fresh(), which drops the backend it ran on
    return own_.emplace(config_, source_.fresh(config_.plan.scenario), tape_, history);
  }
  // A run at checkpoint `from` (this worker's, or the start) that follows
  // `prefix`, which begins with the choices taken to reach it.
  PathRun& start_at(const Checkpoint& from, const std::vector<uint8_t>* prefix) {
    if (!from.copies) return start_run(prefix, nullptr);
    return resume(*from.copies->images[static_cast<size_t>(index_)], prefix);
  }
  // Whether this worker has a copy of checkpoint `from` (on `node`'s path):
  // its own, or one it makes now, if memory allows, by a replay from the
  // nearest checkpoint above it that it has a copy of (the start at worst;
  // *replayed counts the transitions).
  bool own_copy(const Node& node, const Checkpoint& from, uint64_t* replayed) {
    SnapshotArena::Image*& mine = from.copies->images[static_cast<size_t>(index_)];
    if (mine != nullptr) return true;
    if (!arena_ || !memory_.room_for(arena_->used_bytes())) return false;
    // The nearest checkpoint above it that this worker has a copy of, or the start.
    const Checkpoint* base = &from.copies->parent;
    while (base->copies && base->copies->images[static_cast<size_t>(index_)] == nullptr) {
      base = &base->copies->parent;
    }
    PathRun& run = start_at(*base, &node.path);
    run_on(run, from.depth - base->depth, "explore: a replayed path ended early");
    *replayed += from.depth - base->depth;
    mine = save_copy();
    return true;
  }
  // A copy of the arena's state, counted in the checkpoints' memory.
  SnapshotArena::Image* save_copy() {
    SnapshotArena::Image* image = memory_.take().release();
    arena_->save_into(image);
    memory_.image_bytes += image->bytes();
    return image;
  }
  // The arena's run at the state `image` (of this arena) holds, to follow
  // `prefix`, which begins with the choices taken to reach it.
  PathRun& resume(const SnapshotArena::Image& image, const std::vector<uint8_t>* prefix) {
    arena_->restore(image);
    live_->tape.follow(prefix);
    return live_->run;
  }
  // Makes the state of the arena's run (depth transitions from the start)
  // the new checkpoint *from, when there is an arena and memory allows.
  void checkpoint(uint64_t depth, Checkpoint* from) {
    if (!arena_ || !memory_.room_for(arena_->used_bytes())) return;
    auto copies = std::make_shared<StateCopies>(memory_, static_cast<size_t>(config_.workers));
    copies->images[static_cast<size_t>(index_)] = save_copy();
    // One worker alone never copies another's checkpoint: no need to keep
    // the ones above alive.
    if (config_.workers > 1) copies->parent = std::move(*from);
    from->copies = std::move(copies);
    from->depth = depth;
    from->owner = index_;
  }
  ExploreTape& tape() { return arena_ ? live_->tape : tape_; }

  // Runs `transitions` transitions of `run`; throws logic_error(`why`) if
  // it ends before.
  void run_on(PathRun& run, uint64_t transitions, const char* why) {
    in_arena([&] {
      for (uint64_t i = 0; i < transitions; ++i) {
        if (!run.transition()) throw std::logic_error(why);
      }
    });
  }

  // fn(), with this thread's allocations in the arena when there is one.
  // An exception from inside is rethrown as a copy made outside it: its
  // message may live in the arena, which is restored before anyone reads it.
  template <class Fn>
  std::invoke_result_t<Fn&> in_arena(Fn&& fn) {
    if (!arena_) return fn();
    try {
      SnapshotArena::Scope scope(*arena_);
      return fn();
    } catch (const ScenarioError& e) {
      throw ScenarioError(e.what());
    } catch (const LuaScriptAbort& e) {  // the pack's Lua stopped the run: the caller says so in one line
      throw LuaScriptAbort(e.what());
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(e.what());
    } catch (const std::logic_error& e) {
      throw std::logic_error(e.what());
    } catch (const std::exception& e) {
      throw std::runtime_error(e.what());
    }
  }

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
    chain->path_begin = tape().taken().size();
    while (!last->terminal && last->failing.empty() && depth < static_cast<uint64_t>(config_.max_depth) &&
           chain->steps.size() < kMaxChainSteps && !visited_.contains(last->digest) &&
           !marks_.stop_at(last->digest, depth, child.depth) && !in_arena([&] { return run.choice_next(); })) {
      const size_t choices = tape().taken().size();
      Outcome next;
      if (!outcome(run, &next)) break;
      ++*replayed;
      chain->steps.push_back(std::move(next));
      chain->path_end.push_back(tape().taken().size());
      last = &chain->steps.back();
      ++depth;
      if (tape().taken().size() != choices) break;
    }
    if (chain->steps.empty()) return nullptr;
    chain->taken = tape().taken();
    chain->options = tape().options();
    return chain;
  }

  // The next transition of `run` into *out; false if the run is over.
  bool outcome(PathRun& run, Outcome* out) {
    Outcome* child = out;
    const uint64_t reports_before = run.suite().reports();
    const uint64_t first_event = run.events();
    const bool moved = in_arena([&] {
      if (!run.transition()) return false;
      child->digest = run.digest(&digest_scratch_);
      // Looked up once the transition is taken (continuation()).
      visited_.prefetch(child->digest);
      marks_.prefetch(child->digest);
      child->terminal = run.over();
      if (child->terminal) run.finish();
      return true;
    });
    if (!moved) return false;
    if (run.suite().reports() == reports_before) return true;
    std::set<std::string> seen;
    for (const Violation& v : run.suite().violations()) {
      if (v.detected_at_event < first_event) continue;
      if (!seen.insert(v.property).second) continue;
      if (config_.policy.fail_on.count(v.property) != 0) {
        child->failing.push_back(v);  // --unexplained-only: judged by the search (Search::judged)
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
  ExploreTape tape_;                 // of runs built anew
  std::optional<PathRun> own_;       // the last run built anew
  int index_;
  CheckpointMemory& memory_;
  // The states this worker's continuations passed: a continuation stops
  // at one whose other continuation's state is merged first.
  ChainMarks marks_;
  std::unique_ptr<SnapshotArena> arena_;  // null: runs are built anew
  ArenaRun* live_ = nullptr;         // in arena_ (same address in every copy)
  SnapshotArena::Image start_;       // arena_ at the start
  SnapshotArena::Image node_copy_;   // the state of the node being expanded
  DigestScratch digest_scratch_;     // the fingerprints' buffers
};

// Runs fn(worker, index) for index in [0, count) on the workers, one
// thread each; rethrows the exception of the lowest index that threw.
// With owners (per index: a worker's place, -1: none; `strict`: only that
// worker takes it), each worker first takes the indexes it owns, in
// order, then those whose `holders` (a bit per worker) include it, then
// any other left that is not strict, each from the last.
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

  void run(size_t count, const std::function<void(Worker&, size_t)>& fn, const std::vector<int>& owners = {},
           const std::vector<char>& strict = {}, const std::vector<uint64_t>& holders = {}) {
    start(count, fn, owners, strict, holders);
    finish();
  }
  // run() in two halves: start() sets the other threads to work and
  // returns at once (the calling thread may do something else meanwhile);
  // finish() takes part until every item is done. `fn`, `owners`,
  // `strict` and `holders` must live until finish() returns.
  void start(size_t count, const std::function<void(Worker&, size_t)>& fn, const std::vector<int>& owners,
             const std::vector<char>& strict, const std::vector<uint64_t>& holders) {
    assert(owners.empty() || owners.size() == count);
    assert(strict.empty() || strict.size() == count);
    assert(holders.empty() || holders.size() == count);
    assert(!started_);
    started_ = true;
    inline_fn_ = nullptr;
    if (count < kPoolMinItems && !strict_to_another(strict, owners)) {
      // A narrow frontier: the calling thread runs the few items in
      // finish(), no thread is woken (and their children stay with one
      // worker).
      inline_fn_ = &fn;
      inline_count_ = count;
      return;
    }
    errors_.assign(count, nullptr);
    claimed_ = std::make_unique<std::atomic<bool>[]>(count);
    {
      std::lock_guard<std::mutex> lock(mu_);
      fn_ = &fn;
      owners_ = &owners;
      strict_ = &strict;
      holders_ = &holders;
      count_ = count;
      busy_ = threads_.size();
      ++generation_;
    }
    cv_.notify_all();
  }
  void finish() {
    assert(started_);
    started_ = false;
    if (inline_fn_ != nullptr) {
      const std::function<void(Worker&, size_t)>& fn = *std::exchange(inline_fn_, nullptr);
      for (size_t i = 0; i < inline_count_; ++i) fn(*workers_[0], i);
      return;
    }
    work(*workers_[0]);
    {
      const std::unique_lock<std::mutex> lock = lock_when(done_cv_, [this] { return busy_ == 0; });
      fn_ = nullptr;
      owners_ = nullptr;
      strict_ = nullptr;
      holders_ = nullptr;
    }
    for (const std::exception_ptr& e : errors_) {
      if (e) std::rethrow_exception(e);
    }
  }
 private:
  // Fewer items than this run on the calling thread alone.
  static constexpr size_t kPoolMinItems = 8;
  static bool strict_to_another(const std::vector<char>& strict, const std::vector<int>& owners) {
    for (size_t i = 0; i < strict.size(); ++i) {
      if (strict[i] && owners[i] != 0) return true;
    }
    return false;
  }

  // mu_, held once done() is true (`cv` is notified when it may become
  // so). Yields the processor for up to kSpinTime first, and only then
  // sleeps on `cv`: a deep search with a narrow frontier runs tens of
  // thousands of small chunks, and waking a sleeping thread for each cost
  // more than its work (the fair configuration on 2 workers: 3.9 s, against
  // 1.4 s with a spin of 1,000 yields). A sleeping worker is also woken late
  // (on this virtual machine: a median of 0.6 to 1.4 ms per chunk, the
  // rlock search on 2 workers has about 70 chunks; the woken thread is
  // often put on its waker's CPU), and 1,000 yields took less than the
  // median gap between two chunks. A spin measured in time covers the gaps:
  // rlock searches on 2 workers as processes of their own, paired with the
  // old spin in three spells: medians 1.06, 1.19 and 1.11 times as fast
  // (four of twenty pairs slower, 0.92 to 0.99, all in the slowest spell);
  // the fair configuration on 2 workers 15% faster, on 4 the same.
  // A yield gives the processor to any other thread that wants it, so a
  // machine with more workers than CPUs loses little to the spin.
  template <class Done>
  std::unique_lock<std::mutex> lock_when(std::condition_variable& cv, Done done) {
    const auto give_up = std::chrono::steady_clock::now() + kSpinTime;
    for (unsigned i = 1; !done(); ++i) {
      if (i % kSpinsPerClockRead == 0 && std::chrono::steady_clock::now() >= give_up) break;
      std::this_thread::yield();
    }
    std::unique_lock<std::mutex> lock(mu_);
    cv.wait(lock, done);
    return lock;
  }
  static constexpr std::chrono::milliseconds kSpinTime{50};
  static constexpr unsigned kSpinsPerClockRead = 64;  // yields between two looks at the clock

  void work(Worker& worker) {
    const std::vector<int>& owners = *owners_;
    for (size_t i = 0; i < owners.size(); ++i) {
      if (owners[i] == worker.index()) take(worker, i);
    }
    const std::vector<char>& strict = *strict_;
    const std::vector<uint64_t>& holders = *holders_;
    if (!holders.empty()) {
      const uint64_t me = uint64_t{1} << worker.index();
      for (size_t i = count_; i-- > 0;) {
        if ((holders[i] & me) != 0) take(worker, i);
      }
    }
    for (size_t i = count_; i-- > 0;) {
      if (strict.empty() || !strict[i] || owners[i] == worker.index()) take(worker, i);
    }
  }
  void take(Worker& worker, size_t i) {
    if (claimed_[i].exchange(true)) return;
    try {
      (*fn_)(worker, i);
    } catch (...) {
      errors_[i] = std::current_exception();
    }
  }
  void serve(size_t w) {
    uint64_t seen = 0;
    for (;;) {
      {
        const std::unique_lock<std::mutex> lock = lock_when(cv_, [&] { return stopping_ || generation_ != seen; });
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
  const std::vector<int>* owners_ = nullptr;
  const std::vector<char>* strict_ = nullptr;
  const std::vector<uint64_t>* holders_ = nullptr;
  size_t count_ = 0;
  std::unique_ptr<std::atomic<bool>[]> claimed_;  // per index: taken by a worker
  // Changed under mu_; read without it while spinning (lock_when).
  std::atomic<size_t> busy_{0};
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stopping_{false};
  std::vector<std::exception_ptr> errors_;
  bool started_ = false;  // between start() and finish()
  const std::function<void(Worker&, size_t)>* inline_fn_ = nullptr;  // a narrow run, for finish()
  size_t inline_count_ = 0;
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
      : config_(config), progress_(progress), check_source_(*sources[0]), checkpoints_(config.max_memory_bytes) {
    for (int w = 0; w < config.workers; ++w) {
      workers_.push_back(std::make_unique<Worker>(config, *sources[w], visited_, w, checkpoints_));
    }
    if (config.policy.unexplained_only) {
      judge_source_ = sources[static_cast<size_t>(config.workers)];
      judge_ = std::make_unique<Worker>(config, *judge_source_, visited_, config.workers, checkpoints_);
    }
  }

  ExploreResult run() {
    Pool pool(workers_);
    const auto [start_digest, start_over] = workers_[0]->start_state();
    visited_.insert(start_digest);
    note_marks();
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
  // A chunk of frontier nodes and what their expansion gives.
  struct Batch {
    std::vector<Node> chunk;
    std::vector<std::vector<Child>> children;  // per node
    std::vector<int> producers;                // per node: the worker that filled its children
    // Per worker: the children it made in this batch's last round, merged
    // since, for it to free (memory freed by the thread that allocated it;
    // with any worker freeing them, two workers spent five times one
    // worker's time destroying children)
    std::vector<std::vector<std::vector<Child>>> spent;
    std::vector<uint64_t> replayed;
    std::vector<int> owners;
    std::vector<char> strict;
    std::vector<uint64_t> holders;  // per node: the workers that have a copy of its state's checkpoint
    size_t bytes = 0;  // the chunk's nodes' (node_bytes)
    std::function<void(Worker&, size_t)> expand;
  };

  // Breadth first: a FIFO frontier; depth first: a stack. Chunks of
  // chunk_nodes nodes are expanded at once, their children merged in order.
  // Breadth first with more than one worker, the next chunk (what the
  // frontier holds, up to chunk_nodes) starts before this one's merge,
  // which only adds at the frontier's back: the workers expand it while
  // this thread merges (with two workers, the merge was a tenth of the
  // rlock search's time, the other worker idle), then this thread joins
  // them. Breadth first, what a search finds does not depend on how the
  // frontier is cut into chunks. The limits are checked where they would be without the overlap
  // (a chunk started ahead of a limit is dropped), and the visited set does
  // not grow while workers read it: an insert that would grow it waits for
  // them.
  void expand_all(Pool& pool) {
    std::deque<Node> frontier;
    frontier.push_back(Node{});
    frontier.back().bytes = node_bytes(frontier.back());
    frontier_bytes_ = frontier.back().bytes;
    const bool bfs = config_.order == ExploreOrder::BreadthFirst;
    const size_t chunk_nodes = config_.chunk_nodes > 0 ? config_.chunk_nodes
                               : !bfs                   ? kChunkNodesDepthFirst
                               : config_.workers == 1   ? kChunkNodesBreadthFirstOneWorker
                                                        : kChunkNodesBreadthFirst;
    const bool overlap = bfs && config_.workers > 1;
    bool depth_cut = false;
    Batch batches[2];
    Batch* batch = &batches[0];
    Batch* ahead = &batches[1];
    bool ahead_running = false;       // started, not finished
    bool ahead_ready = false;         // started (and maybe finished) for the next round
    std::exception_ptr ahead_error;   // from finishing it early
    std::vector<Node> fresh;          // depth first: a chunk's new states, in order
    const auto finish_ahead = [&] {
      if (!ahead_running) return;
      ahead_running = false;
      try {
        pool.finish();
      } catch (...) {
        ahead_error = std::current_exception();
      }
    };
    while (ahead_ready || !frontier.empty()) {
      if (ahead_ready) {
        std::swap(batch, ahead);
        ahead_ready = false;
        frontier_bytes_ -= std::min(frontier_bytes_, batch->bytes);
        finish_ahead();
        if (ahead_error) std::rethrow_exception(std::exchange(ahead_error, nullptr));
        note_marks();
      } else {
        if (stop_for_limits()) return;
        fill(frontier, chunk_nodes, bfs, batch);
        frontier_bytes_ -= std::min(frontier_bytes_, batch->bytes);
        pool.run(batch->chunk.size(), batch->expand, batch->owners, batch->strict, batch->holders);
        note_marks();
      }
      if (overlap && !frontier.empty()) {
        fill(frontier, chunk_nodes, bfs, ahead);
        pool.start(ahead->chunk.size(), ahead->expand, ahead->owners, ahead->strict, ahead->holders);
        ahead_running = true;
        ahead_ready = true;
      }
      try {
        merge(*batch, bfs, &frontier, &fresh, &depth_cut, finish_ahead);
        note_memory();
        report_progress();
      } catch (...) {
        finish_ahead();  // the workers hold references to `ahead`
        throw;
      }
      if (ahead_ready && stop_for_limits()) {
        finish_ahead();  // dropped, with any error it had
        return;
      }
    }
    if (depth_cut) {
      result_.limit = "max-depth";
    } else {
      result_.complete = true;
    }
  }

  // Takes the next chunk off the frontier into *b (its nodes' bytes stay
  // counted in the frontier's until the caller takes them off) and makes it
  // ready to expand: the workers must be idle.
  void fill(std::deque<Node>& frontier, size_t chunk_nodes, bool bfs, Batch* b) {
    b->chunk.clear();
    b->bytes = 0;
    while (!frontier.empty() && b->chunk.size() < chunk_nodes) {
      if (bfs) {
        b->chunk.push_back(std::move(frontier.front()));
        frontier.pop_front();
      } else {
        b->chunk.push_back(std::move(frontier.back()));
        frontier.pop_back();
      }
      b->bytes += b->chunk.back().bytes;
    }
    b->spent.resize(workers_.size());
    for (size_t i = 0; i < b->children.size(); ++i) {
      if (b->producers[i] >= 0 && !b->children[i].empty()) {
        b->spent[static_cast<size_t>(b->producers[i])].push_back(std::move(b->children[i]));
      }
    }
    b->children.clear();
    b->children.resize(b->chunk.size());
    b->producers.assign(b->chunk.size(), -1);
    b->replayed.assign(b->chunk.size(), 0);
    uint64_t shallowest = b->chunk.front().depth;
    for (const Node& n : b->chunk) shallowest = std::min(shallowest, n.depth);
    for (auto& w : workers_) w->new_chunk(shallowest, bfs);
    b->owners.clear();
    b->strict.clear();
    b->holders.clear();
    for (const Node& n : b->chunk) {
      b->owners.push_back(n.from.copies ? n.from.owner : -1);
      // Another worker may replay it from far up: only when short.
      b->strict.push_back(n.from.copies && n.depth > kStealDepth ? 1 : 0);
      uint64_t holders = 0;
      for (size_t w = 0; w < workers_.size(); ++w) {
        if (!n.from.copies || n.from.copies->images[w] != nullptr) holders |= uint64_t{1} << w;
      }
      b->holders.push_back(holders);
    }
    // A worker drops the node it expanded and the children it made in this
    // batch's last round, which the merge has emptied since (their memory is
    // freed by the workers, not by the merge).
    b->expand = [b](Worker& w, size_t i) {
      std::vector<std::vector<Child>>& spent = b->spent[static_cast<size_t>(w.index())];
      if (!spent.empty()) spent.clear();
      w.expand(b->chunk[i], &b->children[i], &b->replayed[i]);
      b->producers[i] = w.index();
      b->chunk[i] = Node{};
    };
  }

  // Merges b's children in order. New states join the frontier in the
  // order of their transitions: breadth first at its back, depth first (a
  // stack) reversed, so that the first comes out first. `before_growth`
  // is called before an insert grows the visited set.
  template <class BeforeGrowth>
  void merge(Batch& b, bool bfs, std::deque<Node>* frontier, std::vector<Node>* fresh, bool* depth_cut,
             const BeforeGrowth& before_growth) {
    fresh->clear();
    for (size_t i = 0; i < b.chunk.size(); ++i) {
      if (i + 1 < b.chunk.size()) {
        for (const Child& child : b.children[i + 1]) visited_.prefetch(child.outcome.digest);
      }
      result_.replayed_transitions += b.replayed[i];
      for (Child& child : b.children[i]) {
        if (visited_.insert_grows()) before_growth();
        if (!take(child)) continue;
        if (child.depth >= static_cast<uint64_t>(config_.max_depth)) {
          *depth_cut = true;
          continue;
        }
        Node& n = bfs ? frontier->emplace_back() : fresh->emplace_back();
        n.path = std::move(child.path);
        n.depth = child.depth;
        n.chain = std::move(child.chain);
        n.chain_next = child.chain_next;
        n.from = std::move(child.from);
        n.bytes = node_bytes(n);
        frontier_bytes_ += n.bytes;
      }
    }
    for (auto it = fresh->rbegin(); it != fresh->rend(); ++it) frontier->push_back(std::move(*it));
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
      note_marks();
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
    bool failed = false;
    for (const Violation& v : o.failing) {
      Violation judged_v = v;
      if (config_.policy.unexplained_only && judged(&judged_v, child)) {
        result_.explained[v.property]++;
        continue;
      }
      note_violation(judged_v, child);
      failed = true;
    }
    if (failed) return false;
    if (o.terminal) result_.terminal_transitions++;
    const bool fresh = visited_.insert(o.digest);
    return fresh && !o.terminal;
  }

  // --unexplained-only: whether re-runs prove a cause of `v`, a violation of
  // the transition `child` took, as a campaign's and check's do
  // (properties/cause_search.h): its path is replayed into an explicit plan
  // with its schedule, whose faults (those the explorer chose among them)
  // are the candidates. Sets v->cause. On the judge's own worker and source,
  // in merge order: the same for any number of workers.
  bool judged(Violation* v, const Child& child) {
    assert(judge_ != nullptr);
    VectorSink history;
    const ExplicitPlan plan = judge_->replay(child.path, child.depth, &history);
    CauseSearch search(plan, history.events, config_for_scenario(config_.check, plan.scenario), judge_source_,
                       kDefaultCauseReruns);
    v->cause = search.explain(*v);
    return v->explained();
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
      CheckerSuite suite(config_for_scenario(config_.check, cx.plan.scenario));
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
    if (visited_.bytes_after_growth() + frontier_bytes_ + marks_bytes() > config_.max_memory_bytes) {
      result_.limit = "max-memory";
      return true;
    }
    return false;
  }
  // The workers' chain marks, as of the last chunk they all finished (a
  // worker's table changes while it expands).
  uint64_t marks_bytes() const { return marks_bytes_; }
  // Workers idle: their chain marks' memory now.
  void note_marks() {
    marks_bytes_ = 0;
    for (const auto& w : workers_) marks_bytes_ += w->marks_bytes();
  }
  void note_memory() {
    checkpoints_.search_bytes = visited_.bytes() + frontier_bytes_ + marks_bytes();
    result_.memory_bytes =
        std::max<uint64_t>(result_.memory_bytes, checkpoints_.search_bytes.load() + checkpoints_.image_bytes.load());
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
  CheckpointMemory checkpoints_;  // before the workers and the frontier's checkpoints
  std::vector<std::unique_ptr<Worker>> workers_;
  BackendSource* judge_source_ = nullptr;  // --unexplained-only: the source after the workers'
  std::unique_ptr<Worker> judge_;          // and its worker, which replays violating paths
  size_t frontier_bytes_ = 0;  // paths and chains of the frontier's nodes
  uint64_t marks_bytes_ = 0;   // note_marks()
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
  const size_t judges = config.policy.unexplained_only ? 1 : 0;
  if (config.workers < 1 || sources.size() < static_cast<size_t>(config.workers) + judges) {
    throw std::invalid_argument("explore: one backend source per worker (and one more with --unexplained-only)");
  }
  if (config.max_faults < 0 || config.max_depth < 1 || config.max_states < 1 || config.pause_ms < 0 ||
      config.jump_ms < 0) {
    throw std::invalid_argument("explore: bad bounds");
  }
  Search search(config, sources, progress);
  return search.run();
}

}  // namespace locksim
