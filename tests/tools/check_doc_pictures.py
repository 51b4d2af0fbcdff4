#!/usr/bin/env python3
"""The documents' pictures are made by tools/doc-pictures.sh, from the
commands the documents show (test DocPicturesDrawEveryPictureTheDocsShow).

    python3 tests/tools/check_doc_pictures.py SOURCE_DIR LOCKSIM

Runs the script into a temp dir and checks:
  - every output is a valid PNG (signature, every chunk's CRC, the header,
    the image data inflating to exactly its rows) of a real picture (at
    least 300 x 200, not one colour), or a valid SVG (XML whose root is svg
    with a viewBox);
  - every picture README.md and docs/*.md show (images/NAME.png) is one it
    draws, and shipped in docs/images/; every one it draws is shown;
  - every command it runs (its `step ./build/tools/locksim ...` lines) is
    shown, word for word, in README.md or docs/*.md;
  - no command shown writes into the checkout's docs/images/ or
    reports/examples/;
  - every picture in docs/images/ is shown, and the repository ships no
    picture (.png, .svg) elsewhere (its tracked files, when it is a git
    checkout).
Without chromium the screenshots are not drawn and not checked (said so).
Exit 0 when all hold, 1 naming each that does not.
"""
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def check_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return "not a PNG (no signature)"
    pos, idat, header, last = 8, b"", None, b""
    while pos < len(data):
        if pos + 12 > len(data):
            return "truncated chunk at byte %d" % pos
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            return "bad CRC in chunk %r" % kind
        if header is None and kind != b"IHDR":
            return "first chunk is %r, not IHDR" % kind
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        last = kind
        pos += 12 + length
    if last != b"IEND":
        return "no IEND at the end"
    width, height, depth, colour, _, _, interlace = header
    if colour not in CHANNELS or interlace != 0:
        return "unexpected colour type %d or interlace %d" % (colour, interlace)
    raw = zlib.decompress(idat)
    row = (width * CHANNELS[colour] * depth + 7) // 8
    if len(raw) != height * (1 + row):
        return "image data is %d bytes, %d x %d needs %d" % (len(raw), width, height, height * (1 + row))
    if width < 300 or height < 200:
        return "only %d x %d" % (width, height)
    if len(set(raw[1 : 1 + row])) < 2 and len(set(raw)) < 8:
        return "one colour"
    return None


def check_svg(path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        return "not XML: %s" % e
    if not root.tag.endswith("svg") or "viewBox" not in root.attrib:
        return "root is %s without a viewBox" % root.tag
    return None


def main():
    source, locksim = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    failures = []
    docs = [os.path.join(source, "README.md")] + sorted(glob.glob(os.path.join(source, "docs", "*.md")))
    text = {d: open(d, encoding="utf-8").read() for d in docs}
    script_path = os.path.join(source, "tools", "doc-pictures.sh")
    script = open(script_path, encoding="utf-8").read()
    screenshots = shutil.which("chromium") is not None
    out = tempfile.mkdtemp(prefix="locksim-doc-pictures-check.")
    try:
        args = ["bash", script_path, "--locksim", locksim] + ([] if screenshots else ["--no-screenshots"]) + [out]
        run = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if run.returncode != 0:
            print(run.stdout)
            print("FAIL: tools/doc-pictures.sh exited %d" % run.returncode)
            return 1
        drawn = sorted(os.listdir(out))
        for name in drawn:
            path = os.path.join(out, name)
            problem = check_png(path) if name.endswith(".png") else check_svg(path) if name.endswith(".svg") else "unknown kind"
            if problem:
                failures.append("%s: %s" % (name, problem))
        shown = set()
        for d, t in text.items():
            for target in re.findall(r"\]\(([^)\s]+\.(?:png|svg))\)", t):
                shown.add(os.path.basename(target))
                if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(d), target))):
                    failures.append("%s shows %s, which is not in the checkout" % (os.path.relpath(d, source), target))
                elif "/docs/images/" not in os.path.normpath(os.path.join(os.path.dirname(d), target)).replace(os.sep, "/"):
                    failures.append("%s shows %s from outside docs/images/" % (os.path.relpath(d, source), target))
        screenshot_names = {"report.png", "coverage-section.png"}
        for name in sorted(shown - set(drawn)):
            if screenshots or name not in screenshot_names:
                failures.append("%s is shown in the documents but tools/doc-pictures.sh does not draw it" % name)
        for name in sorted(set(drawn) - shown):
            failures.append("tools/doc-pictures.sh draws %s, which no document shows" % name)
        images = os.path.join(source, "docs", "images")
        for name in sorted(os.listdir(images)):
            if name not in shown:
                failures.append("docs/images/%s is shipped but no document shows it" % name)
        tracked = subprocess.run(["git", "-C", source, "ls-files"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if tracked.returncode == 0:
            for f in tracked.stdout.splitlines():
                if f.lower().endswith((".png", ".svg")) and not f.startswith("docs/images/"):
                    failures.append("%s is a picture shipped outside docs/images/: tools/doc-pictures.sh does not draw it" % f)
        all_text = "\n".join(text.values())
        commands = re.findall(r"^\s*step (\./build/tools/locksim .*)$", script, re.M)
        if len(commands) < 10:
            failures.append("only %d commands found in tools/doc-pictures.sh" % len(commands))
        for c in commands:
            if c not in all_text:
                failures.append("tools/doc-pictures.sh runs a command no document shows: " + c)
        for d, t in text.items():
            for bad in re.findall(r"^.*(?:-o|--out|--trace)\s+(?:\./)?(?:docs/images|reports/examples)/.*$", t, re.M):
                failures.append("%s: a command writes into the checkout: %s" % (os.path.relpath(d, source), bad.strip()))
        print("drew %d pictures (%s); %d commands, each shown in the documents%s"
              % (len(drawn), ", ".join(drawn), len(commands), "" if screenshots else "; chromium is not installed: no screenshots"))
    finally:
        shutil.rmtree(out, ignore_errors=True)
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
