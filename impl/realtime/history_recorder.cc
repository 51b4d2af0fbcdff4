#include "impl/realtime/history_recorder.h"

#include <cassert>

namespace locksim {

namespace {

constexpr const char* kStopPayload = "stop";
constexpr const char* kWakePattern = "redisson_lock__channel:*";

}  // namespace

HistoryRecorder::HistoryRecorder(EventSink& sink, const std::vector<RedisConnOptions>& servers)
    : sink_(sink), start_(std::chrono::steady_clock::now()) {
  wall_epoch_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  for (const RedisConnOptions& options : servers) {
    auto s = std::make_unique<ServerState>();
    s->options = options;
    RedisConnOptions spy_options = options;
    spy_options.io_timeout_ms = 0;  // a spy waits for messages as long as it takes
    s->conn = std::make_unique<RedisConn>(RedisConn::connect(spy_options));
    const Reply id = s->conn->command({"CLIENT", "ID"});
    if (!id.is_int()) throw RedisError(s->conn->where() + ": CLIENT ID: unexpected reply " + id.to_string());
    s->channel = "__locksim_rt_marker__:" + std::to_string(id.integer);
    s->conn->append({"SUBSCRIBE", s->channel});
    s->conn->append({"PSUBSCRIBE", kWakePattern});
    for (int i = 0; i < 2; ++i) {
      const Reply r = s->conn->read_reply();
      if (r.kind != Reply::Kind::Array || r.elements.empty()) {
        throw RedisError(s->conn->where() + ": spy subscription: unexpected reply " + r.to_string());
      }
    }
    s->spy_alive = true;
    servers_.push_back(std::move(s));
  }
  for (size_t i = 0; i < servers_.size(); ++i) {
    servers_[i]->thread = std::thread([this, i] { spy_loop(static_cast<int>(i)); });
  }
}

HistoryRecorder::~HistoryRecorder() { close(); }

int HistoryRecorder::register_client() {
  std::lock_guard<std::mutex> lock(mutex_);
  return next_client_++;
}

uint64_t HistoryRecorder::new_op_id() {
  std::lock_guard<std::mutex> lock(mutex_);
  return next_op_id_++;
}

int64_t HistoryRecorder::true_us() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start_).count();
}

void HistoryRecorder::emit_locked(Event event) {
  event.id = next_id_++;
  last_true_us_ = std::max(last_true_us_, true_us());
  event.true_us = last_true_us_;
  sink_.on_event(event);
}

void HistoryRecorder::emit(Event event) {
  std::lock_guard<std::mutex> lock(mutex_);
  emit_locked(std::move(event));
}

HistoryRecorder::Bracket HistoryRecorder::bracket(int server) {
  std::lock_guard<std::mutex> lock(mutex_);
  assert(server >= 0 && server < static_cast<int>(servers_.size()));
  Bracket b;
  b.token = next_token_++;
  b.channel = servers_[static_cast<size_t>(server)]->channel;
  b.begin = "b " + std::to_string(b.token);
  b.end = "e " + std::to_string(b.token);
  return b;
}

std::vector<std::function<void()>> HistoryRecorder::drain_locked(ServerState& s) {
  std::vector<std::function<void()>> thens;
  while (s.order_head < s.order.size()) {
    Spied& next = s.order[s.order_head];
    if (s.lost.erase(next.token) > 0) {
      ++dropped_;
      ++s.order_head;
      continue;
    }
    auto it = s.done.find(next.token);
    if (it == s.done.end()) break;
    it->second.script.published = std::move(next.published);
    emit_locked(std::move(it->second.script));
    thens.push_back(std::move(it->second.then));
    s.done.erase(it);
    ++s.order_head;
  }
  if (s.order_head > 1024 && s.order_head * 2 > s.order.size()) {  // compact
    s.order.erase(s.order.begin(), s.order.begin() + static_cast<std::ptrdiff_t>(s.order_head));
    s.order_head = 0;
  }
  return thens;
}

