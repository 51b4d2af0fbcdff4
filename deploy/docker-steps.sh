#!/usr/bin/env bash
# Performs the steps of deploy/Dockerfile without a container engine: each
# stage's FROM becomes a scratch Debian root made by mmdebstrap (minbase of
# the same release; "-slim" also drops docs, man pages and locales as the
# slim image does), and its WORKDIR, ENV, COPY and RUN instructions are
# carried out in that root as written (RUN under chroot with /proc and /dev
# mounted, in a private mount namespace; no service is started, as in an
# image build). Then the image's entry point runs as `docker run` would:
# doctor, a model, a live and a lua campaign, writing under its WORKDIR; and
# the pods of the Kubernetes Jobs in deploy/ run in it as a cluster would run
# them (every shard of the campaign Job with fewer seeds, then the merge).
#
# Usage: docker-steps.sh [--build-dir DIR] [--keep] SOURCE_DIR
#   --build-dir DIR  instead of the whole build stage (a fresh root, the
#                    dependencies, a build from scratch: about 10 minutes on
#                    2 cores), run only its last step, `cpack -G DEB -B
#                    <its /pkgs>`, in the existing build dir DIR of this
#                    checkout; the runtime stage then runs in full.
#   --keep           keep the scratch roots (printed) instead of removing them.
# Needs root, mmdebstrap, python3-yaml, and the Debian mirror of /etc/apt/sources.list*.
# Exit 0 ok, 1 a step failed, 2 bad usage, 77 not root (skipped).
set -euo pipefail

BUILD_DIR=""
KEEP=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) BUILD_DIR=$(realpath "$2"); shift 2 ;;
    --keep) KEEP=1; shift ;;
    -*) echo "docker-steps: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || { echo "usage: docker-steps.sh [--build-dir DIR] [--keep] SOURCE_DIR" >&2; exit 2; }
