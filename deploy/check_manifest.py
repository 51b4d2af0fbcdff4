#!/usr/bin/env python3
"""Checks deploy/locksim-campaign-job.yaml and deploy/locksim-merge-job.yaml
(CTest: DeployManifestIsAnIndexedJob).

Usage: check_manifest.py --exit-codes tools/cli/commands.h [--locksim PATH]
                         CAMPAIGN_JOB.yaml MERGE_JOB.yaml

1. Parses both with a YAML parser (python3-yaml) and checks their shape:
   the campaign is one batch/v1 Indexed Job whose pods run `locksim
   campaign --shard ${JOB_COMPLETION_INDEX}/${SHARDS}` (SHARDS equal to
   completions) with --keep-going and --unexplained-only, each shard into
   its own --out on a mounted volume; the merge Job mounts the same claim,
   uses the same image, SHARDS and CAMPAIGN, and runs `locksim merge`.
   (`kubectl create --dry-run=client` is no substitute: it still asks a
   cluster for its API list. With a cluster: `kubectl apply
   --dry-run=server -f ...`.)
2. Holds each Job's podFailurePolicy to locksim's exit codes, read from
   commands.h (kExitBadInput, kExitEnvironment) so the two cannot drift: the
   pod's command turns exit 1 (a property failed) into a success; bad input
   fails the Job at once; an environment failure is retried (no rule ends
   it). The pod commands are run by /bin/sh with a stand-in `locksim` that
   exits with each code, and the policy's rules are applied to what the pod
   exits with, as the Job controller applies them (first match).
3. With --locksim: runs the Jobs on this machine, as Kubernetes would run
   their pods, with that locksim on the PATH and /runs a temp dir: every
   shard's pod (fewer seeds), one shard again (a retry into its own complete
   run: replaced), and the merge pod started before the last shard, which
   must wait for it, then merge all of them.
Exit 0 all fine, 1 not (each problem printed), 2 bad usage.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import yaml


def load_one(path):
    with open(path, encoding="utf-8") as f:
        docs = [d for d in yaml.safe_load_all(f) if d is not None]
    if len(docs) != 1:
        raise ValueError(f"{path}: expected one YAML document, found {len(docs)}")
    return docs[0]


def exit_codes(commands_h):
    with open(commands_h, encoding="utf-8") as f:
        text = f.read()
    codes = {}
    for name in ("kExitBadInput", "kExitEnvironment"):
        m = re.search(r"constexpr int " + name + r" = (\d+);", text)
        if not m:
            raise ValueError(f"{commands_h}: no {name}")
        codes[name] = int(m.group(1))
    return codes


def container_of(job):
    containers = job.get("spec", {}).get("template", {}).get("spec", {}).get("containers", [])
    return containers[0] if len(containers) == 1 else None


def pod_script(container):
    """The pod's shell command, as /bin/sh -c would get it."""
    command = container.get("command", [])
    args = container.get("args", [])
    if command[:2] != ["/bin/sh", "-c"] or len(args) != 1:
        return None
    return args[0]


def env_of(container):
    return {e.get("name"): e.get("value") for e in container.get("env", [])}


def rules_of(job):
    return [r for r in ((job["spec"].get("podFailurePolicy") or {}).get("rules") or []) if isinstance(r, dict)]


def policy_action(job, container_name, exit_code):
    """What the Job controller does with a pod that exits `exit_code`: the
    action of the first rule that matches, or "Count" (counted against the
    backoff limit: retried while it lasts)."""
    for rule in rules_of(job):
        on = rule.get("onExitCodes")
        if not on:
            continue
        if on.get("containerName") not in (None, container_name):
            continue
        values = on.get("values") or []
        matched = exit_code in values if on.get("operator") == "In" else exit_code not in values
        if matched:
            return rule.get("action")
    return "Count"


def pod_exit(script, env, locksim_exit, work):
    """Runs the pod's script with a stand-in locksim exiting `locksim_exit`."""
    fake = os.path.join(work, "fake-bin")
    os.makedirs(fake, exist_ok=True)
    with open(os.path.join(fake, "locksim"), "w", encoding="utf-8") as f:
        f.write(f"#!/bin/sh\nexit {locksim_exit}\n")
    os.chmod(os.path.join(fake, "locksim"), 0o755)
    # The stand-in's runs are instant: the merge pod must not wait on them.
    script = script.replace("/runs", os.path.join(work, "fake-runs"))
    for i in range(int(env.get("SHARDS", "1"))):
        os.makedirs(os.path.join(work, "fake-runs", env.get("CAMPAIGN", ""), f"shard-{i}"), exist_ok=True)
        open(os.path.join(work, "fake-runs", env.get("CAMPAIGN", ""), f"shard-{i}", "summary.json"), "w").close()
    full_env = dict(os.environ, **env, PATH=fake + os.pathsep + os.environ["PATH"], JOB_COMPLETION_INDEX="0")
    return subprocess.run(["/bin/sh", "-c", script], env=full_env, capture_output=True, timeout=60).returncode


