#!/usr/bin/env python3
# Every library .cpp/.hpp opens with a comment block of at least 3 lines that says what the file
# is (and the equation it implements) and what to read first ("Read X first", "Read after X",
# "read the header first"), and every backward function (`void name_backward(Node& ...`) has a
# comment line with "Shapes:" in the comments right above it. A new file or a new backward without
# them fails this test (ctest: file_headers).
#
#   check_file_headers.py SOURCE_DIR     exit 0 when every file passes, 1 listing those that fail
import pathlib
import re
import sys

FOLDERS = ["core", "autograd", "layers", "losses", "optim", "io", "graph", "training"]
MIN_LINES = 3
BACKWARD = re.compile(r"^void \w+_backward\(Node&")
READ_FIRST = re.compile(r"\bread\b.{0,160}?\b(first|after)\b", re.IGNORECASE | re.DOTALL)


def problem(path):
    block = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("//"):
            break
        block.append(line[2:].strip())
    if len(block) < MIN_LINES:
        return f"opens with {len(block)} comment line(s), needs at least {MIN_LINES}"
    if not READ_FIRST.search(" ".join(block)):
        return "its opening comment does not say what to read first ('Read X first' / 'Read after X')"
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines):
        if not BACKWARD.match(line):
            continue
        above, k = [], number - 1
        while k >= 0 and (lines[k].startswith("//") or lines[k].startswith("template")):
            above.append(lines[k])
            k -= 1
        if not any("Shapes:" in comment for comment in above):
            return f"line {number + 1}: the backward does not state its shapes ('// Shapes: ...' right above it)"
    return None


def main():
    root = pathlib.Path(sys.argv[1])
    files = sorted(p for folder in FOLDERS for p in (root / folder).glob("*") if p.suffix in (".cpp", ".hpp"))
    if not files:
        print(f"check_file_headers: no library files under {root}")
        return 1
    failures = [(p.relative_to(root).as_posix(), why) for p in files if (why := problem(p))]
    for path, why in failures:
        print(f"{path}: {why}")
    print(f"check_file_headers: {len(files) - len(failures)} of {len(files)} library files open with their header")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
