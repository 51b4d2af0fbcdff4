#!/usr/bin/env python3
"""Every command a document shows with its output is run, and every line
shown must be among what it prints (tests Docs.ShownOutput.<document>).

    python3 tests/tools/check_doc_outputs.py --source SOURCE_DIR --locksim LOCKSIM DOC.md

The convention (docs/development.md, "Shown output"):

  - A fenced block with no language, or `sh`, whose lines start with `$ `
    is a session: each `$ ` line a command (a line ending in a backslash
    goes on to the next), the lines under it what it prints. The shown
    lines must be printed one after the other, as shown; a line `...`
    stands for lines left out.
  - A `sh` block of commands with `# => TEXT` lines under a command: each
    TEXT must be printed by that command, in the order shown, other lines
    left out freely. Other comment lines are not output.
  - A shown line matches a whole printed line (leading and trailing blanks
    aside). In it, `...` matches any text, and `~` before a number (`~0.39`,
    `~1,083`) matches any number, and the blanks before it any blanks (a
    column aligned to its width): a figure that varies from run to run or
    host to host (a time, a rate, a load average).
  - A fenced block with no language that has no command is a listing of
    output without its command: an error, unless marked.
  - `<!-- shown-output: skip REASON -->` on a line just above the block (with
    other comment lines, in any order) leaves the block out, with the
    reason said.

Each document runs in a fresh temp directory outside the checkout, its
blocks in order in that one directory, each command in its own bash (the
previous command's exit status given as `$?`): `./build/tools/locksim` and
`locksim` (on PATH) are the build's binary, and the checkout's tracked
files and folders are there as symlinks, so the inputs a command names
(tests/impl/packs/..., impl/lua) are found. A command must exit 0 or 1
unless the next command shown is `echo $?`, which shows the code. The
checkout's `git status` must be the same after the run.

Exit 0 when every shown line is found, 1 naming each that is not.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

MARKER = re.compile(r"^<!--\s*shown-output:\s*(.*?)\s*-->$")
COMMENT = re.compile(r"^<!--.*-->$")
TOKEN = re.compile(r"\.\.\.|~[+-]?\d[\d,.]*")
NUMBER = r"[+-]?\d[\d,.]*"
GAP = "..."
COMMAND_TIMEOUT_S = 600


class Command:
    def __init__(self, text, line):
        self.text, self.line, self.shown = text, line, []  # shown: (line, text)


class Block:
    def __init__(self, line, kind, markers):
        self.line, self.kind, self.markers, self.commands = line, kind, markers, []
        self.session = False  # `$ ` lines (shown lines adjacent), else `# =>` lines

    def skip_reason(self):
        for m in self.markers:
            if m.startswith("skip"):
                return m[len("skip"):].strip(" :") or "no reason given"
        return None


def markers_above(lines, fence):
    """The shown-output markers among the comment lines just above line `fence`."""
    found, i = [], fence - 1
    while i >= 0 and COMMENT.match(lines[i].strip()):
        m = MARKER.match(lines[i].strip())
        if m:
            found.append(m.group(1))
        i -= 1
    return found


def join_continued(body, i):
    """The command starting at body[i], its backslash-continued lines joined; next index."""
    text = body[i][1]
    while text.endswith("\\") and i + 1 < len(body):
        i += 1
        text = text[:-1] + "\n" + body[i][1]
    return text, i + 1


def parse_session(block, body, errors, doc):
    i = 0
    while i < len(body):
        line_no, text = body[i]
        if text.startswith("$ "):
            command, i = join_continued(body, i)
            block.commands.append(Command(command[2:], line_no))
            continue
        if not block.commands:
            errors.append(f"{doc}:{line_no}: output shown before any `$ ` command: {text}")
        else:
            block.commands[-1].shown.append((line_no, text))
        i += 1


def parse_arrows(block, body, errors, doc):
    i = 0
    while i < len(body):
        line_no, text = body[i]
        if text.startswith("# => "):
            if not block.commands:
                errors.append(f"{doc}:{line_no}: `# =>` before any command: {text}")
            else:
                block.commands[-1].shown.append((line_no, text[len("# => "):]))
        elif text.strip() and not text.startswith("#"):
            command, i = join_continued(body, i)
            block.commands.append(Command(command, line_no))
            continue
        i += 1


def parse(doc, text):
    """(blocks with commands or a skip marker, errors) of one document."""
    lines = text.split("\n")
    blocks, errors, i = [], [], 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        info, start = lines[i][3:].strip(), i
        end = start + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        body = [(n + 1, lines[n]) for n in range(start + 1, end)]
        i = end + 1
        if info not in ("", "sh"):
            continue
        block = Block(start + 1, info, markers_above(lines, start))
        if any(t.startswith("$ ") for _, t in body):
            block.session = True
            parse_session(block, body, errors, doc)
        elif info == "sh" and any(t.startswith("# => ") for _, t in body):
            parse_arrows(block, body, errors, doc)
        elif info == "" and block.skip_reason() is None:
            errors.append(f"{doc}:{start + 1}: a listing with no `$ ` command: show the command that "
                          "prints it, or mark the block <!-- shown-output: skip REASON -->")
            continue
        if block.commands or block.skip_reason() is not None:
            blocks.append(block)
    return blocks, errors


def pattern(shown):
    """A shown line as a regex over a printed line (both stripped)."""
    out, pos = [], 0
    for m in TOKEN.finditer(shown):
        before = shown[pos:m.start()]
        if m.group(0) == GAP:
            out += [re.escape(before), ".*?"]
        else:  # a varying number: the blanks that align it vary with its width
            text = before.rstrip(" ")
            out += [re.escape(text), " +" if len(text) < len(before) else "", NUMBER]
        pos = m.end()
    out.append(re.escape(shown[pos:]))
    return re.compile("".join(out))


def matches(p, printed):
    return p.fullmatch(printed) is not None


def found_in_order(patterns, printed, contiguous):
    """Whether the shown patterns (None: a gap) match printed lines in order;
    contiguous: without a gap, each on the line after the one before."""
    memo = {}

    def go(k, j, free):  # pattern k from line j; free: may skip lines first
        key = (k, j, free)
        if key in memo:
            return memo[key]
        if k == len(patterns):
            result = True
        elif patterns[k] is None:
            result = go(k + 1, j, True)
        elif free:
            result = any(matches(patterns[k], printed[x]) and go(k + 1, x + 1, not contiguous)
                         for x in range(j, len(printed)))
        else:
            result = j < len(printed) and matches(patterns[k], printed[j]) and go(k + 1, j + 1, False)
        memo[key] = result
        return result

    return go(0, 0, True)


def check_output(command, printed_text, session, doc):
    """The errors of one command's shown lines against what it printed."""
    printed = [l.strip() for l in printed_text.split("\n")]
    shown = [(n, t.strip()) for n, t in command.shown]
    patterns = [None if t == GAP else pattern(t) for _, t in shown]
    errors = []
    for (n, t), p in zip(shown, patterns):
        if p is not None and not any(matches(p, l) for l in printed):
            errors.append(f"{doc}:{n}: not printed: {t}")
    if not errors and not found_in_order(patterns, printed, session):
        how = "one after the other (mark left-out lines with `...`)" if session else "in this order"
        errors.append(f"{doc}:{command.line}: every shown line is printed, but not {how}")
    return errors


