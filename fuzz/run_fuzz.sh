#!/usr/bin/env bash
# Bounded fuzz run: builds the libFuzzer targets of fuzz/ with clang in their
# own build dir and runs each for SECONDS on its seed corpus (fuzz/corpus/...,
# plus traces/corpus for the trace reader). With "build" in place of SECONDS
# it only builds them (the test suite builds them in a test of its own, whose
# time limit is the build's, not the fuzzing's). Exit 0: built, and every
# target ran clean; 1: the build failed, or a target crashed, leaked or timed
# out (the input is kept as WORK/crash-*, reproduce with
# WORK/build/fuzz/<target> <file>); 2: bad arguments; 77: no clang with a
# fuzzer runtime (install it with tools/setup-deps.sh), so ctest skips.
# Usage: bash fuzz/run_fuzz.sh SOURCE_DIR WORK_DIR SECONDS|build
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: bash fuzz/run_fuzz.sh SOURCE_DIR WORK_DIR SECONDS|build" >&2
  exit 2
fi
src=$1 work=$2 seconds=$3
if [ "$seconds" != build ] && ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "run_fuzz: SECONDS must be a positive whole number or 'build', not '$seconds'" >&2
  exit 2
fi

if ! command -v clang++ >/dev/null || ! command -v clang >/dev/null; then
  echo "run_fuzz: clang not found (tools/setup-deps.sh installs it); skipping"
  exit 77
fi
mkdir -p "$work"
rm -f "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*  # artifacts of earlier runs
probe=$work/probe.cc
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' >"$probe"
if ! clang++ -fsanitize=fuzzer "$probe" -o "$work/probe" 2>"$work/probe.log"; then
  echo "run_fuzz: clang has no libFuzzer runtime (tools/setup-deps.sh installs it); skipping"
  cat "$work/probe.log"
  exit 77
fi

# Configure once; later runs only rebuild what changed.
if [ ! -f "$work/build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DLOCKSIM_FUZZ=ON -DLOCKSIM_BUILD_TESTS=OFF -DLOCKSIM_BUILD_BENCH=OFF >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; exit 1; }
fi
cmake --build "$work/build" -j2 --target fuzz_trace_reader fuzz_script_pack fuzz_run_summary >"$work/build.log" 2>&1 ||
  { tail -50 "$work/build.log"; exit 1; }
if [ "$seconds" = build ]; then
  echo "run_fuzz: fuzz_trace_reader fuzz_script_pack fuzz_run_summary built in $work/build/fuzz"
  exit 0
fi

status=0
for target in trace_reader script_pack run_summary; do
  seeds=("$src/fuzz/corpus/$target")
  if [ "$target" = trace_reader ]; then seeds+=("$src/traces/corpus"); fi
  corpus=$work/corpus-$target  # new inputs go here, never into the source tree
  tmp=$work/tmp-$target
  rm -rf "$tmp" && mkdir -p "$corpus" "$tmp"
  echo "run_fuzz: $target for ${seconds}s"
  if ! TMPDIR=$tmp "$work/build/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=16384 -print_final_stats=1 -artifact_prefix="$work/" "$corpus" "${seeds[@]}" \
      >"$work/$target.log" 2>&1; then
    echo "run_fuzz: $target FAILED"
    grep -E "ERROR|SUMMARY|Test unit written|==[0-9]+==|No such file" "$work/$target.log" | head -20 || true
    status=1
  else
    grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$work/$target.log" | head -3 || true
  fi
  rm -rf "$tmp"
done
exit $status
