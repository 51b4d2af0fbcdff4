#!/usr/bin/env python3
"""Prints the design table of docs/lock-designs.md: six locks under the same
four campaigns on the lua backend, each cell "failing seeds, violations
(explained / unexplained); polls per waiting second".

Usage: bench/design_table.py LOCKSIM [SEEDS] [WORKERS]   (defaults 500, 2)
Runs 24 campaigns; each writes its runs directory under a temporary dir.
"""
import json
import subprocess
import sys
import tempfile

LOCKS = [
    ("our reentrant lock (`--lock rlock`)", ["--lock", "rlock"]),
    ("our fair lock (`--lock fair`)", ["--lock", "fair"]),
    ("token_lock", ["--scripts", "tests/impl/packs/token_lock"]),
    ("token_redlock (3 servers)", ["--scripts", "tests/impl/packs/token_redlock", "--lock", "redlock", "--servers", "3"]),
    ("our RedLock (3 servers)", ["--lock", "redlock", "--servers", "3"]),
    ("our spin lock (`--lock spin`)", ["--lock", "spin"]),
]
PROFILES = ["safe", "pauses", "hostile", "restarts"]


def cell(locksim, profile, flags, seeds, workers, out):
    cmd = [locksim, "campaign", "--backend", "lua", "--workers", str(workers), "--seeds", str(seeds),
           "--profile", profile, "--keep-going", "--no-shrink", "--json", "--out", out] + flags
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)}: exit {run.returncode}: {run.stderr.strip()}")
    d = json.loads(run.stdout)
    r = d["results"]
    polls = d["waiting"]["polls_per_second"]
    failing = r["explained_seeds"] + r["unexplained_seeds"]
    if failing == 0:
        return f"ok; {polls:.2f}"
    total = r["explained"] + r["unexplained"]
    return f"{failing} fail, {total:,} ({r['explained']:,} / {r['unexplained']:,}); {polls:.2f}"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    locksim = sys.argv[1]
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    workers = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    print("| lock | " + " | ".join(f"`{p}`" for p in PROFILES) + " |")
    print("| --- | " + " | ".join("---" for _ in PROFILES) + " |")
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, flags) in enumerate(LOCKS):
            cells = [cell(locksim, p, flags, seeds, workers, f"{tmp}/{i}-{p}") for p in PROFILES]
            print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
