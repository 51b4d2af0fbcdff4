// LostMessage: which message a link dropped (a Fault "lost" event) or a
// schedule made late (a Fault "delayed" event): a script's request or its
// reply, for which script on which lock; or a pub/sub subscription, its
// acknowledgement or a published message, on which channel.
//
// Contract: text() is what a trace writes as the event's detail:
// "request <script> <lock>", "reply <script> <lock>", "subscribe
// <channel>", "subscribe_ack <channel>", "message <channel>"; read_text()
// accepts exactly the texts text() gives (so that a trace's text reads back
// to the same message and writes back to the same bytes) and refuses
// anything else. For the channel kinds `lock` is the lock the channel
// belongs to, its Redis hash tag ("L0" of "redisson_lock__channel:{L0}"),
// empty when it has none; it is not part of the text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "traces/lock_ref.h"

namespace locksim {

struct LostMessage {
  enum class What : uint8_t { None, Request, Reply, Subscribe, SubscribeAck, Message };
  What what = What::None;
  std::string script;   // Request, Reply: the script's name (model/script_call.h)
  LockRef lock;         // Request, Reply: the lock the call names; else the channel's (see above)
  std::string channel;  // Subscribe, SubscribeAck, Message

  static LostMessage request(std::string_view script, std::string_view lock);
  static LostMessage reply(std::string_view script, std::string_view lock);
  // Subscribe, SubscribeAck or Message on `channel`.
  static LostMessage on_channel(What what, std::string_view channel);

  bool empty() const { return what == What::None; }
  // A script's request or reply (its client then waits out the request timeout).
  bool is_call() const { return what == What::Request || what == What::Reply; }
  // A subscription or its acknowledgement.
  bool is_subscription() const { return what == What::Subscribe || what == What::SubscribeAck; }
  void clear() { *this = LostMessage{}; }

  // The text (see the contract), appended to *out.
  void append_text(std::string* out) const;
  std::string text() const;
  // Reads `text` into *out; false (and *out unchanged) when text() could not have written it.
  static bool read_text(std::string_view text, LostMessage* out);

  bool operator==(const LostMessage&) const = default;
};

// "request", "reply", "subscribe", "subscribe_ack", "message".
std::string_view lost_what_name(LostMessage::What what);

// The hash tag of a Redis key or channel: the text between its first '{'
// and the first '}' after it, when that is not empty; else "".
std::string_view hash_tag_of(std::string_view key);

}  // namespace locksim
