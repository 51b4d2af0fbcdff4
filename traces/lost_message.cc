#include "traces/lost_message.h"

#include <array>

namespace locksim {

namespace {

LostMessage call_message(LostMessage::What what, std::string_view script, std::string_view lock) {
  LostMessage m;
  m.what = what;
  m.script.assign(script);
  m.lock.assign(lock);
  return m;
}

}  // namespace

std::string_view lost_what_name(LostMessage::What what) {
  switch (what) {
    case LostMessage::What::None: return "";
    case LostMessage::What::Request: return "request";
    case LostMessage::What::Reply: return "reply";
    case LostMessage::What::Subscribe: return "subscribe";
    case LostMessage::What::SubscribeAck: return "subscribe_ack";
    case LostMessage::What::Message: return "message";
  }
  return "";
}

std::string_view hash_tag_of(std::string_view key) {
  const size_t open = key.find('{');
  if (open == std::string_view::npos) return {};
  const size_t close = key.find('}', open + 1);
  if (close == std::string_view::npos || close == open + 1) return {};
  return key.substr(open + 1, close - open - 1);
}

LostMessage LostMessage::request(std::string_view script, std::string_view lock) {
  return call_message(What::Request, script, lock);
}

LostMessage LostMessage::reply(std::string_view script, std::string_view lock) {
  return call_message(What::Reply, script, lock);
}

LostMessage LostMessage::on_channel(What what, std::string_view channel) {
  LostMessage m;
  m.what = what;
  m.channel.assign(channel);
  m.lock.assign(hash_tag_of(channel));
  return m;
}

void LostMessage::append_text(std::string* out) const {
  if (what == What::None) return;
  *out += lost_what_name(what);
  *out += ' ';
  if (is_call()) {
    *out += script;
    *out += ' ';
    *out += lock.name();
  } else {
    *out += channel;
  }
}

std::string LostMessage::text() const {
  std::string out;
  append_text(&out);
  return out;
}

bool LostMessage::read_text(std::string_view text, LostMessage* out) {
  static constexpr std::array<What, 5> kWhats = {What::Request, What::Reply, What::Subscribe, What::SubscribeAck,
                                                 What::Message};
  const size_t space = text.find(' ');
  if (space == std::string_view::npos) return false;
  const std::string_view word = text.substr(0, space);
  const std::string_view rest = text.substr(space + 1);
  for (What what : kWhats) {
    if (lost_what_name(what) != word) continue;
    LostMessage m;
    if (what == What::Request || what == What::Reply) {
      const size_t gap = rest.find(' ');
      if (gap == std::string_view::npos) return false;
      m = call_message(what, rest.substr(0, gap), rest.substr(gap + 1));
    } else {
      m = on_channel(what, rest);
    }
    // Only a text this type writes: "request a  b" (two spaces) would not
    // read back to the same bytes.
    if (m.text() != text) return false;
    *out = std::move(m);
    return true;
  }
  return false;
}

}  // namespace locksim
