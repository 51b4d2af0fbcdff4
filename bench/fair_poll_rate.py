#!/usr/bin/env python3
"""Fair-lock cost per operation: runs `locksim run` for seeds 1..N (safe
profile, fair lock, 60 s each), reads each trace and prints events per
operation and polls (fair_acquire / fair_try_once scripts) per second spent
waiting. Usage:
  bench/fair_poll_rate.py BUILD/tools/locksim [PACK_DIR|-] [N]
PACK_DIR '-' means our scripts (impl/lua)."""
import json
import os
import subprocess
import sys
import tempfile


def main() -> int:
    if len(sys.argv) < 2 or len(sys.argv) > 4:
        print(__doc__, file=sys.stderr)
        return 2
    binary = sys.argv[1]
    scripts = sys.argv[2] if len(sys.argv) > 2 else "-"
    try:
        seeds = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    except ValueError:
        print("fair_poll_rate: N must be an integer", file=sys.stderr)
        return 2
    if seeds < 1:
        print("fair_poll_rate: N must be >= 1", file=sys.stderr)
        return 2
    events = ops = polls = 0
    wait_us = 0
    with tempfile.TemporaryDirectory(prefix="fair-poll-rate-") as tmp:
        for seed in range(1, seeds + 1):
            path = os.path.join(tmp, f"t{seed}.jsonl")
            cmd = [binary, "run", "--seed", str(seed), "--profile", "safe", "--lock", "fair",
                   "--duration-s", "60", "--trace", path]
            if scripts != "-":
                cmd += ["--scripts", scripts]
            subprocess.run(cmd, check=True, capture_output=True)
            pending = {}
            with open(path) as f:
                next(f)  # header
                for line in f:
                    e = json.loads(line)
                    events += 1
                    kind = e["k"]
                    if kind == "invoke":
                        ops += 1
                        if e.get("op") in ("lock", "try_lock"):
                            pending[e["opid"]] = e["t"]
                    elif kind in ("ok", "fail", "info") and e.get("opid") in pending:
                        wait_us += e["t"] - pending.pop(e["opid"])
                    elif kind == "script" and e.get("sc") in ("fair_acquire", "fair_try_once"):
                        polls += 1
    waiting_s = wait_us / 1e6
    print(f"seeds={seeds} events={events} ops={ops} events_per_op={events / max(ops, 1):.1f} "
          f"polls={polls} waiting_s={waiting_s:.0f} polls_per_waiting_s={polls / max(waiting_s, 1e-9):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
