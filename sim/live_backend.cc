#include "sim/live_backend.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <stdexcept>
#include <utility>

#include "redis/score_format.h"

namespace locksim {

namespace {

// Lists every key matching ARGV[1] as {key, type, pttl, {raw values}}; runs
// at one frozen instant, so types and TTLs are consistent with each other.
constexpr const char* kSnapshotLua = R"lua(
local out = {}
local keys = redis.call('keys', ARGV[1])
for i = 1, #keys do
  local k = keys[i]
  local t = redis.call('type', k)['ok']
  local v = {}
  if t == 'hash' then v = redis.call('hgetall', k)
  elseif t == 'list' then v = redis.call('lrange', k, 0, -1)
  elseif t == 'zset' then v = redis.call('zrange', k, 0, -1, 'withscores')
  elseif t == 'string' then v = {redis.call('get', k)}
  end
  out[#out + 1] = {k, t, redis.call('pttl', k), v}
end
return out
)lua";

// The model's active expiry (ModelBackend::execute sweeps its store before
// every script): SCAN deletes every expired key it visits (lazy expiry), so
// one full pass deletes every key under the prefix that is expired at the
// clock's time. Redis here never expires keys by itself (active expiry off),
// and a key that expired unseen is invisible to every later script while the
// clock only goes forward; it would come back only when the server clock
// jumps backward, as it never does on the model. So the pass runs only then,
// at the latest time a script ran (sweep_before_going_back): a pass before
// every script cost a SCAN of every key per script (live rlock scripts fell
// from about 24,000 to 1,300 a second in bench --quick).
constexpr const char* kSweepLua = R"lua(
local cursor = '0'
repeat
  cursor = redis.call('scan', cursor, 'match', ARGV[1], 'count', 1000)[1]
until cursor == '0'
return 0
)lua";

constexpr size_t kMaxMessagesPerScript = 100000;  // bound on messages read around one script

// Escapes glob metacharacters so the prefix matches literally in KEYS.
std::string glob_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

[[noreturn]] void unexpected(const std::string& where, const std::string& what, const Reply& r) {
  throw RedisError(where + ": " + what + ": unexpected reply " + r.to_string());
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += ',';
    out += parts[i];
  }
  return out;
}

// Renders raw Redis values like Store::snapshot (redis/store.h).
std::string render(const std::string& where, const std::string& type, const Reply& values) {
  std::vector<std::string> raw;
  for (const Reply& e : values.elements) {
    if (e.kind != Reply::Kind::Bulk) unexpected(where, "snapshot value", values);
    raw.push_back(e.text);
  }
  if (type == "string") return raw.empty() ? std::string() : raw[0];
  if (type == "list") return join(raw);
  if (type == "hash") {
    std::vector<std::pair<std::string, std::string>> fields;
    for (size_t i = 0; i + 1 < raw.size(); i += 2) fields.emplace_back(raw[i], raw[i + 1]);
    std::sort(fields.begin(), fields.end());
    std::vector<std::string> parts;
    for (auto& [f, v] : fields) parts.push_back(f + "=" + v);
    return join(parts);
  }
  if (type == "zset") {
    std::vector<std::string> parts;
    for (size_t i = 0; i + 1 < raw.size(); i += 2) {
      double score = 0;
      if (!parse_score(raw[i + 1], &score)) unexpected(where, "zset score", values);
      parts.push_back(raw[i] + ":" + format_score(score));
    }
    return join(parts);
  }
  return "<" + type + ">";
}

// A pmessage push (RESP3) or message (subscriber connection) as a Published.
Published pmessage(const std::string& where, Reply r) {
  if (r.kind != Reply::Kind::Array || r.elements.size() != 4 || r.elements[0].text != "pmessage") {
    unexpected(where, "pub/sub", r);
  }
  return Published{std::move(r.elements[2].text), std::move(r.elements[3].text)};
}