def shape_problems(campaign, merge):
    out = []

    def need(cond, what):
        if not cond:
            out.append(what)

    for name, job in (("campaign", campaign), ("merge", merge)):
        need(job.get("apiVersion") == "batch/v1", f"{name}: apiVersion must be batch/v1")
        need(job.get("kind") == "Job", f"{name}: kind must be Job")
        need(bool(job.get("metadata", {}).get("name")), f"{name}: metadata.name is missing")
        pod = job.get("spec", {}).get("template", {}).get("spec", {})
        # podFailurePolicy and backoffLimitPerIndex both need Never.
        need(pod.get("restartPolicy") == "Never", f"{name}: template.spec.restartPolicy must be Never")
        c = container_of(job)
        need(c is not None, f"{name}: expected exactly one container")
        if c is None:
            return out
        need(bool(c.get("image")), f"{name}: the container has no image")
        need(pod_script(c) is not None, f"{name}: the container must run one /bin/sh -c script")
        volumes = {v.get("name"): v for v in pod.get("volumes", [])}
        for m in c.get("volumeMounts", []):
            need(m.get("name") in volumes, f"{name}: volumeMount {m.get('name')} has no volume")
    if out:
        return out

    spec = campaign["spec"]
    need(spec.get("completionMode") == "Indexed", "campaign: spec.completionMode must be Indexed")
    completions = spec.get("completions")
    need(isinstance(completions, int) and completions >= 1, "campaign: spec.completions must be a positive integer")
    parallelism = spec.get("parallelism", 1)
    need(isinstance(parallelism, int) and 1 <= parallelism <= (completions or 0),
         "campaign: spec.parallelism must be between 1 and completions")
    need(isinstance(spec.get("backoffLimitPerIndex"), int) and spec["backoffLimitPerIndex"] >= 1,
         "campaign: spec.backoffLimitPerIndex must be at least 1 (a shard whose pod failed is retried on its own)")
    c, mc = container_of(campaign), container_of(merge)
    env, menv = env_of(c), env_of(mc)
    need(env.get("SHARDS") == str(completions), f"campaign: env SHARDS ({env.get('SHARDS')}) must equal completions ({completions})")
    need(menv.get("SHARDS") == env.get("SHARDS"), f"merge: env SHARDS ({menv.get('SHARDS')}) must be the campaign's ({env.get('SHARDS')})")
    need(menv.get("CAMPAIGN") == env.get("CAMPAIGN"), "merge: env CAMPAIGN must be the campaign's")
    need(mc.get("image") == c.get("image"), "merge: the image must be the campaign's (merge refuses shards of another build)")
    claims = [{v.get("persistentVolumeClaim", {}).get("claimName") for v in job["spec"]["template"]["spec"].get("volumes", [])}
              for job in (campaign, merge)]
    need(claims[0] == claims[1] and None not in claims[0], "merge: it must mount the campaign's volume claim")

    script = pod_script(c)
    need("locksim campaign" in script, "campaign: the container must run `locksim campaign`")
    need(re.search(r'--shard "?\$\{JOB_COMPLETION_INDEX\}/\$\{SHARDS\}"?', script) is not None,
         "campaign: the campaign must take --shard ${JOB_COMPLETION_INDEX}/${SHARDS}")
    need("--keep-going" in script, "campaign: shards must run --keep-going (merge lists every failing seed)")
    need("--unexplained-only" in script,
         "campaign: shards must run --unexplained-only (the traces of failures a fault explains would fill the volume)")
    out_dir = re.search(r'--out "?(\S*\$\{JOB_COMPLETION_INDEX\}[^"\s;]*)', script)
    need(out_dir is not None, "campaign: each shard needs its own --out directory (with ${JOB_COMPLETION_INDEX})")
    mounts = [m.get("mountPath", "") for m in c.get("volumeMounts", [])]
    if out_dir:
        need(any(out_dir.group(1).startswith(m.rstrip("/") + "/") for m in mounts if m),
             f"campaign: --out {out_dir.group(1)} must be on a mounted volume ({mounts})")
    need("locksim merge" in pod_script(mc), "merge: the container must run `locksim merge`")
    need(merge["spec"].get("activeDeadlineSeconds") is not None,
         "merge: spec.activeDeadlineSeconds must end a merge that waits for a shard that never completes")
    return out