SRC=$(realpath "$1")
DOCKERFILE=$SRC/deploy/Dockerfile
command -v mmdebstrap >/dev/null || { echo "docker-steps: needs mmdebstrap (tools/setup-deps.sh installs it)" >&2; exit 1; }
if [ "$(id -u)" -ne 0 ]; then echo "docker-steps: SKIPPED: needs root (chroot, mounts)" >&2; exit 77; fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/locksim-docker-XXXXXX")
cleanup() {
  if [ "$KEEP" -eq 1 ]; then echo "docker-steps: kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # a ctest timeout or ^C still cleans up
fail() { echo "docker-steps: FAILED: $*" >&2; exit 1; }
step() { echo "docker-steps: [$STAGE] $*"; }

# The Dockerfile as instructions, one a line (continuations joined, comments dropped).
mapfile -t INSTRUCTIONS < <(sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' "$DOCKERFILE" \
  | sed -e ':a' -e '/\\$/{N; s/\\\n//; ba}')

# Runs CMD (a shell command line) in ROOT as `RUN` does: /bin/sh -c, in the
# stage's WORKDIR with its ENV, /proc and /dev mounted for the command only.
run_in_root() {  # ROOT WORKDIR ENVFILE CMD
  unshare -m bash -c '
    set -e
    root=$1 wd=$2 envfile=$3 cmd=$4
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mkdir -p "$root$wd"
    exec chroot "$root" /usr/bin/env -i $(cat "$envfile") /bin/sh -c "cd \"$wd\" && $cmd"
  ' run "$@"
}

# A scratch root for `FROM IMAGE`.
make_root() {  # IMAGE ROOT
  local image=$1 root=$2 suite variant_opts=()
  case "$image" in
    debian:bookworm) suite=bookworm ;;
    debian:bookworm-slim)
      suite=bookworm
      variant_opts=(--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*'
                    --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/info/*'
                    --dpkgopt='path-exclude=/usr/share/locale/*') ;;
    *) fail "FROM $image: only debian:bookworm and debian:bookworm-slim are known here" ;;
  esac
  mmdebstrap --variant=minbase --mode=root --quiet "${variant_opts[@]}" "$suite" "$root" \
    || fail "mmdebstrap $suite (is the Debian mirror reachable?)"
  # As in an image build, packages start no service (redis-server's would).
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
}

STAGE=""
DEB_DIR=""
ROOT=""
WORKDIR=/
ENVFILE=""
ENTRYPOINT=()
declare -A STAGE_ROOT=()
SKIPPING=0
for ins in "${INSTRUCTIONS[@]}"; do
  read -r keyword rest <<<"$ins"
  keyword=${keyword^^}
  if [ "$keyword" = FROM ]; then
    read -r image _as name <<<"$rest"
    STAGE=${name:-stage${#STAGE_ROOT[@]}}
    ROOT=$WORK/$STAGE
    STAGE_ROOT[$STAGE]=$ROOT
    WORKDIR=/
    ENVFILE=$WORK/$STAGE.env
    printf 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\nHOME=/root\n' >"$ENVFILE"
    SKIPPING=0
    if [ -n "$BUILD_DIR" ] && [ "$STAGE" = build ]; then
      SKIPPING=1
      DEB_DIR=$WORK/pkgs
      step "only its last step, in $BUILD_DIR (--build-dir): cpack -G DEB -B /pkgs"
      (cd "$BUILD_DIR" && cpack -G DEB -B "$DEB_DIR" >"$WORK/cpack.log" 2>&1) || { cat "$WORK/cpack.log"; fail "cpack"; }
      continue
    fi
    step "FROM $image"
    make_root "$image" "$ROOT"
    continue
  fi
  [ "$SKIPPING" -eq 1 ] && continue
  case "$keyword" in
    WORKDIR)
      WORKDIR=$rest
      mkdir -p "$ROOT$WORKDIR"
      step "WORKDIR $WORKDIR" ;;
    ENV)
      printf '%s\n' "$rest" >>"$ENVFILE"
      step "ENV $rest" ;;
    COPY)
      from=""
      if [[ "$rest" == --from=* ]]; then from=${rest%% *}; from=${from#--from=}; rest=${rest#* }; fi
      read -r -a args <<<"$rest"
      dest=${args[-1]}
      unset 'args[-1]'
      case "$dest" in /*) ;; *) dest=$WORKDIR/$dest ;; esac
      step "COPY ${from:+--from=$from }${args[*]} $dest"
      for a in "${args[@]}"; do
        if [ -n "$from" ]; then
          if [ -n "$BUILD_DIR" ] && [ "$from" = build ] && [[ "$a" == /pkgs/* ]]; then
            src_glob=$DEB_DIR/${a#/pkgs/}
          else
            src_glob=${STAGE_ROOT[$from]}$a
          fi
          # shellcheck disable=SC2206
          matches=($src_glob)
          [ -e "${matches[0]}" ] || fail "COPY --from=$from $a: nothing matches"
          mkdir -p "$ROOT$dest"
          cp -a "${matches[@]}" "$ROOT$dest"
        elif [ "$a" = . ]; then
          # The build context without what .dockerignore leaves out.
          mkdir -p "$ROOT$dest"
          excludes=()
          while read -r pattern; do
            [ -z "$pattern" ] || [[ "$pattern" == \#* ]] || excludes+=(--exclude="./$pattern")
          done <"$SRC/.dockerignore"
          tar -C "$SRC" --anchored "${excludes[@]}" -cf - . | tar -C "$ROOT$dest" -xf -
        else
          mkdir -p "$(dirname "$ROOT$dest")"
          cp -a "$SRC/$a" "$ROOT$dest"
        fi
      done ;;
    RUN)
      step "RUN $rest"
      run_in_root "$ROOT" "$WORKDIR" "$ENVFILE" "$rest" || fail "RUN $rest" ;;
    ENTRYPOINT)
      mapfile -t ENTRYPOINT < <(python3 -c 'import json, sys; print("\n".join(json.loads(sys.argv[1])))' "$rest")
      step "ENTRYPOINT ${ENTRYPOINT[*]}" ;;
    CMD) step "CMD $rest (not run: the checks below give their own arguments)" ;;
    *) fail "instruction $keyword is not handled by this script" ;;
  esac
done
[ "$STAGE" != build ] && [ ${#ENTRYPOINT[@]} -gt 0 ] || fail "the last stage has no ENTRYPOINT"

# What `docker run IMAGE ARGS` does with the image: the entry point and ARGS,
# in the image's WORKDIR.
docker_run() { run_in_root "$ROOT" "$WORKDIR" "$ENVFILE" "$(printf '%q ' "${ENTRYPOINT[@]}" "$@")"; }
STAGE=run
step "doctor"
docker_run doctor || fail "locksim doctor in the image"
step "campaign --seeds 5 --profile safe --out safe"
docker_run campaign --seeds 5 --profile safe --out safe || fail "the model campaign in the image"
[ -s "$ROOT$WORKDIR/safe/summary.json" ] || fail "the model campaign wrote no summary.json"
step "campaign --seeds 2 --backend live --profile safe --duration-ms 3000 --out live"
docker_run campaign --seeds 2 --backend live --profile safe --duration-ms 3000 --out live \
  || fail "the live campaign in the image"
[ -s "$ROOT$WORKDIR/live/timelines/sample.svg" ] || fail "the live campaign drew no timeline (graphviz)"
step "campaign --seeds 3 --backend lua --profile safe --duration-ms 3000 --out lua"
docker_run campaign --seeds 3 --backend lua --profile safe --duration-ms 3000 --out lua \
  || fail "the lua campaign in the image"

# The Kubernetes Job's pods (deploy/locksim-campaign-job.yaml) in the image,
# as a cluster runs them: the container's /bin/sh -c script with the Job's
# env (JOB_UID, from the pod's label in a cluster, fixed here) and /runs a
# directory of the image (the volume): every shard's index (fewer seeds),
# then the last index, the merge.
job_field() {  # YAML WHAT [SEEDS]: WHAT = script (the pod's script) or env (NAME=VALUE lines)
  python3 - "$@" <<'PY'
import re, sys, yaml
job = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
c = job["spec"]["template"]["spec"]["containers"][0]
if sys.argv[2] == "env":
    print("\n".join(f"{e['name']}={e['value']}" for e in c.get("env", []) if "value" in e))
    print("JOB_UID=docker-steps")
else:
    script = c["args"][0].replace("/dev/termination-log", "/tmp/termination-log")
    if len(sys.argv) > 3:
        script = re.sub(r"--seeds \d+", "--seeds " + sys.argv[3], script)
    print(script)
PY
}
run_pod() {  # YAML INDEX [SEEDS]
  local envfile=$WORK/pod.env
  { cat "$ENVFILE"; job_field "$1" env; echo "JOB_COMPLETION_INDEX=$2"; } >"$envfile"
  run_in_root "$ROOT" /runs "$envfile" "$(job_field "$1" script ${3:+"$3"})"
}
CAMPAIGN_JOB=$SRC/deploy/locksim-campaign-job.yaml
SHARDS=$(job_field "$CAMPAIGN_JOB" env | sed -n 's/^SHARDS=//p')
CAMPAIGN=$(job_field "$CAMPAIGN_JOB" env | sed -n 's/^CAMPAIGN=//p')
for ((k = 0; k < SHARDS; k++)); do
  step "campaign Job, index $k of $SHARDS shards (--seeds 48)"
  run_pod "$CAMPAIGN_JOB" "$k" 48 || fail "the campaign Job's shard $k"
done
step "campaign Job, index $SHARDS: the merge"
run_pod "$CAMPAIGN_JOB" "$SHARDS" || fail "the campaign Job's merge"
[ -s "$ROOT/runs/$CAMPAIGN/docker-steps/merged/summary.json" ] || fail "the merge wrote no merged/summary.json"
echo "docker-steps: ok (the image's steps ran; doctor, model, live and lua campaigns and the Kubernetes Jobs' pods passed in it)"
