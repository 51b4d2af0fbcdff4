#include "impl/redis_conn.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <cassert>
#include <utility>

namespace locksim {

namespace {

timeval to_timeval(int64_t ms) {
  timeval tv;
  tv.tv_sec = static_cast<time_t>(ms / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms % 1000) * 1000);
  return tv;
}


std::string command_name(const std::vector<std::string>& argv) {
  return argv.empty() ? std::string("(empty)") : argv.front();
}

}  // namespace

Reply reply_from_hiredis(const redisReply* r) {
  assert(r != nullptr);
  switch (r->type) {
    case REDIS_REPLY_NIL: return Reply::nil();
    case REDIS_REPLY_INTEGER: return Reply::of_int(r->integer);
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS: return Reply::bulk(std::string(r->str, r->len));
    case REDIS_REPLY_ERROR: return Reply::error(std::string(r->str, r->len));
    case REDIS_REPLY_ARRAY: {
      Reply out;
      out.kind = Reply::Kind::Array;
      out.elements.reserve(r->elements);
      for (size_t i = 0; i < r->elements; ++i) out.elements.push_back(reply_from_hiredis(r->element[i]));
      return out;
    }
    default: return Reply::error("unsupported reply type " + std::to_string(r->type));
  }
}

RedisConn RedisConn::connect(const RedisConnOptions& options) {
  const std::string where = "redis " + options.host + ":" + std::to_string(options.port);
  if (options.port < 1 || options.port > 65535) {
    throw RedisError(where + ": invalid port (expected 1-65535)");
  }
  redisContext* ctx = redisConnectWithTimeout(options.host.c_str(), options.port,
                                              to_timeval(options.connect_timeout_ms));
  if (ctx == nullptr) throw RedisError(where + ": connect: cannot allocate a hiredis context");
  if (ctx->err) {
    std::string err = ctx->errstr;
    redisFree(ctx);
    if (err.find("timed out") != std::string::npos || err.find("Resource temporarily") != std::string::npos) {
      err = "timed out after " + std::to_string(options.connect_timeout_ms) + " ms";
    }
    throw RedisError(where + ": connect: " + err);
  }
  if (redisSetTimeout(ctx, to_timeval(options.io_timeout_ms)) != REDIS_OK) {
    redisFree(ctx);
    throw RedisError(where + ": cannot set the I/O timeout");
  }
  return RedisConn(ctx, where, options.io_timeout_ms);
}

RedisConn::RedisConn(redisContext* ctx, std::string where, int64_t io_timeout_ms)
    : ctx_(ctx), where_(std::move(where)), io_timeout_ms_(io_timeout_ms) {}

RedisConn::RedisConn(RedisConn&& other) noexcept
    : ctx_(std::exchange(other.ctx_, nullptr)),
      where_(std::move(other.where_)),
      io_timeout_ms_(other.io_timeout_ms_) {}

RedisConn& RedisConn::operator=(RedisConn&& other) noexcept {
  if (this != &other) {
    if (ctx_) redisFree(ctx_);
    ctx_ = std::exchange(other.ctx_, nullptr);
    where_ = std::move(other.where_);
    io_timeout_ms_ = other.io_timeout_ms_;
  }
  return *this;
}

RedisConn::~RedisConn() {
  if (ctx_) redisFree(ctx_);
}

void RedisConn::fail(const std::string& what) const {
  std::string err = ctx_ && ctx_->err ? ctx_->errstr : "unknown error";
  if (err.find("Resource temporarily unavailable") != std::string::npos ||
      err.find("timed out") != std::string::npos) {
    err = "read timed out after " + std::to_string(io_timeout_ms_) + " ms";
  }
  throw RedisError(where_ + ": " + what + ": " + err);
}

void RedisConn::append(const std::vector<std::string>& argv) {
  if (!ctx_) throw RedisError(where_ + ": connection is closed");
  std::vector<const char*> ptrs;
  std::vector<size_t> lens;
  ptrs.reserve(argv.size());
  lens.reserve(argv.size());
  for (const auto& a : argv) {
    ptrs.push_back(a.data());
    lens.push_back(a.size());
  }
  if (redisAppendCommandArgv(ctx_, static_cast<int>(argv.size()), ptrs.data(), lens.data()) != REDIS_OK) {
    fail(command_name(argv));
  }
}

Reply RedisConn::read_reply() {
  if (!ctx_) throw RedisError(where_ + ": connection is closed");
  void* raw = nullptr;
  if (redisGetReply(ctx_, &raw) != REDIS_OK || raw == nullptr) fail("read reply");
  auto* reply = static_cast<redisReply*>(raw);
  Reply out = reply_from_hiredis(reply);
  freeReplyObject(reply);
  return out;
}

Reply RedisConn::command(const std::vector<std::string>& argv) {
  append(argv);
  void* raw = nullptr;
  if (redisGetReply(ctx_, &raw) != REDIS_OK || raw == nullptr) fail(command_name(argv));
  auto* reply = static_cast<redisReply*>(raw);
  Reply out = reply_from_hiredis(reply);
  freeReplyObject(reply);
  return out;
}

}  // namespace locksim
