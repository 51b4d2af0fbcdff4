// Sorted-set commands (redis/redis_commands.h), after Redis 7.0's
// zaddGenericCommand and zrangeGenericCommand: options, then every score,
// then the key; scores answered as redis_double_text (redis/redis_number.h).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <tuple>
#include <utility>
#include <optional>
#include <string>
#include <vector>

#include "redis/redis_command_util.h"
#include "redis/redis_number.h"

namespace locksim::redis_cmd {

namespace {

// A score as Redis's bulk reply, without allocating.
void score_reply(double score, ReplySink& reply) {
  char buf[kDoubleTextSize];
  reply.bulk(std::string_view(buf, redis_double_text(score, buf)));
}

// ZADD / ZINCRBY (incr_only: ZINCRBY, the INCR option implied).
void zadd_generic(CommandContext& ctx, CommandArgs argv, ReplySink& reply, bool incr_only) {
  bool nx = false, xx = false, gt = false, lt = false, ch = false, incr = incr_only;
  size_t scoreidx = 2;
  for (; scoreidx < argv.size(); ++scoreidx) {
    std::string_view opt = argv[scoreidx];
    if (ieq(opt, "nx")) nx = true;
    else if (ieq(opt, "xx")) xx = true;
    else if (ieq(opt, "ch")) ch = true;
    else if (ieq(opt, "incr")) incr = true;
    else if (ieq(opt, "gt")) gt = true;
    else if (ieq(opt, "lt")) lt = true;
    else break;
  }
  const size_t args = argv.size() - scoreidx;
  if (args % 2 != 0 || args == 0) {
    reply.error(kSyntax);
    return;
  }
  const size_t elements = args / 2;
  if (nx && xx) {
    reply.error("ERR XX and NX options at the same time are not compatible");
    return;
  }
  if ((gt && nx) || (lt && nx) || (gt && lt)) {
    reply.error("ERR GT, LT, and/or NX options at the same time are not compatible");
    return;
  }
  if (incr && elements > 1) {
    reply.error("ERR INCR option supports a single increment-element pair");
    return;
  }
  std::vector<double> scores(elements);
  for (size_t j = 0; j < elements; ++j) {
    if (!double_arg(argv[scoreidx + 2 * j], &scores[j], reply)) return;
  }
  Store& s = *ctx.store;
  std::string_view key = argv[1];
  const bool found = s.zset_ref(key, ctx.now_ms) != nullptr;  // WRONGTYPE
  int64_t added = 0, updated = 0, processed = 0;
  double score = 0;
  if (found || !xx) {
    for (size_t j = 0; j < elements; ++j) {
      std::string_view member = argv[scoreidx + 1 + 2 * j];
      double value = scores[j];
      const std::optional<double> current = s.zscore(key, member, ctx.now_ms);
      if (current) {
        if (nx) continue;
        if (incr) {
          value += *current;
          if (std::isnan(value)) {
            reply.error("ERR resulting score is not a number (NaN)");
            return;
          }
        }
        if ((lt && value >= *current) || (gt && value <= *current)) continue;
        if (value != *current) {
          s.zadd(key, value, member, ctx.now_ms);
          ++updated;
        }
      } else if (!xx) {
        s.zadd(key, value, member, ctx.now_ms);
        ++added;
      } else {
        continue;
      }
      ++processed;
      score = value;
    }
  }
  if (incr) {
    processed > 0 ? score_reply(score, reply) : reply.nil();
  } else {
    reply.integer(ch ? added + updated : added);
  }
}

// A score range bound: "[(]<strtod text>", as zslParseRange reads it.
bool parse_bound(std::string_view text, double* value, bool* exclusive) {
  const std::string terminated(text);  // strtod reads up to the NUL, as Redis does
  const char* p = terminated.c_str();
  *exclusive = p[0] == '(';
  if (*exclusive) ++p;
  char* end = nullptr;
  *value = std::strtod(p, &end);
  return end[0] == '\0' && !std::isnan(*value);
}

struct ScoreRange {
  double min = 0, max = 0;
  bool minex = false, maxex = false;
  bool empty() const { return min > max || (min == max && (minex || maxex)); }
};

// How many members score below `score` (or at most `score`, `or_equal`):
// the rank a range bound falls at, in O(log n). ("", the least member, sorts
// first among equal scores; the next double up stands for "above".)
size_t count_below(const Store::ZSetOrder& z, double score, bool or_equal) {
  if (!or_equal) return z.order_of_key(std::pair<double, std::string>{score, std::string()});
  if (score == HUGE_VAL) return z.size();
  return z.order_of_key(std::pair<double, std::string>{std::nextafter(score, HUGE_VAL), std::string()});
}

// The ranks [first, last) of the members within `range`.
std::pair<size_t, size_t> ranks_in(const Store::ZSetOrder& z, const ScoreRange& range) {
  if (range.empty()) return {0, 0};
  const size_t first = count_below(z, range.min, range.minex);
  const size_t last = count_below(z, range.max, !range.maxex);
  return {first, std::max(first, last)};
}

bool parse_range(std::string_view min, std::string_view max, ScoreRange* r, ReplySink& reply) {
  if (!parse_bound(min, &r->min, &r->minex) || !parse_bound(max, &r->max, &r->maxex)) {
    reply.error("ERR min or max is not a float");
    return false;
  }
  return true;
}

enum class RangeBy { Auto, Rank, Score };

// Z[REV]RANGE[BYSCORE] after zrangeGenericCommand: argv[1] the key, argv[2],
// argv[3] the range, options from argv[4].
void zrange_generic(CommandContext& ctx, CommandArgs argv, ReplySink& reply, RangeBy by, std::optional<bool> reverse) {
  bool withscores = false;
  int64_t offset = 0, limit = -1;
  bool has_limit = false;
  for (size_t j = 4; j < argv.size(); ++j) {
    const size_t left = argv.size() - j - 1;
    std::string_view opt = argv[j];
    if (ieq(opt, "withscores")) {
      withscores = true;
    } else if (ieq(opt, "limit") && left >= 2) {
      if (!int_arg(argv[j + 1], &offset, reply) || !int_arg(argv[j + 2], &limit, reply)) return;
      has_limit = true;
      j += 2;
    } else if (!reverse && ieq(opt, "rev")) {
      reverse = true;
    } else if (by == RangeBy::Auto && ieq(opt, "bylex")) {
      throw UnsupportedCommand(unsupported_command_text("ZRANGE ... BYLEX"));
    } else if (by == RangeBy::Auto && ieq(opt, "byscore")) {
      by = RangeBy::Score;
    } else {
      reply.error(kSyntax);
      return;
    }
  }
  const bool rev = reverse.value_or(false);
  if (by == RangeBy::Auto) by = RangeBy::Rank;
  if (has_limit && limit != -1 && by == RangeBy::Rank) {
    reply.error("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
    return;
  }
  int64_t start = 0, stop = 0;
  ScoreRange range;
  if (by == RangeBy::Rank) {
    if (!int_arg(argv[2], &start, reply) || !int_arg(argv[3], &stop, reply)) return;
  } else {
    std::string_view min = rev ? argv[3] : argv[2];
    std::string_view max = rev ? argv[2] : argv[3];
    if (!parse_range(min, max, &range, reply)) return;
  }
  const Store::ZSetOrder* z = ctx.store->zset_ref(argv[1], ctx.now_ms);  // WRONGTYPE
  std::vector<const std::pair<double, std::string>*> out;
  // The ranks taken, ascending: [first, last), walked from `first` up, or
  // (rev) from last - 1 down.
  size_t first = 0, last = 0;
  if (z != nullptr && by == RangeBy::Rank) {
    if (clip_range(static_cast<int64_t>(z->size()), &start, &stop)) {
      const size_t n = z->size();
      first = rev ? n - 1 - static_cast<size_t>(stop) : static_cast<size_t>(start);
      last = rev ? n - static_cast<size_t>(start) : static_cast<size_t>(stop) + 1;
    }
  } else if (z != nullptr && offset >= 0) {
    std::tie(first, last) = ranks_in(*z, range);
    const size_t skip = std::min(static_cast<size_t>(offset), last - first);
    const size_t count = limit < 0 ? last - first - skip : std::min(static_cast<size_t>(limit), last - first - skip);
    if (rev) {
      last -= skip;
      first = last - count;
    } else {
      first += skip;
      last = first + count;
    }
    ctx.store->note_work(skip);  // Redis walks the offset too
  }
  if (first < last) {
    ctx.store->note_work(last - first);
    out.reserve(last - first);
    if (!rev) {
      auto it = z->find_by_order(first);
      for (size_t i = first; i < last; ++i, ++it) out.push_back(&*it);
    } else {
      auto it = z->find_by_order(last - 1);
      for (size_t i = last; i > first; --i) {
        out.push_back(&*it);
        if (i - 1 > first) --it;
      }
    }
  }
  reply.array(withscores ? 2 * out.size() : out.size());
  for (const auto* e : out) {
    reply.bulk(e->second);
    if (withscores) score_reply(e->first, reply);
  }
}

// ZRANK / ZREVRANK.
void rank(CommandContext& ctx, CommandArgs argv, ReplySink& reply, bool rev) {
  const Store::ZSetOrder* z = ctx.store->zset_ref(argv[1], ctx.now_ms);
  const std::optional<double> score = z == nullptr ? std::nullopt : ctx.store->zscore(argv[1], argv[2], ctx.now_ms);
  if (!score) {
    reply.nil();
    return;
  }
  const auto pos = static_cast<int64_t>(z->order_of_key(std::pair<double, std::string>{*score, std::string(argv[2])}));
  reply.integer(rev ? static_cast<int64_t>(z->size()) - 1 - pos : pos);
}

void remove_members(CommandContext& ctx, std::string_view key, const std::vector<std::string>& members,
                    ReplySink& reply) {
  for (const std::string& m : members) ctx.store->zrem(key, m, ctx.now_ms);
  reply.integer(static_cast<int64_t>(members.size()));
}

}  // namespace

void zadd(CommandContext& ctx, CommandArgs argv, ReplySink& reply) { zadd_generic(ctx, argv, reply, false); }
void zincrby(CommandContext& ctx, CommandArgs argv, ReplySink& reply) { zadd_generic(ctx, argv, reply, true); }

void zrem(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  Store& s = *ctx.store;
  (void)s.zset_ref(argv[1], ctx.now_ms);  // WRONGTYPE
  int64_t n = 0;
  for (size_t i = 2; i < argv.size(); ++i) n += s.zrem(argv[1], argv[i], ctx.now_ms);
  reply.integer(n);
}

void zscore(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  const std::optional<double> v = ctx.store->zscore(argv[1], argv[2], ctx.now_ms);
  v ? score_reply(*v, reply) : reply.nil();
}

void zmscore(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  (void)ctx.store->zset_ref(argv[1], ctx.now_ms);  // WRONGTYPE
  reply.array(argv.size() - 2);
  for (size_t i = 2; i < argv.size(); ++i) {
    const std::optional<double> v = ctx.store->zscore(argv[1], argv[i], ctx.now_ms);
    v ? score_reply(*v, reply) : reply.nil();
  }
}

void zcard(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  const Store::ZSetOrder* z = ctx.store->zset_ref(argv[1], ctx.now_ms);
  reply.integer(z == nullptr ? 0 : static_cast<int64_t>(z->size()));
}

void zcount(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  ScoreRange range;
  if (!parse_range(argv[2], argv[3], &range, reply)) return;
  const Store::ZSetOrder* z = ctx.store->zset_ref(argv[1], ctx.now_ms);
  size_t n = 0;
  if (z != nullptr) {
    const auto [first, last] = ranks_in(*z, range);
    n = last - first;
  }
  reply.integer(static_cast<int64_t>(n));
}

void zrank(CommandContext& ctx, CommandArgs argv, ReplySink& reply) { rank(ctx, argv, reply, false); }
void zrevrank(CommandContext& ctx, CommandArgs argv, ReplySink& reply) { rank(ctx, argv, reply, true); }

void zrange(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  zrange_generic(ctx, argv, reply, RangeBy::Auto, std::nullopt);
}
void zrevrange(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  zrange_generic(ctx, argv, reply, RangeBy::Rank, true);
}
void zrangebyscore(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  zrange_generic(ctx, argv, reply, RangeBy::Score, false);
}
void zrevrangebyscore(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  zrange_generic(ctx, argv, reply, RangeBy::Score, true);
}

void zremrangebyscore(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  ScoreRange range;
  if (!parse_range(argv[2], argv[3], &range, reply)) return;
  const Store::ZSetOrder* z = ctx.store->zset_ref(argv[1], ctx.now_ms);
  std::vector<std::string> members;
  if (z != nullptr) {
    const auto [first, last] = ranks_in(*z, range);
    ctx.store->note_work(last - first);
    auto it = first < last ? z->find_by_order(first) : z->end();
    for (size_t i = first; i < last; ++i, ++it) members.push_back(it->second);
  }
  remove_members(ctx, argv[1], members, reply);
}

void zremrangebyrank(CommandContext& ctx, CommandArgs argv, ReplySink& reply) {
  int64_t start = 0, stop = 0;
  if (!int_arg(argv[2], &start, reply) || !int_arg(argv[3], &stop, reply)) return;
  const Store::ZSetOrder* z = ctx.store->zset_ref(argv[1], ctx.now_ms);
  std::vector<std::string> members;
  if (z != nullptr && clip_range(static_cast<int64_t>(z->size()), &start, &stop)) {
    ctx.store->note_work(static_cast<uint64_t>(stop - start + 1));
    auto it = z->find_by_order(static_cast<size_t>(start));
    for (int64_t i = start; i <= stop; ++i, ++it) members.push_back(it->second);
  }
  remove_members(ctx, argv[1], members, reply);
}

}  // namespace locksim::redis_cmd
