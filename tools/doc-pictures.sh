#!/usr/bin/env bash
# tools/doc-pictures.sh: draws every picture README.md and docs/ show, with
# the very commands they show, into a directory you name.
#
#   bash tools/doc-pictures.sh [--locksim PATH] [--no-screenshots] OUT_DIR
#
# The commands run in a scratch directory of their own (removed at the end),
# where ./build/tools/locksim is PATH (default: this checkout's
# build/tools/locksim), so each line below reads exactly as the documents
# show it; the pictures are then copied into OUT_DIR, under the names the
# documents use. `bash tools/doc-pictures.sh docs/images` redraws the
# pictures the documents ship. report.png and coverage-section.png are
# screenshots of a campaign's report.html in headless Chromium (the
# coverage section alone, as its own page; the scratch directory's random
# name written /tmp/locksim-docs, and locksim on PATH so the page's
# commands read `locksim ...`); --no-screenshots leaves them out. Needs Graphviz's dot (and chromium for the screenshots); a missing
# one is an error, exit 2. A command that fails stops the script, exit 1,
# with its output. The test DocPicturesDrawEveryPictureTheDocsShow runs it
# into a temp dir and checks every picture (tests/tools/check_doc_pictures.py).
set -euo pipefail

usage() {
  echo "usage: bash tools/doc-pictures.sh [--locksim PATH] [--no-screenshots] OUT_DIR" >&2
  exit 2
}

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
locksim="$root/build/tools/locksim"
screenshots=1
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --locksim) [ $# -ge 2 ] || usage; locksim="$2"; shift 2 ;;
    --no-screenshots) screenshots=0; shift ;;
    -h|--help) sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "doc-pictures: unknown option $1" >&2; usage ;;
    *) [ -z "$out" ] || usage; out="$1"; shift ;;
  esac
done
[ -n "$out" ] || usage
if [ ! -x "$locksim" ]; then
  echo "doc-pictures: $locksim is not an executable (cmake --build build --target locksim, or --locksim PATH)" >&2
  exit 2