def policy_problems(campaign, merge, codes, work):
    out = []
    bad, environment = codes["kExitBadInput"], codes["kExitEnvironment"]
    # What each Job must do with what locksim exits: the pod exits 0 for 0
    # and 1; bad input fails the Job; the environment is retried.
    expected = {0: ("exit", 0), 1: ("exit", 0), bad: ("FailJob", bad), environment: ("Count", environment)}
    for name, job in (("campaign", campaign), ("merge", merge)):
        c = container_of(job)
        for code, (want_action, want_exit) in sorted(expected.items()):
            got_exit = pod_exit(pod_script(c), env_of(c), code, work)
            if got_exit != want_exit:
                out.append(f"{name}: locksim exiting {code} makes the pod exit {got_exit}, not {want_exit}")
                continue
            if got_exit == 0:
                continue
            action = policy_action(job, c["name"], got_exit)
            if action != want_action:
                out.append(f"{name}: a pod exiting {got_exit} (locksim's {'bad input' if code == bad else 'environment'}"
                           f" code) gets {action} from the podFailurePolicy, not {want_action}")
        conditions = [r for r in rules_of(job)
                      if any((p or {}).get("type") == "DisruptionTarget" for p in (r.get("onPodConditions") or []))]
        if not conditions or conditions[0].get("action") != "Ignore":
            out.append(f"{name}: a pod evicted or preempted (DisruptionTarget) must not count against the retries (Ignore)")
    return out


def run_jobs(campaign, merge, locksim, work):
    """Runs the Jobs' pods here, as Kubernetes would; returns problems."""
    out = []
    runs = os.path.join(work, "runs")
    os.makedirs(runs)
    bin_dir = os.path.join(work, "bin")
    os.makedirs(bin_dir)
    os.symlink(os.path.abspath(locksim), os.path.join(bin_dir, "locksim"))
    c, mc = container_of(campaign), container_of(merge)
    seeds = 48
    script = re.sub(r"--seeds \d+", f"--seeds {seeds}", pod_script(c)).replace("/runs", runs)
    merge_script = pod_script(mc).replace("/runs", runs).replace("sleep 60", "sleep 0.2")
    base_env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"])
    shards = int(env_of(c)["SHARDS"])
    campaign_dir = os.path.join(runs, env_of(c)["CAMPAIGN"])

    def shard(i):
        env = dict(base_env, **env_of(c), JOB_COMPLETION_INDEX=str(i))
        return subprocess.run(["/bin/sh", "-c", script], env=env, capture_output=True, text=True, timeout=600)

    for i in range(shards - 1):
        r = shard(i)
        if r.returncode != 0:
            out.append(f"shard {i}'s pod exited {r.returncode}: {r.stderr.strip()}")
    # The merge pod, started before the last shard is there: it waits.
    merge_pod = subprocess.Popen(["/bin/sh", "-c", merge_script], env=dict(base_env, **env_of(mc)),
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    waiting = f"waiting for shard {shards - 1}"
    seen = ""
    deadline = time.monotonic() + 60
    while waiting not in seen and time.monotonic() < deadline and merge_pod.poll() is None:
        seen += merge_pod.stdout.readline()
    if waiting not in seen:
        out.append(f"the merge pod did not wait for the last shard: {seen.strip()}")
    r = shard(shards - 1)
    if r.returncode != 0:
        out.append(f"shard {shards - 1}'s pod exited {r.returncode}: {r.stderr.strip()}")
    rest, _ = merge_pod.communicate(timeout=300)
    if merge_pod.returncode != 0:
        out.append(f"the merge pod exited {merge_pod.returncode}: {(seen + rest).strip()}")
    merged = os.path.join(campaign_dir, "merged", "summary.json")
    if not os.path.isfile(merged):
        out.append("the merge pod wrote no merged/summary.json")
    else:
        import json
        with open(merged, encoding="utf-8") as f:
            counts = json.load(f)["counts"]
        if counts.get("seeds_run") != seeds:
            out.append(f"the merged campaign ran {counts.get('seeds_run')} seeds, not {seeds}")
    # A shard's pod again (Kubernetes retries a pod whose node was lost after
    # it finished): its own complete run is replaced, not refused.
    r = shard(1)
    if r.returncode != 0 or "replacing the earlier run" not in r.stderr:
        out.append(f"a retried shard exited {r.returncode}: {r.stderr.strip()}")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exit-codes", required=True, help="tools/cli/commands.h")
    parser.add_argument("--locksim", help="run the Jobs' pods here with this locksim")
    parser.add_argument("campaign_job")
    parser.add_argument("merge_job")
    args = parser.parse_args()
    try:
        campaign, merge = load_one(args.campaign_job), load_one(args.merge_job)
        codes = exit_codes(args.exit_codes)
    except (OSError, ValueError, yaml.YAMLError) as e:
        print(f"check_manifest: {e}")
        return 1
    work = tempfile.mkdtemp(prefix="locksim-k8s-")
    try:
        problems = shape_problems(campaign, merge)
        if not problems:
            problems = policy_problems(campaign, merge, codes, work)
        if not problems and args.locksim:
            problems = run_jobs(campaign, merge, args.locksim, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for p in problems:
        print(f"check_manifest: {p}")
    if not problems:
        print("check_manifest: ok (an Indexed Job and its merge Job; exit codes "
              f"{codes['kExitBadInput']} fail the Job, {codes['kExitEnvironment']} retried"
              + ("; the pods ran here, a retried shard replaced its run, the merge waited for the last shard)"
                 if args.locksim else ")"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
