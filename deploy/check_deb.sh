#!/usr/bin/env bash
# CTest DebPackageRunsFromAScratchRoot (label install): builds the Debian
# packages (cpack -G DEB), checks the runtime package's control fields,
# unpacks it into a scratch root (dpkg -x) and runs its locksim from a
# directory outside the checkout, with no LOCKSIM_SCRIPTS nor
# LOCKSIM_VCLOCK_SHIM, and with the checkout and the build dir hidden (a
# private mount namespace): doctor (the shim found beside the command, the
# virtual clock working), a model campaign, a live campaign, a lua campaign
# on our pack and one on a mutant pack (whose other scripts come from our
# pack through its "roots"), a run whose trace must equal the build tree's
# byte for byte, and a script-mutant campaign whose failure replays. Each of these reads the built-in script
# packs; a locksim that read them from the checkout fails here. The
# development package is unpacked too and examples/ configured and built
# against it.
# Usage: check_deb.sh SOURCE_DIR BUILD_DIR CXX_COMPILER
# Exit 0 ok, 1 a check failed, 77 skipped (no mount namespace can be made here).
set -euo pipefail
source "$(dirname "$0")/check_lib.sh"
check_init check_deb "$1" "$2" "$3"

(cd "$BUILD" && cpack -G DEB -B "$WORK/pkgs" >"$WORK/cpack.log" 2>&1) || { cat "$WORK/cpack.log"; fail "cpack -G DEB"; }
DEB=$(ls "$WORK"/pkgs/locksim_*.deb)
DEV=$(ls "$WORK"/pkgs/locksim-dev_*.deb)

# Control fields: the name, Depends from what the binaries link
# (dpkg-shlibdeps), redis-server and graphviz recommended.
[ "$(dpkg-deb -f "$DEB" Package)" = locksim ] || fail "Package is not locksim"
DEPENDS=$(dpkg-deb -f "$DEB" Depends)
for p in libc6 libstdc++6 libhiredis liblua5.1-0 libsimdjson; do
  grep -q "\b$p" <<<"$DEPENDS" || fail "Depends lacks $p: $DEPENDS"
done
RECOMMENDS=$(dpkg-deb -f "$DEB" Recommends)
for p in redis-server graphviz; do grep -qw "$p" <<<"$RECOMMENDS" || fail "Recommends lacks $p: $RECOMMENDS"; done

ROOT=$WORK/root
dpkg -x "$DEB" "$ROOT"
LOCKSIM=$ROOT/usr/bin/locksim
[ -x "$LOCKSIM" ] || fail "no usr/bin/locksim in $DEB"
SHIM=$(find "$ROOT/usr/lib" -name liblocksim_vclock.so)
[ -n "$SHIM" ] || fail "no vclock shim in $DEB"
# The program holds no path to the checkout as a value of its own (a path
# made from the source dir, such as the old <source>/impl/lua).
python3 - "$LOCKSIM" "$SRC" <<'PY' || fail "the packaged locksim holds the source dir as a string"
import sys
data = open(sys.argv[1], "rb").read()
sys.exit(1 if b"\0" + sys.argv[2].encode() + b"\0" in data else 0)
PY

# The reference: the build tree's locksim, run normally.
"$BUILD/tools/locksim" run --seed 3 --lock fair --profile hostile --duration-s 20 --trace "$WORK/expected.jsonl" >/dev/null

if ! hidden_checkout_ready; then
  echo "check_deb: SKIPPED the runs from the scratch root: the checkout cannot be hidden here" >&2
  exit 77
fi
mkdir "$WORK/run"
in_root() {  # locksim ARGS..., from $WORK/run, with the checkout hidden
  (cd "$WORK/run" && run_hidden env -u LOCKSIM_SCRIPTS -u LOCKSIM_VCLOCK_SHIM "$LOCKSIM" "$@")
}

out=$(in_root doctor 2>&1) || fail "locksim doctor exited $?: $out"
grep -qF "vclock shim: ok ($SHIM)" <<<"$out" || fail "doctor did not use the packaged shim: $out"
grep -qF "virtual clock: ok" <<<"$out" || fail "doctor: $out"
echo "$out"

out=$(in_root campaign --seeds 5 --profile safe --out "$WORK/run/safe" 2>&1) || fail "model campaign exited $?: $out"
[ -s "$WORK/run/safe/summary.json" ] || fail "model campaign wrote no summary.json: $out"
echo "model campaign: $(head -1 <<<"$out")"

out=$(in_root campaign --seeds 2 --backend live --profile safe --duration-ms 3000 --out "$WORK/run/live" 2>&1) \
  || fail "live campaign exited $?: $out"
echo "live campaign: $(head -1 <<<"$out")"

out=$(in_root campaign --seeds 3 --backend lua --profile safe --duration-ms 3000 --out "$WORK/run/lua" 2>&1) \
  || fail "lua campaign exited $?: $out"
grep -qF '"backend": "lua"' "$WORK/run/lua/summary.json" || fail "the lua campaign's summary does not say lua"
echo "lua campaign: $(head -1 <<<"$out")"

set +e
out=$(in_root campaign --seeds 20 --backend lua --profile none --scripts builtin:impl/mutants/release_no_publish \
  --no-shrink --out "$WORK/run/lua-mutant" 2>&1)
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "the lua campaign on a built-in mutant pack exited $rc, not 1 (a property failed): $out"
echo "lua campaign on builtin:impl/mutants/release_no_publish: caught"

in_root run --seed 3 --lock fair --profile hostile --duration-s 20 --trace "$WORK/run/actual.jsonl" >/dev/null 2>&1 \
  || fail "locksim run exited $?"
cmp "$WORK/expected.jsonl" "$WORK/run/actual.jsonl" || fail "the packaged locksim's trace differs from the build tree's"
echo "run: trace identical to the build tree's ($(wc -l <"$WORK/expected.jsonl") lines)"

set +e
out=$(in_root campaign --seeds 20 --profile none --mutant release_no_publish --no-shrink --out "$WORK/run/mutant" 2>&1)
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "the script-mutant campaign exited $rc, not 1 (a property failed): $out"
TRACE=$(ls "$WORK"/run/mutant/failures/*.jsonl | head -1)
head -1 "$TRACE" | grep -qF '"scripts":"builtin:impl/mutants/release_no_publish"' \
  || fail "the mutant's trace does not name its built-in pack: $(head -1 "$TRACE")"
out=$(in_root replay "$TRACE" 2>&1) || fail "replay of the mutant's failure exited $?: $out"
echo "mutant campaign: caught; $(head -1 <<<"$out")"

# The development package: examples/ against it, as against `cmake --install`.
dpkg -x "$DEV" "$ROOT"
build_examples "$ROOT/usr" "$WORK/example"
echo "check_deb: ok ($(basename "$DEB"), $(basename "$DEV"))"