def tracked_entries(source):
    """The checkout's top-level files and folders that git tracks (all but build*
    and runs directories when it is not a git checkout)."""
    r = subprocess.run(["git", "-C", source, "ls-files", "-z"], capture_output=True)
    if r.returncode == 0 and r.stdout:
        return sorted({p.split("/")[0] for p in r.stdout.decode().split("\0") if p})
    return sorted(e for e in os.listdir(source)
                  if not e.startswith((".", "build")) and e not in ("runs", "out"))


def git_status(source):
    r = subprocess.run(["git", "-C", source, "status", "--porcelain", "--untracked-files=all"],
                       capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def fresh_directory(source, locksim):
    """(temp root, work dir, environment) for one document's commands."""
    root = tempfile.mkdtemp(prefix="locksim-docs-")
    work, bindir = os.path.join(root, "work"), os.path.join(root, "bin")
    os.makedirs(os.path.join(work, "build", "tools"))
    os.makedirs(bindir)
    os.symlink(locksim, os.path.join(work, "build", "tools", "locksim"))
    os.symlink(locksim, os.path.join(bindir, "locksim"))
    for entry in tracked_entries(source):
        if entry != "build":
            os.symlink(os.path.join(source, entry), os.path.join(work, entry))
    env = dict(os.environ)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env.pop("LOCKSIM_RUNS_DIR", None)
    return root, work, env


def run_command(command, previous_rc, work, env):
    script = f"(exit {previous_rc})\n{command}\n"
    try:
        r = subprocess.run(["bash", "-c", script], cwd=work, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace",
                           timeout=COMMAND_TIMEOUT_S)
        return r.returncode, r.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out


def run_block(block, doc, work, env):
    """(errors, commands run) of one block."""
    errors, rc, ran = [], 0, 0
    for k, command in enumerate(block.commands):
        began = time.monotonic()
        rc_now, out = run_command(command.text, rc, work, env)
        ran += 1
        seconds = time.monotonic() - began
        print(f"  {doc}:{command.line}: $ {command.text.splitlines()[0]}  (exit {rc_now}, {seconds:.1f} s)")
        problems = []
        if rc_now is None:
            problems.append(f"{doc}:{command.line}: no end within {COMMAND_TIMEOUT_S} s: {command.text}")
        else:
            following = block.commands[k + 1].text.strip() if k + 1 < len(block.commands) else ""
            if rc_now not in (0, 1) and following != "echo $?":
                problems.append(f"{doc}:{command.line}: exit {rc_now} (shown commands exit 0 or 1, or "
                                f"an `echo $?` after them shows the code): {command.text}")
            problems += check_output(command, out, block.session, doc)
        if problems:
            shown_out = out if len(out) < 20000 else out[:20000] + "\n[... cut]"
            problems.append(f"  it printed:\n" + "\n".join("    | " + l for l in shown_out.rstrip("\n").split("\n")))
        errors += problems
        rc = rc_now if rc_now is not None else 124
    return errors, ran


def check_document(doc_path, source, locksim):
    inside = os.path.commonpath([doc_path, source]) == source
    doc = os.path.relpath(doc_path, source) if inside else doc_path
    blocks, errors = parse(doc, open(doc_path, encoding="utf-8").read())
    runnable = [b for b in blocks if b.skip_reason() is None]
    for b in blocks:
        if b.skip_reason() is not None:
            print(f"  {doc}:{b.line}: skipped: {b.skip_reason()}")
    if not runnable:
        print(f"{doc}: no command with shown output" + (" to run" if blocks else ""))
        return errors
    status_before = git_status(source)
    root, work, env = fresh_directory(source, locksim)
    ran = 0
    try:
        for b in runnable:
            block_errors, n = run_block(b, doc, work, env)
            errors += block_errors
            ran += n
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if status_before is not None and git_status(source) != status_before:
        errors.append(f"{doc}: the commands changed the checkout (git status differs)")
    shown = sum(len([s for s in c.shown if s[1].strip() != GAP]) for b in runnable for c in b.commands)
    print(f"{doc}: {ran} command(s) run, {shown} shown line(s) checked, "
          f"{len(blocks) - len(runnable)} block(s) skipped")
    return errors


# --self-test: documents the convention must pass and must fail, their
# commands plain shell (printf), run like any document's.
SELF_TEST_PASS = """
```
$ printf 'seed 7 (212 trace events)\\nran in 0.27 s\\nmiddle\\nlast line\\n'
seed 7 (212 trace events)
ran in ~0.39 s
...
last line
```

```
$ printf 'rate     12  of 3\\n'
rate ~1234567  of 3
```

```sh
printf 'FAILED: 1 unexplained\\nnoise\\nreproduce seed 7: a/b\\n'; exit 1
# => FAILED: 1 unexplained
# => reproduce seed 7: ...
```

```
$ printf 'bad input\\n'; exit 2
bad input
$ echo $?
2
```

<!-- other comment -->
<!-- shown-output: skip it needs a machine we do not have -->
```
output of a command not run
```
"""
SELF_TEST_FAIL = {
    "a drifted number": "```\n$ printf 'seed 7 (212 trace events)\\n'\nseed 7 (213 trace events)\n```\n",
    "a line left out without ...": "```\n$ printf 'a\\nb\\nc\\n'\na\nc\n```\n",
    "lines out of order": "```sh\nprintf 'a\\nb\\n'\n# => b\n# => a\n```\n",
    "part of a line without ...": "```sh\nprintf 'a longer line\\n'\n# => a longer\n```\n",
    "a ~ on a word": "```\n$ printf 'took many s\\n'\ntook ~5 s\n```\n",
    "blanks that do not align a ~ figure": "```\n$ printf 'a  b 1\\n'\na b ~1\n```\n",
    "exit 2 not shown": "```\n$ printf 'x\\n'; exit 2\nx\n```\n",
    "a listing without its command": "```\nsome output\n```\n",
    "output before any command": "```\nstray output\n$ printf 'x\\n'\nx\n```\n",
}


def self_test(source, locksim):
    scratch, failures = tempfile.mkdtemp(prefix="locksim-docs-self-"), []
    try:
        def verdict(name, text):
            path = os.path.join(scratch, name.replace(" ", "-") + ".md")
            open(path, "w", encoding="utf-8").write(text)
            return check_document(path, source, locksim)
        errors = verdict("passing", SELF_TEST_PASS)
        if errors:
            failures.append("the passing document failed:\n" + "\n".join(errors))
        for name, text in SELF_TEST_FAIL.items():
            if not verdict(name, text):
                failures.append(f"{name}: passed, should fail")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for f in failures:
        print("SELF-TEST FAILED: " + f)
    if not failures:
        print(f"ok: the convention passes its passing document and fails all {len(SELF_TEST_FAIL)} broken ones")
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", required=True, help="the checkout")
    parser.add_argument("--locksim", required=True, help="the built locksim binary")
    parser.add_argument("--self-test", action="store_true", help="check the checker on documents of its own")
    parser.add_argument("documents", nargs="*")
    args = parser.parse_args()
    source, locksim = os.path.realpath(args.source), os.path.realpath(args.locksim)
    if not os.access(locksim, os.X_OK):
        sys.exit(f"{locksim}: not an executable")
    if args.self_test:
        return self_test(source, locksim)
    if not args.documents:
        sys.exit("no document given")
    errors = []
    for d in args.documents:
        errors += check_document(os.path.realpath(d), source, locksim)
    for e in errors:
        print(e)
    if errors:
        print(f"FAILED: {sum(1 for e in errors if not e.startswith('  '))} problem(s)")
        return 1
    print("ok: every shown line is printed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