// A Lua script the server does not know (its script cache was lost).
bool lost_script(const Reply& reply) {
  return reply.is_error() && reply.text.rfind("NOSCRIPT", 0) == 0;
}

}  // namespace

LiveBackend::LiveBackend(std::vector<ServerControl*> servers, ScriptPack pack, std::string key_prefix)
    : pack_(std::move(pack)), key_prefix_(std::move(key_prefix)) {
  assert(!servers.empty());
  one_connection_ = true;
  for (ScriptKind kind : all_script_kinds()) {
    if (pack_.script(kind).form == PackForm::Command) one_connection_ = false;
  }
  servers_.resize(servers.size());
  for (size_t i = 0; i < servers.size(); ++i) {
    assert(servers[i] != nullptr);
    servers_[i].control = servers[i];
    servers_[i].given = servers[i];
    connect(servers_[i]);
  }
  replicas_.resize(servers.size());
  replica_lag_ms_.assign(servers.size(), 0);
}

LiveReplica* LiveBackend::following(int server) {
  LiveReplica* r = replicas_.at(static_cast<size_t>(server)).get();
  return r != nullptr && !r->promoted() ? r : nullptr;
}

int64_t LiveBackend::primary_offset(Server& s) {
  const Reply info = s.cmd->command({"INFO", "replication"});
  const auto offset = info.is_error() ? std::nullopt : info_field(info.text, "master_repl_offset");
  if (!offset) unexpected(s.cmd->where(), "INFO replication", info);
  return *offset;
}

std::string LiveBackend::key_pattern() const {
  return key_prefix_.empty() ? "*" : "*" + glob_escape(key_prefix_) + "*";
}

LiveBackend::Server& LiveBackend::at(int server) {
  assert(server >= 0 && server < server_count());
  return servers_[static_cast<size_t>(server)];
}

void LiveBackend::connect(Server& s) {
  RedisConnOptions options;
  options.host = s.control->host();
  options.port = s.control->port();
  s.cmd.reset();
  s.sub.reset();
  s.cmd.emplace(RedisConn::connect(options));
  // Subscribed and still running commands, unless the pack has a plain
  // command or the server is older than RESP3 (Redis 6).
  s.one_connection = one_connection_ && s.cmd->use_resp3();
  if (!s.one_connection) {
    s.sub.emplace(RedisConn::connect(options));
    const Reply id = s.sub->command({"CLIENT", "ID"});
    if (!id.is_int()) unexpected(s.sub->where(), "CLIENT ID", id);
    s.marker_channel = "__locksim_live_marker__:" + std::to_string(id.integer);
    s.marker_seq = 0;
  }
  // Keys expire only when the sweep or a script sees them, at a server time
  // the simulator chose, never by the server's own timer at a real moment.
  const Reply no_active = s.cmd->command({"DEBUG", "SET-ACTIVE-EXPIRE", "0"});
  if (no_active.is_error()) unexpected(s.cmd->where(), "DEBUG SET-ACTIVE-EXPIRE 0", no_active);
  // jemalloc's background thread sleeps until an absolute CLOCK_REALTIME
  // deadline it computes from gettimeofday, which the vclock shim answers in
  // virtual time: the kernel sees a deadline years in the past, so every
  // wait times out at once and the thread spins (a quarter of the CPU of a
  // live bench run went to it). Redis then purges from its own cron instead.
  // A server without the option (no jemalloc thread) answers an error: fine.
  (void)s.cmd->command({"CONFIG", "SET", "jemalloc-bg-thread", "no"});
  if (s.one_connection) {
    // A subscribed connection is in Redis's pubsub class, whose output limit
    // (32 MB, or 8 MB for 60 s) would close it on a large snapshot reply.
    const Reply unlimited = s.cmd->command({"CONFIG", "SET", "client-output-buffer-limit", "pubsub 0 0 0"});
    if (unlimited.is_error()) unexpected(s.cmd->where(), "CONFIG SET client-output-buffer-limit", unlimited);
    s.cmd->append({"PSUBSCRIBE", "*"});
    bool push = false;
    const Reply r = s.cmd->read_reply(&push);  // RESP3: the confirmation is a push
    if (!push || r.elements.size() != 3 || r.elements[0].text != "psubscribe") unexpected(s.cmd->where(), "PSUBSCRIBE", r);
  } else {
    const Reply r = s.sub->command({"PSUBSCRIBE", "*"});
    if (r.kind != Reply::Kind::Array || r.elements.empty() || r.elements[0].text != "psubscribe") {
      unexpected(s.sub->where(), "PSUBSCRIBE", r);
    }
  }
  load_scripts(s);
}

