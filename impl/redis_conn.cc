#include "impl/redis_conn.h"

#include <hiredis/hiredis.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <optional>
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

constexpr int kMaxResp3Depth = 64;  // nesting bound of one RESP3 reply

// Appends one command as a RESP array of bulk strings (both protocols).
void format_command(std::span<const std::string_view> argv, std::string* out) {
  *out += '*';
  *out += std::to_string(argv.size());
  *out += "\r\n";
  for (std::string_view a : argv) {
    *out += '$';
    *out += std::to_string(a.size());
    *out += "\r\n";
    out->append(a.data(), a.size());
    *out += "\r\n";
  }
}

// A RESP3 parser over a byte buffer. parse() answers nullopt when the buffer
// does not hold the whole reply yet (the caller reads more and parses again
// from the same start), and throws ProtocolError on bytes that are not RESP3.
struct ProtocolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Resp3Parser {
 public:
  Resp3Parser(std::string_view buf, size_t pos) : buf_(buf), pos_(pos) {}
  size_t pos() const { return pos_; }

  // One reply; *push: it was a push message (">").
  std::optional<Reply> parse(bool* push, int depth = 0) {
    if (depth > kMaxResp3Depth) throw ProtocolError("replies nested deeper than " + std::to_string(kMaxResp3Depth));
    std::string_view line;
    if (!next_line(&line)) return std::nullopt;
    if (line.empty()) throw ProtocolError("empty line");
    const char type = line[0];
    const std::string_view rest = line.substr(1);
    *push = false;
    switch (type) {
      case '+': return Reply::bulk(std::string(rest));
      case '-': return Reply::error(std::string(rest));
      case ':': return Reply::of_int(number(rest));
      case '_': return Reply::nil();
      case ',':  // double
      case '(': return Reply::bulk(std::string(rest));  // big number
      case '#':
        if (rest == "t") return Reply::of_int(1);
        if (rest == "f") return Reply::nil();
        throw ProtocolError("boolean " + std::string(rest));
      case '$':
      case '=':
      case '!': {
        const int64_t len = number(rest);
        if (len < 0) return Reply::nil();  // RESP2-style null bulk
        std::string_view payload;
        if (!take(static_cast<size_t>(len), &payload)) return std::nullopt;
        if (type == '=') {  // verbatim: "txt:" then the text
          if (payload.size() < 4 || payload[3] != ':') throw ProtocolError("verbatim string without its format");
          payload.remove_prefix(4);
        }
        return type == '!' ? Reply::error(std::string(payload)) : Reply::bulk(std::string(payload));
      }
      case '*':
      case '~':
      case '%':
      case '>':
      case '|': {
        const int64_t n = number(rest);
        if (n < 0) return Reply::nil();  // RESP2-style null array
        const int64_t count = (type == '%' || type == '|') ? 2 * n : n;
        Reply out;
        out.kind = Reply::Kind::Array;
        out.elements.reserve(static_cast<size_t>(std::min<int64_t>(count, 1024)));
        for (int64_t i = 0; i < count; ++i) {
          bool inner_push = false;
          std::optional<Reply> e = parse(&inner_push, depth + 1);
          if (!e) return std::nullopt;
          out.elements.push_back(std::move(*e));
        }
        if (type == '|') return parse(push, depth);  // attributes: the reply follows
        *push = type == '>';
        return out;
      }
      default: throw ProtocolError(std::string("unknown reply type '") + type + "'");
    }
  }

 private:
  bool next_line(std::string_view* line) {
    const size_t end = buf_.find("\r\n", pos_);
    if (end == std::string_view::npos) return false;
    *line = buf_.substr(pos_, end - pos_);
    pos_ = end + 2;
    return true;
  }
  bool take(size_t len, std::string_view* payload) {
    if (buf_.size() - pos_ < len + 2) return false;
    if (buf_.compare(pos_ + len, 2, "\r\n") != 0) throw ProtocolError("bulk string not ended by CRLF");
    *payload = buf_.substr(pos_, len);
    pos_ += len + 2;
    return true;
  }
  static int64_t number(std::string_view text) {
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) throw ProtocolError("bad number " + std::string(text));
    return v;
  }
  std::string_view buf_;
  size_t pos_;
};

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
      io_timeout_ms_(other.io_timeout_ms_),
      resp3_(other.resp3_),
      out_(std::move(other.out_)),
      in_(std::move(other.in_)),
      in_pos_(other.in_pos_) {}

