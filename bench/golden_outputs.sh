#!/usr/bin/env bash
# golden_outputs.sh: the outputs a change that should change no behaviour
# must leave byte for byte the same, written into one directory so that two
# builds can be compared with `diff -r` (or the checksums in SHA256SUMS).
#
#   bash bench/golden_outputs.sh LOCKSIM OUT_DIR [--quick]
#   diff -r OLD_OUT NEW_OUT && echo same
#
# What it writes (under OUT_DIR):
#   runs/    traces of `locksim run` over every profile x lock kind x 3 seeds
#            on the model backend, a few on the lua backend and under
#            mutants; `check` and `check --json` of each, and the `timeline
#            --format dot` of the failing ones (reports' text)
#   corpus/  `replay` and `check --json` of every trace of traces/corpus and
#            of fuzz/corpus/trace_reader (their bytes are the repository's:
#            tests/traces/corpus_reencode_test.cc re-encodes each event)
#   campaign/ two campaigns with shrinking and causes: their JSON and the
#            shrunk counterexamples' traces (failures/*.jsonl)
#   mutants.txt   `locksim mutants` (every mutant caught, with its seed)
#   explore.txt   the counts of docs/exploring.md's tables (first table and
#                 the mutant table), timing lines removed
#   SHA256SUMS    a checksum of every file above
# Wall-clock figures are removed where a command prints them. Takes about
# ten minutes on two cores (--quick: one seed per cell, no campaigns, no
# mutant table; a minute or two).
set -euo pipefail