void HistoryRecorder::script_done(int server, uint64_t token, Event script, std::function<void()> then) {
  std::vector<std::function<void()>> thens;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ServerState& s = *servers_[static_cast<size_t>(server)];
    if (closed_ || !s.spy_alive) {
      ++unordered_;
      emit_locked(std::move(script));
      thens.push_back(std::move(then));
    } else {
      s.done.emplace(token, Done{std::move(script), std::move(then)});
      thens = drain_locked(s);
    }
  }
  for (auto& then_fn : thens) then_fn();
}

void HistoryRecorder::script_lost(int server, uint64_t token) {
  std::vector<std::function<void()>> thens;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ServerState& s = *servers_[static_cast<size_t>(server)];
    if (closed_ || !s.spy_alive) return;
    s.lost.insert(token);
    thens = drain_locked(s);
  }
  for (auto& then_fn : thens) then_fn();
}

void HistoryRecorder::on_spied(int server, Spied spied) {
  std::vector<std::function<void()>> thens;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ServerState& s = *servers_[static_cast<size_t>(server)];
    s.order.push_back(std::move(spied));
    thens = drain_locked(s);
  }
  for (auto& then_fn : thens) then_fn();
}

// The spy is gone: what waits enters in token order, later scripts in reply order.
void HistoryRecorder::spy_died(int server, const std::string& why) {
  std::vector<std::function<void()>> thens;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ServerState& s = *servers_[static_cast<size_t>(server)];
    s.spy_alive = false;
    if (!closed_ && spy_error_.empty()) spy_error_ = why;
    thens = drain_locked(s);
    for (auto& [token, done] : s.done) {
      ++unordered_;
      emit_locked(std::move(done.script));
      thens.push_back(std::move(done.then));
    }
    s.done.clear();
    s.lost.clear();
  }
  for (auto& then_fn : thens) then_fn();
}

void HistoryRecorder::spy_loop(int server) {
  ServerState& s = *servers_[static_cast<size_t>(server)];
  bool inside = false;
  Spied current;
  std::string why;
  try {
    for (;;) {
      const Reply r = s.conn->read_reply();
      if (r.kind != Reply::Kind::Array || r.elements.size() < 3) continue;
      const std::string& kind = r.elements[0].text;
      std::string channel;
      std::string payload;
      if (kind == "message" && r.elements.size() == 3) {
        channel = r.elements[1].text;
        payload = r.elements[2].text;
      } else if (kind == "pmessage" && r.elements.size() == 4) {
        channel = r.elements[2].text;
        payload = r.elements[3].text;
      } else {
        continue;
      }
      if (channel == s.channel) {
        if (payload == kStopPayload) break;
        if (payload.rfind("b ", 0) == 0) {
          inside = true;
          current = Spied{std::stoull(payload.substr(2)), {}};
        } else if (payload.rfind("e ", 0) == 0 && inside && std::stoull(payload.substr(2)) == current.token) {
          inside = false;
          on_spied(server, std::move(current));
          current = Spied{};
        }
        continue;
      }
      if (inside) current.published.push_back(channel + " " + payload);
    }
  } catch (const std::exception& e) {
    why = std::string("history spy: ") + e.what();
  }
  spy_died(server, why);
}

void HistoryRecorder::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed_) return;
    closed_ = true;
  }
  for (auto& s : servers_) {
    try {
      RedisConnOptions options = s->options;
      options.connect_timeout_ms = 1000;
      options.io_timeout_ms = 1000;
      RedisConn conn = RedisConn::connect(options);
      conn.command({"PUBLISH", s->channel, kStopPayload});
    } catch (const RedisError&) {
      // The server is gone: the spy's read fails on its own.
    }
  }
  for (auto& s : servers_) {
    if (s->thread.joinable()) s->thread.join();
    s->conn.reset();
  }
}

uint64_t HistoryRecorder::events() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return next_id_;
}

uint64_t HistoryRecorder::scripts_dropped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dropped_;
}

uint64_t HistoryRecorder::scripts_unordered() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return unordered_;
}

std::string HistoryRecorder::spy_error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return spy_error_;
}

}  // namespace locksim