void LiveBackend::load_scripts(Server& s) {
  for (ScriptKind kind : all_script_kinds()) {
    const PackScript& script = pack_.script(kind);
    if (script.form != PackForm::Lua) continue;  // a plain command or absent: nothing to load
    const Reply r = s.cmd->command({"SCRIPT", "LOAD", script.source});
    if (r.is_error()) {
      throw ScriptPackError(script.path + ": Redis rejected the script: " + r.text);
    }
    if (r.kind != Reply::Kind::Bulk) unexpected(s.cmd->where(), "SCRIPT LOAD", r);
    s.sha[static_cast<size_t>(kind)] = r.text;
  }
  if (const PackScript* read = pack_.holder_script()) {
    const Reply h = s.cmd->command({"SCRIPT", "LOAD", read->source});
    if (h.is_error()) throw ScriptPackError(read->path + ": Redis rejected the script: " + h.text);
    if (h.kind != Reply::Kind::Bulk) unexpected(s.cmd->where(), "SCRIPT LOAD", h);
    s.holder_sha = h.text;
  }
  const Reply r = s.cmd->command({"SCRIPT", "LOAD", kSnapshotLua});
  if (r.kind != Reply::Kind::Bulk) unexpected(s.cmd->where(), "SCRIPT LOAD (snapshot)", r);
  s.snapshot_sha = r.text;
}

std::vector<Published> LiveBackend::drain_published(Server& s, const std::string& begin,
                                                    const std::string& end) {
  std::vector<Published> out;
  bool inside = false;
  for (size_t n = 0; n <= kMaxMessagesPerScript; ++n) {
    Published m = pmessage(s.sub->where(), s.sub->read_reply());
    if (m.channel == s.marker_channel) {
      if (m.payload == begin) {
        inside = true;
        out.clear();
      } else if (m.payload == end && inside) {
        return out;
      }
      continue;  // an older marker
    }
    if (inside) out.push_back(std::move(m));
    // else: published before our script by someone else: not ours.
  }
  throw RedisError(s.sub->where() + ": more than " + std::to_string(kMaxMessagesPerScript) +
                   " messages around one script");
}

// The fair line after a script, from LRANGE and ZRANGE WITHSCORES replies
// (RESP2: member, score, member, ...; RESP3: [member, score] pairs).
// A key of another type (WRONGTYPE) means there is no line to report.
static void read_line(const std::string& where, const Reply& line, const Reply& scores, ExecResult* out) {
  if (line.is_error() || scores.is_error()) return;
  if (line.kind != Reply::Kind::Array) unexpected(where, "LRANGE", line);
  if (scores.kind != Reply::Kind::Array) unexpected(where, "ZRANGE", scores);
  std::vector<const Reply*> flat;  // member, score, member, score, ...
  flat.reserve(2 * scores.elements.size());
  for (const Reply& e : scores.elements) {
    if (e.kind == Reply::Kind::Array) {
      if (e.elements.size() != 2) unexpected(where, "ZRANGE pair", e);
      flat.push_back(&e.elements[0]);
      flat.push_back(&e.elements[1]);
    } else {
      flat.push_back(&e);
    }
  }
  if (flat.size() % 2 != 0) unexpected(where, "ZRANGE", scores);
  std::map<std::string, double> deadline_of;
  for (size_t i = 0; i + 1 < flat.size(); i += 2) {
    double score = 0;
    if (!parse_score(flat[i + 1]->text, &score)) unexpected(where, "ZRANGE score", *flat[i + 1]);
    deadline_of[flat[i]->text] = score;
  }
  out->line_known = true;
  for (const Reply& owner : line.elements) {
    LineWaiter w{owner.text, std::nullopt};
    if (auto it = deadline_of.find(owner.text); it != deadline_of.end()) w.deadline_ms = it->second;
    out->line_after.push_back(std::move(w));
  }
}