if [[ $# -lt 2 ]]; then
  sed -n '2,25p' "$0"
  exit 2
fi
LOCKSIM=$(realpath "$1")
OUT=$2
QUICK=${3:-}
SRC=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
cd "$SRC"

# Wall-clock figures (rates, seconds, memory) and temporary paths: they
# differ from run to run. "states: N distinct, ... depth D; 0.3 s, ..." keeps
# its counts.
strip_timing() {
  sed -E -e 's/; [0-9.]+ s, [0-9]+ distinct states\/s.*$//' \
         -e 's#/tmp/tmp\.[A-Za-z0-9]+#TMP#g' \
         -e 's/[0-9]+(\.[0-9]+)? (s|ms) wall//g' \
         -e 's/peak RSS [0-9]+ MB//g'
}
# JSON without its timing and memory members.
strip_json_timing() {
  python3 -c '
import json, sys
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items()
                if k not in ("timings", "wall_s", "elapsed_s", "seconds", "states_per_s", "peak_rss_mb",
                             "runs_per_s", "events_per_s", "cpu_s", "runs_dir", "out", "created")}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v
text = sys.stdin.read()
try:
    print(json.dumps(clean(json.loads(text)), indent=1, sort_keys=True))
except ValueError:
    sys.stdout.write(text)
'
}

seeds="1 2 3"
[[ "$QUICK" == "--quick" ]] && seeds="1"

# ---- runs: traces, check, timelines ----
mkdir -p "$OUT/runs"
run_one() {  # name, then the run's flags; paths relative to OUT (timelines measure their text)
  local name=$1
  shift
  local trace="runs/$name.jsonl"
  (
    cd "$OUT"
    "$LOCKSIM" run "$@" --trace "$trace" >"runs/$name.run.txt" 2>&1 || true
    "$LOCKSIM" check "$trace" >"runs/$name.check.txt" 2>&1 || true
    "$LOCKSIM" check --json "$trace" 2>&1 | strip_json_timing >"runs/$name.check.json" || true
    if grep -q FAIL "runs/$name.check.txt"; then
      "$LOCKSIM" timeline "$trace" --violation 1 --format dot -o - >"runs/$name.timeline.dot" 2>&1 || true
      "$LOCKSIM" timeline "$trace" --violation 1 --view sequence --format dot -o - >"runs/$name.sequence.dot" 2>&1 || true
    fi
  )
}
for profile in none safe pauses skew hostile restarts failover server-clock; do
  for lock in rlock fair mixed multi redlock; do
    servers=1
    [[ "$lock" == multi || "$lock" == redlock ]] && servers=3
    [[ "$profile" == failover || "$profile" == restarts || "$profile" == server-clock ]] && servers=3
    for seed in $seeds; do
      run_one "model-$profile-$lock-$seed" --seed "$seed" --profile "$profile" --lock "$lock" --servers "$servers" \
        --locks 2 --duration-s 20
    done
  done
done
run_one "model-restarts-always-1" --seed 1 --profile restarts --persistence always --servers 3 --duration-s 20
run_one "model-restarts-delay-1" --seed 1 --profile restarts --restart-delay-ms 2000 --servers 3 --duration-s 20
for profile in pauses hostile; do
  for lock in rlock fair; do
    run_one "lua-$profile-$lock-1" --backend lua --seed 1 --profile "$profile" --lock "$lock" --duration-s 10
  done
done
for mutant in watchdog_not_cancelled unlock_no_wake fair_no_stale_purge release_no_owner_check; do
  lock=rlock
  [[ "$mutant" == fair_* ]] && lock=fair
  run_one "mutant-$mutant-1" --seed 1 --profile hostile --lock "$lock" --mutant "$mutant" --duration-s 20
done

# ---- corpus: replay and check of the saved traces ----
mkdir -p "$OUT/corpus"
for f in traces/corpus/*.jsonl fuzz/corpus/trace_reader/*.jsonl; do
  name=$(basename "$(dirname "$f")")-$(basename "$f" .jsonl)
  "$LOCKSIM" replay "$f" >"$OUT/corpus/$name.replay.txt" 2>&1 || echo "exit $?" >>"$OUT/corpus/$name.replay.txt"
  "$LOCKSIM" check --json "$f" 2>&1 | strip_json_timing >"$OUT/corpus/$name.check.json" || true
done

if [[ "$QUICK" != "--quick" ]]; then
  # ---- campaigns: shrinking and causes ----
  mkdir -p "$OUT/campaign"
  camp() {  # name, then the campaign's flags
    local name=$1
    shift
    local dir
    dir=$(mktemp -d)
    "$LOCKSIM" campaign "$@" --json --out "$dir/runs" 2>/dev/null | strip_json_timing >"$OUT/campaign/$name.json" || true
    if [[ -d "$dir/runs/failures" ]]; then
      mkdir -p "$OUT/campaign/$name-failures"
      cp "$dir"/runs/failures/*.jsonl "$OUT/campaign/$name-failures/" 2>/dev/null || true
    fi
    rm -rf "$dir"
  }
  camp hostile-mixed --seeds 40 --profile hostile --lock mixed --locks 2 --duration-s 30 --workers 1
  camp pauses-rlock --seeds 60 --profile pauses --workers 1
  camp restarts-redlock --seeds 20 --profile restarts --lock redlock --servers 3 --workers 1

  # ---- mutants ----
  # Its wall_s column (the only figure with two decimals) is time.
  "$LOCKSIM" mutants 2>&1 | sed -E 's/ +[0-9]+\.[0-9]{2}( +[0-9]+ )/ wall\1/' >"$OUT/mutants.txt" || true
fi

# ---- explore: docs/exploring.md's configurations ----
explore() {  # the flags of one row
  local dir
  dir=$(mktemp -d)
  {
    echo "== explore $*"
    "$LOCKSIM" explore "$@" --out "$dir/runs" 2>&1 | sed "s#$dir#TMP#g" | strip_timing || true
  } >>"$OUT/explore.txt"
  rm -rf "$dir"
}
: >"$OUT/explore.txt"
explore --lock rlock --clients 2 --ops lock,unlock,lock,unlock --faults crash,pause,loss --max-faults 2
explore --lock rlock --clients 2 --ops lock,unlock,lock,unlock --faults crash,pause,loss --max-faults 2 --unexplained-only
explore --lock fair --clients 3 --ops lock,unlock --faults crash,loss --max-faults 1
explore --lock fair --clients 3 --ops lock,unlock --faults crash,loss --max-faults 1 --scripts impl/variants/fair_wait_for_head
if [[ "$QUICK" != "--quick" ]]; then
  # The mutant table: each row's flags as the page lists them.
  python3 - "$SRC/docs/exploring.md" >"$OUT/explore-mutant-rows.txt" <<'EOF'
import re, sys
rows = False
for line in open(sys.argv[1]):
    if line.startswith("| mutant | flags |"):
        rows = True
        continue
    if rows:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0].startswith("---"):
            continue
        print(cells[0].strip("`") + "\t" + cells[1].strip("`"))
EOF
  while IFS=$'\t' read -r mutant flags; do
    eval "explore --mutant $mutant $flags"
  done <"$OUT/explore-mutant-rows.txt"
fi

# The output directory's own path, in what the commands print about their files.
find "$OUT" -type f ! -name '*.jsonl' ! -name SHA256SUMS -print0 | xargs -0 sed -i -e "s#$OUT#OUT#g" -e "s#$SRC#SRC#g"
(cd "$OUT" && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | xargs sha256sum >SHA256SUMS)
echo "wrote $(wc -l <"$OUT/SHA256SUMS") files into $OUT"
