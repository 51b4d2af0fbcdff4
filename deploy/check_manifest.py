#!/usr/bin/env python3
"""Checks deploy/locksim-campaign-job.yaml and deploy/locksim-runs-pvc.yaml
(CTest: DeployManifestIsAnIndexedJob).

Usage: check_manifest.py --exit-codes tools/cli/commands.h [--locksim PATH]
                         CAMPAIGN_JOB.yaml RUNS_PVC.yaml

1. The Job API's rules. Both files are parsed with a YAML parser
   (python3-yaml) and held to the validation the API server applies to a
   batch/v1 Job and a v1 PersistentVolumeClaim, as far as these objects use
   it (no cluster here, and no schema validator among Debian's packages:
   the rules are written out below, each with the field it is about): names
   (metadata.name or generateName, DNS-1123, a Job's name a label value of
   at most 63 characters), labels, completionMode Indexed with completions,
   parallelism, backoffLimitPerIndex and maxFailedIndexes and what they
   need, podFailurePolicy (restartPolicy Never, at most 20 rules, one
   requirement each, onExitCodes' operator, values sorted, unique, 0 not
   with In, containerName naming a container; FailIndex only with
   backoffLimitPerIndex), activeDeadlineSeconds, containers (names, image,
   env value or valueFrom, a fieldRef path the downward API serves),
   resources (quantities that parse, limits at least the requests),
   volumes and mounts; the claim (access modes, a storage request) and the
   Job's volume naming it.
2. Created twice in a row for two campaigns: the Job is created as an API
   server would (a name made from generateName, AlreadyExists for a name
   taken, the template immutable), once for one campaign and once for
   another (CAMPAIGN changed), and again for the first name reused: every
   create must succeed without deleting anything.
3. The shape locksim needs: pods 0..N-1 run `locksim campaign --shard
   ${JOB_COMPLETION_INDEX}/${SHARDS}` with --keep-going and
   --unexplained-only, each into its own --out under the Job's own
   directory (/runs/$CAMPAIGN/$JOB_UID, JOB_UID from the pod's
   controller-uid label); the last index (N = completions - 1 = SHARDS)
   waits for them, polling at most every 60 s, and runs `locksim merge`;
   requests and limits for cpu and memory.
4. The podFailurePolicy against locksim's exit codes, read from commands.h
   (kExitBadInput, kExitEnvironment) so they cannot drift: each pod's
   command is run by /bin/sh with a stand-in `locksim` exiting each code,
   and the policy's rules applied to what the pod exits with, first match,
   as the Job controller applies them. A shard turns exit 1 (a property
   failed) into a success; the merge's exit 1 (the campaign failed) fails
   the Job, so its status is the verdict; bad input fails the Job at once,
   the merge pod with it (the merge is an index of the same Job); an
   environment failure is retried on its own index; an index out of
   retries fails the Job at once (maxFailedIndexes 0).
5. With --locksim: runs the Job's pods on this machine, as Kubernetes
   would, with that locksim on the PATH and /runs a temp dir: every shard
   (fewer seeds), the merge pod started before the last shard (it must
   wait, then merge, exit 0, and leave the verdict's lines as its
   termination message), one shard again (a retry into its own complete
   run: replaced); then a second campaign under the same CAMPAIGN name (a
   new Job uid) whose merge pod, started before any of its shards, must
   wait for them rather than read the first campaign's.
Exit 0 all fine, 1 not (each problem printed), 2 bad usage.
"""
import argparse
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

import yaml

DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
ENV_NAME = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")
QUANTITY = re.compile(r"^([0-9]+(\.[0-9]*)?|\.[0-9]+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$")
UNITS = {"": 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
         "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
# The downward API's fieldRef paths for env (pods/v1 validation).
FIELD_PATHS = re.compile(r"^(metadata\.(name|namespace|uid)|metadata\.(labels|annotations)\['[^']+'\]|"
                         r"spec\.(nodeName|serviceAccountName)|status\.(hostIP|hostIPs|podIP|podIPs))$")
JOB_NAME_MAX = 63  # a Job's name is also a label value on its pods
GENERATED_SUFFIX = 5  # generateName adds 5 random characters


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


def quantity(text):
    m = QUANTITY.match(str(text))
    return float(m.group(1)) * UNITS[m.group(3) or ""] if m else None


def pod_spec(job):
    return job.get("spec", {}).get("template", {}).get("spec", {})


def container_of(job):
    containers = pod_spec(job).get("containers", [])
    return containers[0] if len(containers) == 1 else None


def pod_script(container):
    """The pod's shell command, as /bin/sh -c would get it."""
    command = container.get("command", [])
    args = container.get("args", [])
    if command[:2] != ["/bin/sh", "-c"] or len(args) != 1:
        return None
    return args[0]


def env_of(container):
    return {e.get("name"): e.get("value") for e in container.get("env", []) if "value" in e}


def rules_of(job):
    return [r for r in ((job["spec"].get("podFailurePolicy") or {}).get("rules") or []) if isinstance(r, dict)]


# 1. The Job API's rules.

def metadata_problems(kind, meta, out, is_job, named=True):
    name, generate = meta.get("name"), meta.get("generateName")
    if named and not name and not generate:
        out.append(f"{kind}: metadata.name or metadata.generateName is required")
    for field, value in (("name", name), ("generateName", generate)):
        if value is None:
            continue
        probe = value + "x" * GENERATED_SUFFIX if field == "generateName" else value
        if not isinstance(value, str) or not DNS1123_SUBDOMAIN.match(probe) or len(probe) > 253:
            out.append(f"{kind}: metadata.{field} '{value}' is not a DNS-1123 subdomain")
        elif is_job and len(probe) > JOB_NAME_MAX:
            out.append(f"{kind}: metadata.{field} '{value}' makes a name longer than {JOB_NAME_MAX} (a label value)")
    for key, value in (meta.get("labels") or {}).items():
        prefix, _, label = key.rpartition("/")
        if not LABEL_NAME.match(label) or len(label) > 63 or (prefix and not DNS1123_SUBDOMAIN.match(prefix)):
            out.append(f"{kind}: label key '{key}' is not valid")
        if not isinstance(value, str) or not LABEL_VALUE.match(value) or len(value) > 63:
            out.append(f"{kind}: label {key}'s value '{value}' is not a valid label value")


def container_problems(c, volumes, out):
    name = c.get("name")
    if not isinstance(name, str) or not DNS1123_LABEL.match(name):
        out.append(f"container: name '{name}' is not a DNS-1123 label")
    if not c.get("image"):
        out.append(f"container {name}: image is required")
    for e in c.get("env", []):
        if not ENV_NAME.match(str(e.get("name", ""))):
            out.append(f"container {name}: env name '{e.get('name')}' is not valid")
        if ("value" in e) == ("valueFrom" in e):
            out.append(f"container {name}: env {e.get('name')} needs value or valueFrom, not both")
        path = ((e.get("valueFrom") or {}).get("fieldRef") or {}).get("fieldPath")
        if "valueFrom" in e and (path is None or not FIELD_PATHS.match(path)):
            out.append(f"container {name}: env {e.get('name')}: fieldRef.fieldPath '{path}' is not one the downward API serves")
    resources = c.get("resources") or {}
    for section in ("requests", "limits"):
        for key, value in (resources.get(section) or {}).items():
            if quantity(value) is None:
                out.append(f"container {name}: resources.{section}.{key} '{value}' is not a quantity")
    for key, request in (resources.get("requests") or {}).items():
        limit = (resources.get("limits") or {}).get(key)
        if limit is not None and quantity(limit) is not None and quantity(request) is not None \
                and quantity(limit) < quantity(request):
            out.append(f"container {name}: resources.limits.{key} {limit} is below its request {request}")
    for m in c.get("volumeMounts", []):
        if m.get("name") not in volumes:
            out.append(f"container {name}: volumeMount {m.get('name')} names no volume")
        if not str(m.get("mountPath", "")).startswith("/"):
            out.append(f"container {name}: volumeMount {m.get('name')} needs an absolute mountPath")


def policy_rule_problems(spec, containers, out):
    rules = rules_of({"spec": spec})
    if len(rules) > 20:
        out.append("job: podFailurePolicy has more than 20 rules")
    for i, rule in enumerate(rules):
        where = f"job: podFailurePolicy.rules[{i}]"
        action = rule.get("action")
        if action not in ("FailJob", "FailIndex", "Ignore", "Count"):
            out.append(f"{where}: action '{action}' is not FailJob, FailIndex, Ignore or Count")
        if action == "FailIndex" and spec.get("backoffLimitPerIndex") is None:
            out.append(f"{where}: FailIndex needs backoffLimitPerIndex")
        on_codes, on_conditions = rule.get("onExitCodes"), rule.get("onPodConditions")
        if (on_codes is None) == (on_conditions is None):
            out.append(f"{where}: exactly one of onExitCodes and onPodConditions is required")
        if on_codes is not None:
            values = on_codes.get("values") or []
            if on_codes.get("operator") not in ("In", "NotIn"):
                out.append(f"{where}: onExitCodes.operator must be In or NotIn")
            if not values or len(values) > 255 or len(set(values)) != len(values) or values != sorted(values) \
                    or not all(isinstance(v, int) for v in values):
                out.append(f"{where}: onExitCodes.values must be 1 to 255 unique integers, sorted")
            if on_codes.get("operator") == "In" and 0 in values:
                out.append(f"{where}: onExitCodes.values may not hold 0 with operator In")
            if on_codes.get("containerName") not in (None, *containers):
                out.append(f"{where}: onExitCodes.containerName names no container of the template")
        for condition in on_conditions or []:
            if not condition.get("type"):
                out.append(f"{where}: onPodConditions needs a type")


def job_api_problems(job):
    out = []
    if job.get("apiVersion") != "batch/v1" or job.get("kind") != "Job":
        return ["job: apiVersion must be batch/v1 and kind Job"]
    metadata_problems("job", job.get("metadata") or {}, out, True)
    spec = job.get("spec") or {}
    pod = pod_spec(job)
    mode, completions = spec.get("completionMode", "NonIndexed"), spec.get("completions")
    if mode not in ("Indexed", "NonIndexed"):
        out.append("job: spec.completionMode must be Indexed or NonIndexed")
    if mode == "Indexed" and not (isinstance(completions, int) and completions >= 1):
        out.append("job: an Indexed Job needs spec.completions >= 1")
    parallelism = spec.get("parallelism", 1)
    if not isinstance(parallelism, int) or parallelism < 0:
        out.append("job: spec.parallelism must be a non-negative integer")
    per_index, max_failed = spec.get("backoffLimitPerIndex"), spec.get("maxFailedIndexes")
    if per_index is not None:
        if mode != "Indexed":
            out.append("job: spec.backoffLimitPerIndex needs completionMode Indexed")
        if not isinstance(per_index, int) or per_index < 0:
            out.append("job: spec.backoffLimitPerIndex must be a non-negative integer")
        if isinstance(completions, int) and completions > 100_000:
            out.append("job: spec.completions may be at most 100000 with backoffLimitPerIndex")
    if max_failed is not None:
        if per_index is None:
            out.append("job: spec.maxFailedIndexes needs backoffLimitPerIndex")
        if not isinstance(max_failed, int) or max_failed < 0 or (isinstance(completions, int) and max_failed > completions):
            out.append("job: spec.maxFailedIndexes must be between 0 and completions")
    deadline = spec.get("activeDeadlineSeconds")
    if deadline is not None and (not isinstance(deadline, int) or deadline <= 0):
        out.append("job: spec.activeDeadlineSeconds must be a positive integer")
    restart = pod.get("restartPolicy")
    if restart not in ("Never", "OnFailure"):
        out.append("job: template.spec.restartPolicy must be Never or OnFailure")
    if spec.get("podFailurePolicy") is not None and restart != "Never":
        out.append("job: podFailurePolicy needs template.spec.restartPolicy Never")
    if per_index is not None and restart != "Never":
        out.append("job: backoffLimitPerIndex needs template.spec.restartPolicy Never")
    containers = pod.get("containers") or []
    if not containers:
        out.append("job: the template needs at least one container")
    names = [c.get("name") for c in containers]
    if len(set(names)) != len(names):
        out.append("job: container names must be unique")
    volumes = {}
    for v in pod.get("volumes") or []:
        if not DNS1123_LABEL.match(str(v.get("name", ""))) or v.get("name") in volumes:
            out.append(f"job: volume name '{v.get('name')}' is not a unique DNS-1123 label")
        volumes[v.get("name")] = v
    for c in containers:
        container_problems(c, volumes, out)
    policy_rule_problems(spec, names, out)
    metadata_problems("job template", (job.get("spec", {}).get("template", {}).get("metadata") or {}), out, False, named=False)
    return out


def claim_api_problems(claim, job):
    out = []
    if claim.get("apiVersion") != "v1" or claim.get("kind") != "PersistentVolumeClaim":
        return ["claim: apiVersion must be v1 and kind PersistentVolumeClaim"]
    metadata_problems("claim", claim.get("metadata") or {}, out, False)
    spec = claim.get("spec") or {}
    modes = spec.get("accessModes") or []
    if not modes or any(m not in ("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod") for m in modes):
        out.append("claim: spec.accessModes must name at least one access mode")
    if "ReadWriteMany" not in modes:
        out.append("claim: every shard's pod writes at once: the claim must be ReadWriteMany")
    storage = ((spec.get("resources") or {}).get("requests") or {}).get("storage")
    if storage is None or quantity(storage) is None or quantity(storage) <= 0:
        out.append("claim: spec.resources.requests.storage must be a positive quantity")
    claims = {(v.get("persistentVolumeClaim") or {}).get("claimName") for v in pod_spec(job).get("volumes") or []}
    if (claim.get("metadata") or {}).get("name") not in claims:
        out.append(f"claim: the Job mounts {sorted(c for c in claims if c)}, not this claim")
    return out


# 2. Created twice in a row.

class FakeApiServer:
    """The part of the API server a create meets: a name from generateName,
    AlreadyExists for a name taken."""

    def __init__(self):
        self.jobs = {}

    def create(self, job):
        job = copy.deepcopy(job)
        meta = job.setdefault("metadata", {})
        if not meta.get("name"):
            for _ in range(100):
                name = meta["generateName"] + uuid.uuid4().hex[:GENERATED_SUFFIX]
                if name not in self.jobs:
                    break
            meta["name"] = name
        if meta["name"] in self.jobs:
            return None, f"jobs.batch \"{meta['name']}\" already exists (AlreadyExists: delete it first)"
        meta["uid"] = str(uuid.uuid4())
        self.jobs[meta["name"]] = job
        return job, None


def for_campaign(job, campaign):
    """The Job as a user edits it for another campaign: CAMPAIGN and its label."""
    job = copy.deepcopy(job)
    for e in container_of(job).get("env", []):
        if e.get("name") == "CAMPAIGN":
            e["value"] = campaign
    labels = job.setdefault("metadata", {}).setdefault("labels", {})
    if "locksim/campaign" in labels:
        labels["locksim/campaign"] = campaign
    return job


def create_twice_problems(job):
    out = []
    server = FakeApiServer()
    first_campaign = env_of(container_of(job)).get("CAMPAIGN", "")
    created = []
    for campaign in (first_campaign, first_campaign + "-2", first_campaign):
        made, error = server.create(for_campaign(job, campaign))
        if error:
            out.append(f"creating the Job for campaign '{campaign}' after another: {error}")
        else:
            created.append(made)
    if len({j["metadata"]["uid"] for j in created}) != len(created):
        out.append("two creates gave one Job")
    return out


# 3. The shape locksim needs.

def shape_problems(job):
    out = []

    def need(cond, what):
        if not cond:
            out.append(what)

    c = container_of(job)
    need(c is not None, "job: expected exactly one container")
    if c is None:
        return out
    script = pod_script(c)
    need(script is not None, "job: the container must run one /bin/sh -c script")
    if script is None:
        return out
    spec = job["spec"]
    need(spec.get("completionMode") == "Indexed", "job: spec.completionMode must be Indexed")
    completions = spec.get("completions") or 0
    env = env_of(c)
    need(env.get("SHARDS") == str(completions - 1),
         f"job: env SHARDS ({env.get('SHARDS')}) must be completions - 1 ({completions - 1}): the last index merges")
    need(isinstance(spec.get("backoffLimitPerIndex"), int) and spec["backoffLimitPerIndex"] >= 1,
         "job: spec.backoffLimitPerIndex must be at least 1 (a pod that failed is retried on its own index)")
    need(spec.get("maxFailedIndexes") == 0,
         "job: spec.maxFailedIndexes must be 0: an index out of retries fails the Job, and the waiting merge, at once")
    need(spec.get("activeDeadlineSeconds") is not None,
         "job: spec.activeDeadlineSeconds must end a campaign whose shard never completes")
    uid_env = [e for e in c.get("env", []) if e.get("name") == "JOB_UID"]
    need(bool(uid_env) and "controller-uid" in str(uid_env[0].get("valueFrom")),
         "job: env JOB_UID must come from the pod's controller-uid label (each Job its own directory)")
    need("locksim campaign" in script and "locksim merge" in script,
         "job: the script must run `locksim campaign` for a shard and `locksim merge` for the last index")
    need(re.search(r'--shard "?\$\{JOB_COMPLETION_INDEX\}/\$\{SHARDS\}"?', script) is not None,
         "job: the campaign must take --shard ${JOB_COMPLETION_INDEX}/${SHARDS}")
    need("--keep-going" in script, "job: shards must run --keep-going (merge lists every failing seed)")
    need("--unexplained-only" in script,
         "job: shards must run --unexplained-only (the traces of failures a fault explains would fill the volume)")
    need(re.search(r'dir="/runs/\$\{CAMPAIGN\}/\$\{JOB_UID\}"', script) is not None,
         "job: the runs go under /runs/${CAMPAIGN}/${JOB_UID} (a campaign never reads another's shards)")
    need(re.search(r'--out "\$\{dir\}/shard-\$\{JOB_COMPLETION_INDEX\}"', script) is not None,
         "job: each shard needs its own --out under the Job's directory")
    mounts = [m.get("mountPath", "") for m in c.get("volumeMounts", [])]
    need("/runs" in mounts, f"job: /runs must be a mounted volume ({mounts})")
    polls = [int(s) for s in re.findall(r"sleep (\d+)", script)]
    need(bool(polls) and max(polls) <= 60, "job: the merge must poll for its shards at least once a minute")
    resources = c.get("resources") or {}
    for section in ("requests", "limits"):
        for key in ("cpu", "memory"):
            need(key in (resources.get(section) or {}), f"job: resources.{section}.{key} is missing")
    return out


# 4. The podFailurePolicy against locksim's exit codes.

def policy_action(job, container_name, exit_code):
    """What the Job controller does with a pod that exits `exit_code`: the
    action of the first rule that matches, or "Count" (counted against the
    index's backoff limit: retried while it lasts)."""
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


def pod_exit(script, env, index, locksim_exit, work):
    """Runs the pod's script as index `index` with a stand-in locksim exiting `locksim_exit`."""
    fake = os.path.join(work, "fake-bin")
    os.makedirs(fake, exist_ok=True)
    with open(os.path.join(fake, "locksim"), "w", encoding="utf-8") as f:
        f.write(f"#!/bin/sh\nexit {locksim_exit}\n")
    os.chmod(os.path.join(fake, "locksim"), 0o755)
    runs = os.path.join(work, "fake-runs")
    script = script.replace("/runs", runs).replace("/dev/termination-log", os.path.join(work, "termination-log"))
    job_dir = os.path.join(runs, env.get("CAMPAIGN", ""), "uid")
    for i in range(int(env.get("SHARDS", "1"))):  # the stand-in's shards are there: the merge must not wait
        os.makedirs(os.path.join(job_dir, f"shard-{i}"), exist_ok=True)
        open(os.path.join(job_dir, f"shard-{i}", "summary.json"), "w").close()
    full_env = dict(os.environ, **env, PATH=fake + os.pathsep + os.environ["PATH"],
                    JOB_COMPLETION_INDEX=str(index), JOB_UID="uid")
    return subprocess.run(["/bin/sh", "-c", script], env=full_env, capture_output=True, timeout=60).returncode


def policy_problems(job, codes, work):
    out = []
    bad, environment = codes["kExitBadInput"], codes["kExitEnvironment"]
    c = container_of(job)
    shards = int(env_of(c).get("SHARDS", "1"))
    # (what locksim exits) -> (what the Job controller must do, the pod's exit code)
    shard_expected = {0: ("exit", 0), 1: ("exit", 0), bad: ("FailJob", bad), environment: ("Count", environment)}
    merge_expected = {0: ("exit", 0), 1: ("FailJob", 1), bad: ("FailJob", bad), environment: ("Count", environment)}
    for role, index, expected in (("a shard", 0, shard_expected), ("the merge", shards, merge_expected)):
        for code, (want_action, want_exit) in sorted(expected.items()):
            got_exit = pod_exit(pod_script(c), env_of(c), index, code, work)
            if got_exit != want_exit:
                out.append(f"{role}: locksim exiting {code} makes the pod exit {got_exit}, not {want_exit}")
                continue
            if got_exit == 0:
                continue
            action = policy_action(job, c["name"], got_exit)
            if action != want_action:
                out.append(f"{role}: a pod exiting {got_exit} gets {action} from the podFailurePolicy, not {want_action}")
    conditions = [r for r in rules_of(job)
                  if any((p or {}).get("type") == "DisruptionTarget" for p in (r.get("onPodConditions") or []))]
    if not conditions or conditions[0].get("action") != "Ignore":
        out.append("job: a pod evicted or preempted (DisruptionTarget) must not count against the retries (Ignore)")
    return out


# 5. The pods, run here.

class LocalJob:
    """One created Job's pods, run here with the build's locksim."""

    def __init__(self, job, locksim, work, uid, seeds):
        self.c = container_of(job)
        self.env = env_of(self.c)
        self.uid = uid
        self.runs = os.path.join(work, "runs")
        self.termination = os.path.join(work, f"termination-{uid}")
        bin_dir = os.path.join(work, "bin")
        if not os.path.isdir(bin_dir):
            os.makedirs(bin_dir)
            os.symlink(os.path.abspath(locksim), os.path.join(bin_dir, "locksim"))
        self.script = (re.sub(r"--seeds \d+", f"--seeds {seeds}", pod_script(self.c)).replace("/runs", self.runs)
                       .replace("sleep 5", "sleep 0.2").replace("/dev/termination-log", self.termination))
        self.base_env = dict(os.environ, **self.env, JOB_UID=uid, PATH=bin_dir + os.pathsep + os.environ["PATH"])
        self.shards = int(self.env["SHARDS"])
        self.dir = os.path.join(self.runs, self.env["CAMPAIGN"], uid)

    def shard(self, i):
        env = dict(self.base_env, JOB_COMPLETION_INDEX=str(i))
        return subprocess.run(["/bin/sh", "-c", self.script], env=env, capture_output=True, text=True, timeout=600)

    def start_merge(self):
        env = dict(self.base_env, JOB_COMPLETION_INDEX=str(self.shards))
        return subprocess.Popen(["/bin/sh", "-c", self.script], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)


def wait_for_line(pod, line, seconds):
    seen = ""
    deadline = time.monotonic() + seconds
    while line not in seen and time.monotonic() < deadline and pod.poll() is None:
        seen += pod.stdout.readline()
    return seen


def run_jobs(job, locksim, work):
    """Runs the Job's pods here, as Kubernetes would; returns problems."""
    out = []
    seeds = 48
    first = LocalJob(job, locksim, work, "uid-first", seeds)
    for i in range(first.shards - 1):
        r = first.shard(i)
        if r.returncode != 0:
            out.append(f"shard {i}'s pod exited {r.returncode}: {r.stderr.strip()}")
    merge_pod = first.start_merge()  # before the last shard: it waits
    seen = wait_for_line(merge_pod, f"waiting for shard {first.shards - 1}", 60)
    if f"waiting for shard {first.shards - 1}" not in seen:
        out.append(f"the merge pod did not wait for the last shard: {seen.strip()}")
    r = first.shard(first.shards - 1)
    if r.returncode != 0:
        out.append(f"shard {first.shards - 1}'s pod exited {r.returncode}: {r.stderr.strip()}")
    rest, _ = merge_pod.communicate(timeout=300)
    if merge_pod.returncode != 0:
        out.append(f"the merge pod exited {merge_pod.returncode}: {(seen + rest).strip()}")
    merged = os.path.join(first.dir, "merged", "summary.json")
    if not os.path.isfile(merged):
        out.append("the merge pod wrote no merged/summary.json")
    else:
        with open(merged, encoding="utf-8") as f:
            counts = json.load(f)["counts"]
        if counts.get("seeds_run") != seeds:
            out.append(f"the merged campaign ran {counts.get('seeds_run')} seeds, not {seeds}")
    message = open(first.termination, encoding="utf-8").read() if os.path.isfile(first.termination) else ""
    if not re.search(r"^results: ", message, re.M) or not re.search(r"^(ok|failed): ", message, re.M):
        out.append(f"the merge pod's termination message lacks the verdict's lines: {message!r}")
    # A shard's pod again (Kubernetes retries a pod whose node was lost after
    # it finished): its own complete run is replaced, not refused.
    r = first.shard(1)
    if r.returncode != 0 or "replacing the earlier run" not in r.stderr:
        out.append(f"a retried shard exited {r.returncode}: {r.stderr.strip()}")
    # A second campaign under the same CAMPAIGN name: a new Job, a new uid.
    # Its merge, started first, must wait for its own shards.
    second = LocalJob(job, locksim, work, "uid-second", 6)
    merge_pod = second.start_merge()
    seen = wait_for_line(merge_pod, "waiting for shard 0", 30)
    if "waiting for shard 0" not in seen:
        out.append(f"a second campaign's merge did not wait for its own shards: {seen.strip()}")
    merge_pod.kill()
    merge_pod.communicate()
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exit-codes", required=True, help="tools/cli/commands.h")
    parser.add_argument("--locksim", help="run the Job's pods here with this locksim")
    parser.add_argument("campaign_job")
    parser.add_argument("runs_claim")
    args = parser.parse_args()
    try:
        job, claim = load_one(args.campaign_job), load_one(args.runs_claim)
        codes = exit_codes(args.exit_codes)
    except (OSError, ValueError, yaml.YAMLError) as e:
        print(f"check_manifest: {e}")
        return 1
    work = tempfile.mkdtemp(prefix="locksim-k8s-")
    try:
        problems = job_api_problems(job) + claim_api_problems(claim, job)
        if not problems:
            problems = create_twice_problems(job) + shape_problems(job)
        if not problems:
            problems = policy_problems(job, codes, work)
        if not problems and args.locksim:
            problems = run_jobs(job, args.locksim, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for p in problems:
        print(f"check_manifest: {p}")
    if not problems:
        print("check_manifest: ok (one Indexed Job, shards and their merge, within the Job API's rules, created "
              f"twice for two campaigns; exit codes {codes['kExitBadInput']} and the merge's 1 fail the Job, "
              f"{codes['kExitEnvironment']} retried"
              + ("; the pods ran here: the merge waited for the last shard, a retried shard replaced its run, a "
                 "second campaign's merge waited for its own shards)" if args.locksim else ")"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
