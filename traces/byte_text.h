// Byte strings in text outputs. Script replies, published messages and
// owner fields come from a server and may hold any bytes: NUL, control
// characters, bytes that are not UTF-8.
//  - is_valid_utf8(): whether `s` is well-formed UTF-8 (no overlong forms,
//    no surrogates, nothing past U+10FFFF).
//  - visible_text(): the text for people (console, reports, timelines):
//    valid UTF-8 with no control character. Printable text and well-formed
//    multi-byte characters are kept; a tab is kept; every other byte below
//    0x20, DEL and every byte of a malformed sequence is written "\xNN"
//    (a newline too: one message stays one line). Not reversible.
//  - to_hex() / from_hex(): the lossless form traces use for a string that
//    is not valid UTF-8 (traces/trace_format.h: {"hex": "..."}), lower-case
//    two digits per byte; from_hex() is false for anything else.
#pragma once

#include <string>
#include <string_view>

namespace locksim {

bool is_valid_utf8(std::string_view s);
std::string visible_text(std::string_view s);
std::string to_hex(std::string_view bytes);
bool from_hex(std::string_view hex, std::string* out);

}  // namespace locksim