// After the script's reply and the replies read with it: the holders and
// line (out), the reply through the pack's adapters.
void LiveBackend::finish(const std::string& where, const ScriptCall& call, const Reply& holders, const Reply* line,
                         const Reply* scores, ExecResult* out) const {
  out->reply = pack_.adapt_reply(call.kind, std::move(out->reply));
  out->error_declared = pack_.declares_error(call.kind, out->reply);
  try {
    pack_.read_holders(call.params.lock, holders, &out->holders_after);
  } catch (const HolderReadError& e) {  // never "no holders": the run stops, naming the key and the error
    throw RedisError(where + ": " + e.what());  // the caller names the script
  }
  out->line_known = false;
  out->line_after.clear();
  if (line != nullptr) read_line(where, *line, *scores, out);
}

ExecResult LiveBackend::execute(int server, const ScriptCall& call, int64_t server_now_us) {
  Server& s = at(server);
  LiveReplica* follower = following(server);
  if (follower != nullptr) follower->catch_up(server_now_us);  // before the script, as on the model
  sweep_before_going_back(s, server_now_us);
  s.control->set_clock_us(server_now_us);
  const PackScript& script = pack_.script(call.kind);
  const ScriptArgs args = pack_.build_args(call);
  const bool fair = !call.params.line.empty() && !call.params.deadlines.empty();
  // The script's own command: EVALSHA, one plain command, or none (absent).
  const std::string key_count = std::to_string(args.keys.size());
  std::vector<std::string_view> argv;
  argv.reserve(3 + args.keys.size() + args.argv.size());
  if (script.form == PackForm::Lua) {
    argv.insert(argv.end(), {"EVALSHA", s.sha[static_cast<size_t>(call.kind)], key_count});
  } else if (script.form == PackForm::Command) {
    argv.push_back(script.command);
  }
  if (!argv.empty()) {
    argv.insert(argv.end(), args.keys.begin(), args.keys.end());
    argv.insert(argv.end(), args.argv.begin(), args.argv.end());
  }
  // The holder read the design asks for, at the same frozen clock.
  std::vector<std::string_view> holder_read;
  ScriptArgs holder_args;
  std::string holder_key_count;
  switch (pack_.design().holders) {
    case HolderRead::HashFields: holder_read = {"HKEYS", call.params.lock}; break;
    case HolderRead::StringValue: holder_read = {"GET", call.params.lock}; break;
    case HolderRead::Script: {
      const PackScript& read = *pack_.holder_script();
      for (const PackExpr& k : read.keys) holder_args.keys.push_back(k.evaluate(call.params));
      for (const PackExpr& a : read.argv) holder_args.argv.push_back(a.evaluate(call.params));
      holder_key_count = std::to_string(holder_args.keys.size());
      holder_read = {"EVALSHA_RO", s.holder_sha, holder_key_count};  // read-only: Redis refuses a write
      holder_read.insert(holder_read.end(), holder_args.keys.begin(), holder_args.keys.end());
      holder_read.insert(holder_read.end(), holder_args.argv.begin(), holder_args.argv.end());
      break;
    }
  }
  ExecResult out;
  try {
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (script.form == PackForm::Lua) argv[1] = s.sha[static_cast<size_t>(call.kind)];  // reloaded
      if (pack_.holder_script()) holder_read[1] = s.holder_sha;
      const bool may_retry = attempt == 0;
      const bool done = s.one_connection ? run_one_connection(s, call, argv, holder_read, fair, may_retry, &out)
                                        : run_with_markers(s, call, argv, holder_read, fair, may_retry, &out);
      if (done) break;
      load_scripts(s);  // NOSCRIPT: the server lost its script cache (restarted behind our back)
    }
  } catch (const RedisError& e) {  // e.g. a script that never returns: name it
    throw RedisError(std::string(script_name(call.kind)) + " (" + script.describe() + "): " + e.what());
  }
  for (Published& p : out.published) p = pack_.canonical_published(call, std::move(p));
  output_budget_.charge(out, script_name(call.kind));  // a pack that answers megabytes stops the run
  if (follower != nullptr) follower->record(server_now_us, primary_offset(s));
  return out;
}


