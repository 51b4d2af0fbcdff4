// ReplySink: where a Redis command (redis/redis_commands.h) writes its reply,
// one RESP2 value at a time, so that the same command code can build a Reply
// (ReplyBuilder, below) or push Lua values straight onto a Lua stack
// (redis/lua_scripting.h) without an intermediate copy.
//
// Contract: a reply is exactly one value. array(n) announces n elements,
// which follow as the next n values (nested arrays likewise). status() is a
// RESP simple string (+OK), error() an error reply whose text has no leading
// '-' ("ERR syntax error"). Strings are only read during the call.
#pragma once

#include <cassert>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "redis/reply.h"

namespace locksim {

class ReplySink {
 public:
  virtual ~ReplySink() = default;
  virtual void nil() = 0;        // nil bulk string ($-1)
  virtual void null_array() = 0; // nil array (*-1)
  virtual void integer(int64_t v) = 0;
  virtual void bulk(std::string_view s) = 0;
  virtual void status(std::string_view s) = 0;
  virtual void error(std::string_view s) = 0;
  virtual void array(size_t n) = 0;
};

// Builds the Reply a RESP2 client reads (impl/redis_conn.h): a status reads
// as a bulk string and a nil array as nil, as hiredis hands them to us.
class ReplyBuilder final : public ReplySink {
 public:
  void nil() override { put(Reply::nil()); }
  void null_array() override { put(Reply::nil()); }
  void integer(int64_t v) override { put(Reply::of_int(v)); }
  void bulk(std::string_view s) override { put(Reply::bulk(std::string(s))); }
  void status(std::string_view s) override { put(Reply::bulk(std::string(s))); }
  void error(std::string_view s) override { put(Reply::error(std::string(s))); }
  void array(size_t n) override {
    Reply r;
    r.kind = Reply::Kind::Array;
    r.elements.reserve(n);
    put(std::move(r));
    if (n > 0) open_.push_back(Open{target_of_last(), n});
  }

  bool done() const { return have_ && open_.empty(); }
  // The finished reply (moved out); the builder is empty again.
  Reply take() {
    assert(done());
    have_ = false;
    return std::move(root_);
  }

 private:
  struct Open {
    Reply* array;
    size_t remaining;
  };
  Reply* target_of_last() { return last_; }
  void put(Reply r) {
    if (open_.empty()) {
      assert(!have_);
      root_ = std::move(r);
      have_ = true;
      last_ = &root_;
      return;
    }
    Open& top = open_.back();
    top.array->elements.push_back(std::move(r));
    last_ = &top.array->elements.back();
    if (--top.remaining == 0) {
      open_.pop_back();
      // The parent's element count was reserved, so pointers stay valid.
      while (!open_.empty() && open_.back().remaining == 0) open_.pop_back();
    }
  }

  Reply root_;
  bool have_ = false;
  Reply* last_ = nullptr;
  std::vector<Open> open_;
};

}  // namespace locksim
