// HistoryRecorder: the history of a real-time run (traces/event.h), recorded
// from many threads and client processes into one EventSink, in an order the
// checkers of properties/ can use exactly as they use a simulated history.
//
// Times: true_us = steady-clock microseconds since the recorder started
// (never decreasing along the history); clients stamp local_ms with the wall
// clock. Events are numbered and handed to the sink under one lock, so the
// sink sees ids 0, 1, 2, ... with true_us not decreasing.
//
// Script events in server order. Each script runs inside a MULTI/EXEC
// transaction that also publishes a begin and an end marker on this
// recorder's marker channel for that server and reads the state the
// checkers need (holders, fair line, server clock). A spy connection per
// server (SUBSCRIBE marker channel, PSUBSCRIBE "redisson_lock__channel:*")
// sees the transactions in the order the server ran them, and every wake-up
// message each one published between its markers. script_done() hands in
// the transaction's reply as a ready Script event; it enters the history
// when every script the spy saw before it has entered, with `published`
// filled in by the spy; only then is `then` called (from whichever thread
// completed the order), so a client's completion always follows its script.
//
// Contract:
//  - bracket(server) gives a fresh token and its marker channel/payloads.
//  - Every bracketed transaction ends in exactly one script_done() or
//    script_lost() (its reply never came, or it did not run). A lost script
//    the spy saw run is dropped from the history (scripts_dropped()).
//  - If a spy dies (connection lost), that server's scripts enter the
//    history in reply order from then on, without `published`
//    (scripts_unordered(); spy_error() says why).
//  - close() (idempotent; the destructor) stops the spies and lets every
//    script still waiting into the history (in token order, counted as
//    unordered); after it, emit() and script_done() pass events straight
//    through. Clients must be stopped before the recorder is destroyed.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "impl/redis_conn.h"
#include "traces/event.h"
#include "traces/event_sink.h"

namespace locksim {

class HistoryRecorder {
 public:
  struct Bracket {
    uint64_t token = 0;
    std::string channel;  // the marker channel of that server's spy
    std::string begin;    // payloads
    std::string end;
  };

  // Connects one spy per server (throws RedisError naming the server).
  HistoryRecorder(EventSink& sink, const std::vector<RedisConnOptions>& servers);
  ~HistoryRecorder();
  HistoryRecorder(const HistoryRecorder&) = delete;
  HistoryRecorder& operator=(const HistoryRecorder&) = delete;

  int register_client();  // client indexes 0, 1, ...
  uint64_t new_op_id();   // unique in the history, > 0
  int64_t true_us() const;
  // Wall-clock ms when true_us was 0 (a client's local_ms - true ms).
  int64_t wall_epoch_ms() const { return wall_epoch_ms_; }

  void emit(Event event);  // fills id and true_us
  Bracket bracket(int server);
  void script_done(int server, uint64_t token, Event script, std::function<void()> then);
  void script_lost(int server, uint64_t token);
  void close();

  uint64_t events() const;
  uint64_t scripts_dropped() const;
  uint64_t scripts_unordered() const;
  std::string spy_error() const;  // "" while every spy works

 private:
  struct Spied {
    uint64_t token = 0;
    std::vector<std::string> published;
  };
  struct Done {
    Event script;
    std::function<void()> then;
  };
  struct ServerState {
    RedisConnOptions options;
    std::string channel;
    std::unique_ptr<RedisConn> conn;
    std::thread thread;
    std::vector<Spied> order;  // seen by the spy, not yet in the history (front first)
    size_t order_head = 0;
    std::map<uint64_t, Done> done;  // replied, waiting for its turn
    std::set<uint64_t> lost;
    bool spy_alive = false;
  };

  void spy_loop(int server);
  void on_spied(int server, Spied spied);
  void spy_died(int server, const std::string& why);
  // Moves every script whose turn has come into the history; returns the
  // `then` callbacks to run once the lock is released.
  std::vector<std::function<void()>> drain_locked(ServerState& s);
  void emit_locked(Event event);

  EventSink& sink_;
  const std::chrono::steady_clock::time_point start_;
  int64_t wall_epoch_ms_ = 0;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<ServerState>> servers_;
  uint64_t next_id_ = 0;
  int64_t last_true_us_ = 0;
  uint64_t next_op_id_ = 1;
  uint64_t next_token_ = 1;
  int next_client_ = 0;
  uint64_t dropped_ = 0;
  uint64_t unordered_ = 0;
  std::string spy_error_;
  bool closed_ = false;
};

}  // namespace locksim