bool LiveBackend::run_one_connection(Server& s, const ScriptCall& call, std::span<const std::string_view> argv,
                                     std::span<const std::string_view> holder_read, bool fair, bool may_retry,
                                     ExecResult* out) {
  // One pipeline on the subscribed RESP3 connection: PING, script, HKEYS
  // (LRANGE, ZRANGE). Redis runs a client's pipelined commands in order and
  // writes a message to its subscribers when it is published, so what
  // arrives before PONG was published before the script (by someone else:
  // dropped) and every push between PONG and the last reply is the script's.
  constexpr std::string_view kPing[] = {"PING"};
  const std::string_view lrange[] = {"LRANGE", call.params.line, "0", "-1"};
  const std::string_view zrange[] = {"ZRANGE", call.params.deadlines, "0", "-1", "WITHSCORES"};
  RedisConn& c = *s.cmd;
  c.append_view(kPing);
  if (!argv.empty()) c.append_view(argv);
  c.append_view(holder_read);
  if (fair) {
    c.append_view(lrange);
    c.append_view(zrange);
  }
  bool push = true;
  Reply pong;
  while (push) pong = c.read_reply(&push);
  if (pong != Reply::bulk("PONG")) unexpected(c.where(), "PING", pong);
  out->published.clear();
  // The next reply that is not a push, keeping the pushes before it.
  auto next = [&]() {
    while (true) {
      Reply r = c.read_reply(&push);
      if (!push) return r;
      out->published.push_back(pmessage(c.where(), std::move(r)));
    }
  };
  out->reply = argv.empty() ? ScriptPack::absent_reply(call.kind) : next();
  const Reply holders = next();
  Reply line, scores;
  if (fair) {
    line = next();
    scores = next();
  }
  if (may_retry && lost_any_script(call, argv, holders, *out)) return false;
  finish(c.where(), call, holders, fair ? &line : nullptr, fair ? &scores : nullptr, out);
  return true;
}

bool LiveBackend::run_with_markers(Server& s, const ScriptCall& call, std::span<const std::string_view> argv,
                                   std::span<const std::string_view> holder_read, bool fair, bool may_retry,
                                   ExecResult* out) {
  // One pipeline: marker, script, holders, marker. Redis runs a client's
  // pipelined commands in order, so the messages the subscriber sees
  // between the two markers are exactly the script's publishes.
  ++s.marker_seq;
  const std::string begin = "begin:" + std::to_string(s.marker_seq);
  const std::string end = "end:" + std::to_string(s.marker_seq);
  s.cmd->append({"PUBLISH", s.marker_channel, begin});
  if (!argv.empty()) s.cmd->append(std::vector<std::string>(argv.begin(), argv.end()));
  s.cmd->append(std::vector<std::string>(holder_read.begin(), holder_read.end()));
  if (fair) {
    s.cmd->append({"LRANGE", call.params.line, "0", "-1"});
    s.cmd->append({"ZRANGE", call.params.deadlines, "0", "-1", "WITHSCORES"});
  }
  s.cmd->append({"PUBLISH", s.marker_channel, end});
  Reply line, scores;
  const Reply begin_reply = s.cmd->read_reply();
  out->reply = argv.empty() ? ScriptPack::absent_reply(call.kind) : s.cmd->read_reply();
  const Reply holders = s.cmd->read_reply();
  if (fair) {
    line = s.cmd->read_reply();
    scores = s.cmd->read_reply();
  }
  const Reply end_reply = s.cmd->read_reply();
  if (!begin_reply.is_int() || !end_reply.is_int() || begin_reply.integer < 1) {
    unexpected(s.cmd->where(), "PUBLISH marker", begin_reply.is_int() ? end_reply : begin_reply);
  }
  out->published = drain_published(s, begin, end);
  if (may_retry && lost_any_script(call, argv, holders, *out)) return false;
  finish(s.cmd->where(), call, holders, fair ? &line : nullptr, fair ? &scores : nullptr, out);
  return true;
}

