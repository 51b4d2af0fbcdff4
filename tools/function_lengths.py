#!/usr/bin/env python3
"""The longest functions of C++ sources, in lines, by a brace counter.

    python3 tools/function_lengths.py [--top N] [--max LINES] PATH...

PATH is a .cc file or a folder (its *.cc files, not its subfolders). A
function is a top-level brace block (inside namespaces and classes) whose
opening line reads like a function head: a name followed by '(' before the
'{', and not a class, struct, enum, namespace or an initialiser ('= {').
Its length is the lines from its head to its closing brace. Comments,
string and character literals are skipped when counting braces. A lambda
counts towards the function it is written in.

Prints the N longest (default 20) as "lines  file  name"; with --max, exits
1 when a function is longer than LINES, naming it.
"""
import argparse
import os
import re
import sys


def strip_code(text):
    """The text with comments, strings and chars blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
            out.append(c)  # a digit separator: 30'000
            i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (j + 1 - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


HEAD_NOT_FUNCTION = re.compile(r"\b(class|struct|enum|namespace|union)\b|=\s*$|\bextern\s*$")
NAME = re.compile(r"([A-Za-z_][\w:~<>]*(?:operator\s*\S+)?)\s*\(")


def functions(path):
    text = strip_code(open(path, encoding="utf-8").read())
    lines = text.split("\n")
    depth = 0
    scopes = []  # (is_function, head line, name) per open brace
    found = []
    head = ""
    for number, line in enumerate(lines, 1):
        for c in line:
            if c == "{":
                in_function = any(s[0] for s in scopes)
                is_function = False
                name = ""
                if not in_function:
                    before = head.strip()
                    if "(" in before and not HEAD_NOT_FUNCTION.search(before.split("(")[0] + " "):
                        m = NAME.search(before)
                        if m:
                            is_function = True
                            name = m.group(1)
                scopes.append((is_function, head_start if is_function else number, name))
                head = ""
                depth += 1
            elif c == "}":
                if scopes:
                    is_function, start, name = scopes.pop()
                    if is_function:
                        found.append((number - start + 1, path, name))
                depth -= 1
                head = ""
            elif c == ";":
                head = ""
            else:
                if not head.strip() and not c.isspace():
                    head_start = number
                head += c
        head += " "
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--max", type=int, default=0)
    args = parser.parse_args()
    found = []
    for p in args.paths:
        files = [os.path.join(p, f) for f in sorted(os.listdir(p)) if f.endswith(".cc")] if os.path.isdir(p) else [p]
        for f in files:
            found.extend(functions(f))
    found.sort(key=lambda f: (-f[0], f[1], f[2]))
    for length, path, name in found[: args.top]:
        print(f"{length:5d}  {path}  {name}")
    if args.max:
        over = [f for f in found if f[0] > args.max]
        for length, path, name in over:
            print(f"too long: {path} {name}: {length} lines (at most {args.max})", file=sys.stderr)
        return 1 if over else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
