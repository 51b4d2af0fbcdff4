#!/usr/bin/env python3
"""Validates deploy/locksim-campaign-job.yaml (CTest: DeployManifest).

Parses it with a YAML parser (python3-yaml) and checks that it is one
Kubernetes batch/v1 Indexed Job whose pods run `locksim campaign --shard
${JOB_COMPLETION_INDEX}/${SHARDS}` with SHARDS equal to completions, each
shard writing its own --out directory on a mounted volume, exit 1 (a
property failed) counted as a finished shard. (`kubectl create
--dry-run=client` is no substitute here: it still asks a cluster for its API
list. With a cluster: `kubectl apply --dry-run=server -f ...`.)
Exit 0 valid, 1 not (each problem printed).
"""
import os
import re
import sys

import yaml


def problems_of(path):
    with open(path, encoding="utf-8") as f:
        docs = [d for d in yaml.safe_load_all(f) if d is not None]
    if len(docs) != 1:
        return [f"expected one YAML document, found {len(docs)}"]
    job = docs[0]
    out = []

    def need(cond, what):
        if not cond:
            out.append(what)

    need(job.get("apiVersion") == "batch/v1", "apiVersion must be batch/v1")
    need(job.get("kind") == "Job", "kind must be Job")
    need(bool(job.get("metadata", {}).get("name")), "metadata.name is missing")
    spec = job.get("spec", {})
    need(spec.get("completionMode") == "Indexed", "spec.completionMode must be Indexed")
    completions = spec.get("completions")
    need(isinstance(completions, int) and completions >= 1, "spec.completions must be a positive integer")
    parallelism = spec.get("parallelism", 1)
    need(isinstance(parallelism, int) and 1 <= parallelism <= (completions or 0),
         "spec.parallelism must be between 1 and completions")
    pod = spec.get("template", {}).get("spec", {})
    need(pod.get("restartPolicy") in ("Never", "OnFailure"), "template.spec.restartPolicy must be Never or OnFailure")
    containers = pod.get("containers", [])
    need(len(containers) == 1, "expected exactly one container")
    if not containers:
        return out
    c = containers[0]
    need(bool(c.get("image")), "the container has no image")
    env = {e.get("name"): e.get("value") for e in c.get("env", [])}
    need(env.get("SHARDS") == str(completions), f"env SHARDS ({env.get('SHARDS')}) must equal completions ({completions})")
    script = " ".join(c.get("command", []) + c.get("args", []))
    need("locksim campaign" in script, "the container must run `locksim campaign`")
    need(re.search(r'--shard "?\$\{JOB_COMPLETION_INDEX\}/\$\{SHARDS\}"?', script) is not None,
         "the campaign must take --shard ${JOB_COMPLETION_INDEX}/${SHARDS}")
    need("--keep-going" in script, "shards must run --keep-going (merge lists every failing seed)")
    out_dir = re.search(r'--out "?(\S*\$\{JOB_COMPLETION_INDEX\}[^"\s;]*)', script)
    need(out_dir is not None, "each shard needs its own --out directory (with ${JOB_COMPLETION_INDEX})")
    mounts = [m.get("mountPath", "") for m in c.get("volumeMounts", [])]
    if out_dir:
        need(any(out_dir.group(1).startswith(m.rstrip("/") + "/") for m in mounts if m),
             f"--out {out_dir.group(1)} must be on a mounted volume ({mounts})")
    need(re.search(r'"\$code" -eq 1 \]; then exit 0', script) is not None,
         "exit 1 (a property failed) must count as a finished shard")
    volumes = {v.get("name") for v in pod.get("volumes", [])}
    for m in c.get("volumeMounts", []):
        need(m.get("name") in volumes, f"volumeMount {m.get('name')} has no volume")
    return out


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "locksim-campaign-job.yaml")
    problems = problems_of(path)
    for p in problems:
        print(f"{path}: {p}")
    if not problems:
        print(f"{path}: a valid Indexed Job")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