bool LiveBackend::lost_any_script(const ScriptCall& call, std::span<const std::string_view> argv,
                                  const Reply& holders, const ExecResult& out) const {
  if (!argv.empty() && pack_.script(call.kind).form == PackForm::Lua && lost_script(out.reply)) return true;
  return pack_.holder_script() != nullptr && lost_script(holders);
}

void LiveBackend::sweep_before_going_back(Server& s, int64_t server_now_us) {
  if (server_now_us >= s.high_water_us) {
    s.high_water_us = server_now_us;
    return;
  }
  s.control->set_clock_us(s.high_water_us);
  const Reply r = s.cmd->command({"EVAL", kSweepLua, "0", key_pattern()});
  if (!r.is_int()) unexpected(s.cmd->where(), "expiry sweep", r);
  // No key left expires before the old mark, and a key written from now on
  // can only be swept by a script after its write: the mark starts again here.
  s.high_water_us = server_now_us;
}

std::vector<KeyState> LiveBackend::snapshot(int server, int64_t server_now_us) {
  Server& s = at(server);
  s.control->set_clock_us(server_now_us);
  const std::string pattern = key_pattern();
  Reply r = s.cmd->command({"EVALSHA", s.snapshot_sha, "0", pattern});
  if (r.is_error() && r.text.rfind("NOSCRIPT", 0) == 0) {
    load_scripts(s);
    r = s.cmd->command({"EVALSHA", s.snapshot_sha, "0", pattern});
  }
  if (r.kind != Reply::Kind::Array) unexpected(s.cmd->where(), "snapshot", r);
  std::vector<KeyState> out;
  out.reserve(r.elements.size());
  for (const Reply& e : r.elements) {
    if (e.kind != Reply::Kind::Array || e.elements.size() != 4 || !e.elements[2].is_int()) {
      unexpected(s.cmd->where(), "snapshot entry", e);
    }
    KeyState k;
    k.key = e.elements[0].text;
    k.type = e.elements[1].text;
    k.pttl_ms = e.elements[2].integer;
    k.value = render(s.cmd->where(), k.type, e.elements[3]);
    out.push_back(std::move(k));
  }
  std::sort(out.begin(), out.end(), [](const KeyState& a, const KeyState& b) { return a.key < b.key; });
  return out;
}

void LiveBackend::restart(int server) {
  Server& s = at(server);
  // A primary that restarts empty empties its replica too (a full resync
  // from the empty primary): here a new replica follows it from scratch.
  const bool had_follower = following(server) != nullptr;
  if (had_follower) retire_replica(server);
  s.cmd.reset();
  s.sub.reset();
  s.control->restart();
  connect(s);
  if (had_follower) start_replica(server);
}