RedisConn& RedisConn::operator=(RedisConn&& other) noexcept {
  if (this != &other) {
    if (ctx_) redisFree(ctx_);
    ctx_ = std::exchange(other.ctx_, nullptr);
    where_ = std::move(other.where_);
    io_timeout_ms_ = other.io_timeout_ms_;
    resp3_ = other.resp3_;
    out_ = std::move(other.out_);
    in_ = std::move(other.in_);
    in_pos_ = other.in_pos_;
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
  if (resp3_) {
    std::vector<std::string_view> views(argv.begin(), argv.end());
    append_view(views);
    return;
  }
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

void RedisConn::append_view(std::span<const std::string_view> argv) {
  if (!ctx_) throw RedisError(where_ + ": connection is closed");
  assert(resp3_);
  format_command(argv, &out_);
}

Reply RedisConn::read_reply(bool* push) {
  if (!ctx_) throw RedisError(where_ + ": connection is closed");
  if (resp3_) return read3(push, "read reply");
  *push = false;
  return read_reply();
}

void RedisConn::fail3(const std::string& what, int err, bool writing) const {
  if (err == EAGAIN || err == EWOULDBLOCK) {  // SO_RCVTIMEO / SO_SNDTIMEO (redisSetTimeout)
    throw RedisError(where_ + ": " + what + ": " + (writing ? "write" : "read") + " timed out after " +
                     std::to_string(io_timeout_ms_) + " ms");
  }
  throw RedisError(where_ + ": " + what + ": " + (err == 0 ? std::string("connection closed by the server")
                                                          : std::string(std::strerror(err))));
}

void RedisConn::flush3() {
  size_t sent = 0;
  while (sent < out_.size()) {
    const ssize_t n = ::send(ctx_->fd, out_.data() + sent, out_.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : 0;
      out_.clear();
      fail3("write", err, true);
    }
    sent += static_cast<size_t>(n);
  }
  out_.clear();
}

Reply RedisConn::read3(bool* push, const char* what) {
  flush3();
  while (true) {
    if (in_pos_ < in_.size()) {
      Resp3Parser parser(in_, in_pos_);
      std::optional<Reply> r;
      try {
        r = parser.parse(push);
      } catch (const ProtocolError& e) {
        throw RedisError(where_ + ": protocol error: " + e.what());
      }
      if (r) {
        in_pos_ = parser.pos();
        if (in_pos_ == in_.size()) {
          in_.clear();
          in_pos_ = 0;
        }
        return std::move(*r);
      }
    }
    if (in_pos_ > 0) {  // keep only the unparsed tail
      in_.erase(0, in_pos_);
      in_pos_ = 0;
    }
    const size_t old = in_.size();
    const size_t chunk = std::max<size_t>(16 * 1024, old);  // a large reply: fewer re-parses
    in_.resize(old + chunk);
    ssize_t n = 0;
    do {
      n = ::recv(ctx_->fd, in_.data() + old, chunk, 0);
    } while (n < 0 && errno == EINTR);
    const int err = n < 0 ? errno : 0;
    in_.resize(old + static_cast<size_t>(std::max<ssize_t>(n, 0)));
    if (n <= 0) fail3(what, err, false);
  }
}

Reply RedisConn::read3_reply(const char* what) {
  bool push = true;
  Reply r;
  while (push) r = read3(&push, what);  // push messages are not replies
  return r;
}

bool RedisConn::use_resp3() {
  if (!ctx_) throw RedisError(where_ + ": connection is closed");
  if (resp3_) return true;
  // Not through hiredis: it could not parse the reply (a RESP3 map).
  resp3_ = true;
  const std::string_view hello[] = {"HELLO", "3"};
  append_view(hello);
  bool push = false;
  const Reply r = read3(&push, "HELLO");
  if (r.is_error()) {  // Redis < 6: still RESP2, and nothing else was sent
    assert(in_.size() == in_pos_);
    resp3_ = false;
    return false;
  }
  if (r.kind != Reply::Kind::Array) unexpected_hello(r);
  return true;
}

void RedisConn::unexpected_hello(const Reply& r) const {
  throw RedisError(where_ + ": HELLO 3: unexpected reply " + r.to_string());
}

Reply RedisConn::read_reply() {
  if (!ctx_) throw RedisError(where_ + ": connection is closed");
  if (resp3_) return read3_reply("read reply");
  void* raw = nullptr;
  if (redisGetReply(ctx_, &raw) != REDIS_OK || raw == nullptr) fail("read reply");
  auto* reply = static_cast<redisReply*>(raw);
  Reply out = reply_from_hiredis(reply);
  freeReplyObject(reply);
  return out;
}

Reply RedisConn::command(const std::vector<std::string>& argv) {
  append(argv);
  if (resp3_) return read3_reply(command_name(argv).c_str());
  void* raw = nullptr;
  if (redisGetReply(ctx_, &raw) != REDIS_OK || raw == nullptr) fail(command_name(argv));
  auto* reply = static_cast<redisReply*>(raw);
  Reply out = reply_from_hiredis(reply);
  freeReplyObject(reply);
  return out;
}

}  // namespace locksim
