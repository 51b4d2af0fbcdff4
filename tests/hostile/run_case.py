#!/usr/bin/env python3
"""One case of the hostile-pack corpus (tests/hostile/README.md) on one command.

usage: run_case.py LOCKSIM PACK_DIR CASE.lua COMMAND

The case's Lua replaces rlock_acquire.lua in a copy of the pack, then
COMMAND (run, campaign, pack-check, replay, diff, explore, check, shrink) runs it on
the lua backend within a time limit. The case's "-- expect:" line says what
must happen:
  stop TEXT   exit 2, standard error exactly one line, containing TEXT and
              the pack's directory; a run stopped at the memory limit also
              stays under the --memory-limit it ran with (256M, or the
              case's "-- memory-limit:" line) plus 100 MB of peak RSS
  reply TEXT  the command completes; the run's trace holds TEXT (the error
              reply live Redis gives, the pack's script error)
TEXT may list alternatives: TEXT|TEXT.
Exit 0 when it does, 1 with the reason otherwise.
"""
import os
import resource
import shutil
import subprocess
import sys
import tempfile

TIME_LIMIT_S = 10
MEMORY_LIMIT = "256M"
RSS_SLACK_BYTES = 100 << 20


def expectation(case):
    """(kind, texts, memory limit): texts are alternatives (TEXT|TEXT)."""
    kind, texts, limit = None, None, MEMORY_LIMIT
    for line in open(case, encoding="utf-8"):
        if line.startswith("-- expect: "):
            kind, _, text = line[len("-- expect: "):].strip().partition(" ")
            texts = text.split("|")
        elif line.startswith("-- memory-limit: "):
            limit = line[len("-- memory-limit: "):].strip()
    if kind is None:
        sys.exit(f"{case}: no '-- expect:' line")
    return kind, texts, limit


def size_bytes(text):
    units = {"K": 10, "M": 20, "G": 30}
    return int(text[:-1]) << units[text[-1]] if text[-1] in units else int(text)


def fail(why):
    print(f"FAIL: {why}")
    sys.exit(1)


def run(cmd, cwd):
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, errors="replace",
                              timeout=TIME_LIMIT_S)
    except subprocess.TimeoutExpired:
        fail(f"no answer within {TIME_LIMIT_S} s: {' '.join(cmd)}")


def main():
    locksim, pack_src, case = (os.path.abspath(a) for a in sys.argv[1:4])
    command = sys.argv[4]
    kind, texts, limit = expectation(case)
    work = tempfile.mkdtemp(prefix="locksim-hostile-")
    try:
        pack = os.path.join(work, "pack")
        shutil.copytree(pack_src, pack)
        target = os.path.join(pack, "rlock_acquire.lua")
        trace = os.path.join(work, "run.jsonl")
        memory = ["--memory-limit", limit]
        base = ["--backend", "lua", "--scripts", pack]
        if command in ("check", "shrink"):
            # check runs the pack's Lua when it re-runs a violation for its
            # cause, shrink when it shrinks one: the trace comes from an
            # acquire that always grants.
            with open(target, "w", encoding="utf-8") as f:
                f.write("redis.call('hset', KEYS[1], ARGV[2], 1) redis.call('pexpire', KEYS[1], ARGV[1]) "
                        "return nil\n")
        if command in ("replay", "check", "shrink"):
            # A trace recorded with the pack as it is, then the case swapped in.
            rec = run([locksim, "run", *base, "--seed", "1", "--trace", trace], work)
            if rec.returncode not in (0, 1):
                fail(f"recording the trace: exit {rec.returncode}: {rec.stderr.strip()}")
        shutil.copyfile(case, target)
        if command == "run":
            cmd = [locksim, "run", *base, *memory, "--seed", "1", "--trace", trace]
        elif command == "campaign":
            cmd = [locksim, "campaign", *base, *memory, "--seeds", "2", "--out", os.path.join(work, "out")]
        elif command == "pack-check":
            cmd = [locksim, "pack", "check", pack, "--backend", "lua", *memory]
        elif command == "replay":
            cmd = [locksim, "replay", trace, *memory]
        elif command == "check":
            cmd = [locksim, "check", trace, *memory]
        elif command == "shrink":
            cmd = [locksim, "shrink", trace, "-o", os.path.join(work, "shrunk.jsonl"), *memory]
        elif command == "diff":
            cmd = [locksim, "diff", *base, *memory, "--sequences", "5"]
        elif command == "explore":
            cmd = [locksim, "explore", *base, *memory, "--out", os.path.join(work, "explore")]
        else:
            sys.exit(f"unknown command {command}")
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        p = run(cmd, work)
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        if kind == "stop":
            if p.returncode != 2:
                fail(f"exit {p.returncode}, not 2; stderr: {p.stderr.strip()[:2000]}")
            if len(lines) != 1:
                fail(f"{len(lines)} lines on standard error, not one: {p.stderr.strip()[:2000]}")
            if lines[0].startswith("locksim: error:"):
                fail(f"main's catch-all line (an exception the command does not handle): {lines[0]}")
            if not any(t in lines[0] for t in texts) or pack not in lines[0]:
                fail(f"the line does not name {' or '.join(texts)} and the pack {pack}: {lines[0]}")
            if "MiB of memory" in lines[0] and peak_kib > before:
                if peak_kib * 1024 > size_bytes(limit) + RSS_SLACK_BYTES:
                    fail(f"peak RSS {peak_kib // 1024} MiB, over {limit} + 100 MB")
            print(f"ok: exit 2: {lines[0]} (peak RSS {peak_kib // 1024} MiB)")
        elif kind == "reply":
            if p.returncode not in (0, 1):
                fail(f"exit {p.returncode}: {p.stderr.strip()[:2000]}")
            found = False
            for root, _, files in os.walk(work):
                for name in files:
                    if name.endswith((".jsonl", ".json")):
                        with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
                            if any(t in f.read() for t in texts):
                                found = True
            if command == "pack-check":
                found = found or any(t in p.stdout for t in texts)
            if not found:
                fail(f"{' or '.join(texts)} in no output of {' '.join(cmd)}; stdout: {p.stdout.strip()[-1500:]} "
                     f"stderr: {p.stderr.strip()[-1500:]}")
            print(f"ok: exit {p.returncode}, the reply holds {' or '.join(texts)}")
        else:
            sys.exit(f"{case}: unknown expectation {kind}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