void LiveBackend::start_replica(int server) {
  assert(replica_factory_);
  while (true) {
    // A spare first. It may be gone: a server dies with the thread that
    // started it (PR_SET_PDEATHSIG), and a campaign's worker threads end.
    const bool spare = !spare_replica_servers_.empty();
    std::unique_ptr<ServerControl> replica;
    if (spare) {
      replica = std::move(spare_replica_servers_.back());
      spare_replica_servers_.pop_back();
    } else {
      replica = replica_factory_();
    }
    replica->set_clock_us(at(server).control->clock_us());
    try {
      replicas_.at(static_cast<size_t>(server)) = std::make_unique<LiveReplica>(
          *at(server).control, std::move(replica), replica_lag_ms_.at(static_cast<size_t>(server)));
      return;
    } catch (const RedisError& e) {
      if (spare) continue;  // that spare is dead: the next one, or a new server
      throw RedisError("starting the replica of server " + std::to_string(server) + ": " + e.what());
    }
  }
}

void LiveBackend::retire_replica(int server) {
  std::unique_ptr<LiveReplica>& r = replicas_.at(static_cast<size_t>(server));
  if (r == nullptr) return;
  try {
    spare_replica_servers_.push_back(r->release_server());
  } catch (const RedisError&) {
    // A replica server that does not answer is not kept: it goes with r.
  }
  r.reset();
}

void LiveBackend::drop_replicas() {
  for (size_t i = 0; i < servers_.size(); ++i) {
    Server& s = servers_[i];
    const bool moved = s.control != s.given;  // to a promoted replica
    if (moved) {
      s.cmd.reset();
      s.sub.reset();
      s.control = s.given;
    }
    retire_replica(static_cast<int>(i));
    if (moved) connect(s);
  }
}

void LiveBackend::configure_server_faults(const ServerFaultConfig& faults) {
  if (!faults.replica_lag_ms.empty()) {
    if (faults.replica_lag_ms.size() != servers_.size()) {
      throw std::invalid_argument("live backend: " + std::to_string(faults.replica_lag_ms.size()) +
                                  " replica lags for " + std::to_string(servers_.size()) + " servers");
    }
    if (faults.persistence == Persistence::Always) {
      // A restarted primary with its data forces a full resync that would
      // hand the replica writes the lag still holds back on the model.
      throw std::invalid_argument(
          "replicas (--profile failover) with --persistence always are not supported on the live backend");
    }
    if (!replica_factory_) {
      throw std::invalid_argument("replicas (--profile failover) need replica servers this live backend cannot start");
    }
  }
  // Server i's index belongs to a promoted replica of the previous run
  // before this: drop it first, and point every server at the given one.
  drop_replicas();
  for (Server& s : servers_) s.control->set_append_only(faults.persistence == Persistence::Always);
  replica_lag_ms_.assign(servers_.size(), 0);
  for (size_t i = 0; i < faults.replica_lag_ms.size(); ++i) {
    replica_lag_ms_[i] = faults.replica_lag_ms[i];
    start_replica(static_cast<int>(i));
  }
}

FailoverResult LiveBackend::failover(int server, int64_t server_now_us) {
  LiveReplica* r = following(server);
  if (r == nullptr) return FailoverResult{};
  FailoverResult f;
  f.promoted = true;
  f.lag_ms = r->lag_ms();
  try {
    f.lost_writes = r->promote(server_now_us);
  } catch (const RedisError& e) {
    throw RedisError("failover of server " + std::to_string(server) + ": " + e.what());
  }
  // The clients move to the promoted replica.
  Server& s = at(server);
  s.cmd.reset();
  s.sub.reset();
  s.control = &r->server();
  connect(s);
  return f;
}

void LiveBackend::restart_keeping_data(int server) {
  Server& s = at(server);
  s.cmd.reset();
  s.sub.reset();
  s.control->restart_keeping_data();
  connect(s);
}

void LiveBackend::wipe() {
  output_budget_.reset();  // a new run
  drop_replicas();
  for (Server& s : servers_) {
    const Reply r = s.cmd->command({"FLUSHALL"});
    if (r.is_error()) unexpected(s.cmd->where(), "FLUSHALL", r);
    s.high_water_us = std::numeric_limits<int64_t>::min();  // nothing left to expire
  }
}

}  // namespace locksim