fi
command -v dot > /dev/null || { echo "doc-pictures: dot is not installed (Debian: graphviz)" >&2; exit 2; }
if [ "$screenshots" = 1 ] && ! command -v chromium > /dev/null; then
  echo "doc-pictures: chromium is not installed (Debian: chromium), or pass --no-screenshots" >&2
  exit 2
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
locksim=$(realpath "$locksim")
work=$(mktemp -d "${TMPDIR:-/tmp}/locksim-doc-pictures.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/build/tools" "$work/bin"
ln -s "$locksim" "$work/build/tools/locksim"
# On PATH too, as an installed locksim is: the report's commands then read
# `locksim ...`, not this machine's path to the build.
ln -s "$locksim" "$work/bin/locksim"
export PATH="$work/bin:$PATH"
cd "$work"

# Runs a command as the documents show it. Campaigns, runs and explorations
# that find a violation exit 1: that is what they are run for.
step() {
  echo "+ $*"
  local rc=0
  "$@" > "$work/step.log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ] && { [ "$rc" -ne 1 ] || [ "$2" = timeline ]; }; then
    cat "$work/step.log" >&2
    echo "doc-pictures: failed (exit $rc): $*" >&2
    exit 1
  fi
}

# README.md and docs/timelines-and-reports.md: the pause counterexample.
step ./build/tools/locksim run --seed 7 --profile pauses --lock rlock --trace pause.jsonl
step ./build/tools/locksim timeline pause.jsonl --violation 1 --shrink -o pause-counterexample.png
step ./build/tools/locksim timeline pause.jsonl --violation 1 -o pause-violation-window.png
step ./build/tools/locksim timeline pause.jsonl --around 134 -o around-paused-holder.png

# docs/timelines-and-reports.md: a view for every property.
step ./build/tools/locksim campaign --profile hostile --lock mixed --locks 2 --base-seed 60 --seeds 1 --out mixed60
step ./build/tools/locksim timeline mixed60/failures/60.shrunk.jsonl --violation 1 -o mutual-exclusion-overlap.png
step ./build/tools/locksim campaign --profile hostile --lock mixed --locks 2 --base-seed 9 --seeds 1 --out mixed9
step ./build/tools/locksim timeline mixed9/failures/9.shrunk.jsonl --violation 1 --radius 8 -o fifo-purge-by-skew.png
step ./build/tools/locksim run --seed 180 --profile hostile --lock fair --trace fair180.jsonl
step ./build/tools/locksim timeline fair180.jsonl --property busy_poll -o busy-poll.png
step ./build/tools/locksim campaign --mutant fair_ttl_from_deadline --lock fair --seeds 300 --out ttl
step ./build/tools/locksim timeline ttl/failures/2.shrunk.jsonl --violation 1 -o liveness-free-lock.png
step ./build/tools/locksim campaign --mutant watchdog_not_cancelled --seeds 1 --out wd
step ./build/tools/locksim timeline wd/failures/1.shrunk.jsonl --violation 1 -o watchdog-not-cancelled.png
step ./build/tools/locksim campaign --seeds 20 --profile pauses --mutant renew_no_owner_check --out quickstart
step ./build/tools/locksim timeline quickstart/failures/7.watchdog_expiry.shrunk.jsonl --property watchdog_expiry -o renewal-of-anothers-lock.png
step ./build/tools/locksim campaign --mutant fair_giveup_no_acquire_failed --lock fair --seeds 1 --out ghost
step ./build/tools/locksim timeline ghost/failures/1.shrunk.jsonl --violation 1 -o fair-line-ghost.png
step ./build/tools/locksim explore --lock rlock --clients 2 --ops lock,unlock,lock,unlock --faults crash,pause,loss --max-faults 2 --out explore
step ./build/tools/locksim timeline explore/failures/mutual_exclusion.jsonl --violation 1 -o explore-mutual-exclusion.png
step ./build/tools/locksim timeline explore/failures/reentrancy.jsonl --violation 1 -o explore-retried-release.png
step ./build/tools/locksim campaign --profile hostile --lock redlock --servers 3 --base-seed 2 --seeds 1 --out redlock2
step ./build/tools/locksim timeline redlock2/failures/2.shrunk.jsonl --violation 1 -o redlock-three-servers.png
# docs/spin-lock.md: spin waiters backing off; a back-off that never grows.
step ./build/tools/locksim run --seed 3 --profile safe --lock spin --trace spin3.jsonl
step ./build/tools/locksim timeline spin3.jsonl --around 20 -o spin-backoff.png
step ./build/tools/locksim explore --lock spin --clients 2 --ops lock,unlock --faults pause --max-faults 0 --hold-ms 200 --mutant backoff_no_growth --fail-on busy_poll --out spinbusy
step ./build/tools/locksim timeline spinbusy/failures/busy_poll.jsonl --property busy_poll -o spin-backoff-no-growth.png
# docs/faster-multi-lock.md: a value taken by a client whose clock runs ahead.
step ./build/tools/locksim run --seed 2 --profile skew --lock faster_multi --trace fm2.jsonl
step ./build/tools/locksim timeline fm2.jsonl --around 171 -o faster-multi-skew.png

pictures=(pause-counterexample pause-violation-window around-paused-holder mutual-exclusion-overlap fifo-purge-by-skew
          busy-poll liveness-free-lock watchdog-not-cancelled renewal-of-anothers-lock fair-line-ghost
          explore-mutual-exclusion explore-retried-release redlock-three-servers spin-backoff spin-backoff-no-growth
          faster-multi-skew)

if [ "$screenshots" = 1 ]; then
  # docs/timelines-and-reports.md: report.html of mixed9; docs/coverage.md:
  # the coverage section of the README's main campaign's report.html.
  step ./build/tools/locksim campaign --seeds 300 --profile safe --lock mixed --locks 2 --out out
  # The report's paths are absolute, under this scratch directory, whose
  # name is random: the copies photographed write it /tmp/locksim-docs, so
  # the pictures show no random name (their timings still vary).
  python3 - "$work" "$work/mixed9/report.html" "$work/mixed9/report-shown.html" "$work/out/report.html" "$work/coverage.html" << 'EOF'
import sys
work, report, report_page, main, coverage = sys.argv[1:6]
def read(path):
    return open(path, encoding="utf-8").read().replace(work + "/", "/tmp/locksim-docs/")
open(report_page, "w", encoding="utf-8").write(read(report))
page = read(main)
start = page.index('<h2 id="coverage">')
end = page.find("<h2", start + 1)
end = page.index("<script", start) if end < 0 else end
head = page[: page.index("<body>") + len("<body>")]
open(coverage, "w", encoding="utf-8").write(head + page[start:end] + "</body></html>\n")
EOF
  shoot() {  # URL WIDTH HEIGHT PNG
    echo "+ chromium --headless --screenshot=$4 --window-size=$2,$3 $1"
    timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
      --disable-component-update --disable-sync --user-data-dir="$work/chromium" --hide-scrollbars \
      --window-size="$2,$3" --virtual-time-budget=5000 --screenshot="$4" "$1" > "$work/chromium.log" 2>&1 ||
      { cat "$work/chromium.log" >&2; echo "doc-pictures: chromium failed on $1" >&2; exit 1; }
  }
  shoot "file://$work/mixed9/report-shown.html" 1400 1800 "$work/report.png"
  shoot "file://$work/coverage.html" 1100 1500 "$work/coverage-section.png"
  pictures+=(report coverage-section)
fi

for p in "${pictures[@]}"; do
  [ -s "$work/$p.png" ] || { echo "doc-pictures: $p.png was not drawn" >&2; exit 1; }
  cp "$work/$p.png" "$out/$p.png"
done
echo "doc-pictures: ${#pictures[@]} pictures in $out"
