#!/usr/bin/env python3
# Compiles and runs every ```cpp snippet of README.md and docs/*.md against the library in the
# build tree, so that no snippet of the documentation can rot (ctest: doc_snippets).
#
# The convention, for whoever writes a snippet:
#   - A ```cpp block that defines `int main(` is a whole program: compiled as it stands, one
#     executable per block.
#   - Any other ```cpp block is a fragment: statements, as in the body of a function. Every
#     fragment of one .md file goes into one translation unit, each in a function of its own, run in
#     order by one main; that unit includes every library header (<empl/core/tensor.hpp>, ...) and
#     says `using namespace empl;`. Write functions or types into a whole program instead.
#   - A ```output block right after a snippet (only blank lines between) is what the snippet must
#     print on stdout, exactly: the numbers in the text are the numbers the code computes.
#   - A snippet fails the test when it does not compile, exits non-zero (an empl::Error thrown and
#     not caught, an expect() that does not hold), or prints something else than its ```output.
#     Fragments can call expect(condition, "what") to check a value.
#   - ```sh, ```cmake and other blocks are listed, not run.
#
#   run_snippets.py --source DIR --build DIR --cxx COMPILER [--flags "CMAKE_CXX_FLAGS"]
import argparse
import concurrent.futures
import pathlib
import re
import shlex
import subprocess
import sys

FENCE = re.compile(r"^```([\w+-]*)\s*$")
FOLDERS = ["core", "autograd", "layers", "losses", "optim", "io", "graph", "training"]
SEPARATOR = "@@ empl snippet end @@"


class Block:
    def __init__(self, path, line, lang, text):
        self.path, self.line, self.lang, self.text = path, line, lang, text
        self.expected = None  # the ```output block that follows, if any


def blocks_of(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        start, lang = i + 1, match.group(1)
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            i += 1
        blocks.append((Block(path, start + 1, lang, "\n".join(lines[start:i]) + "\n"), i))
        i += 1
    # Attach each ```output block to the snippet just before it.
    result = []
    for index, (block, end) in enumerate(blocks):
        if block.lang == "output" and result and result[-1].lang == "cpp":
            previous_end = blocks[index - 1][1]
            between = lines[previous_end + 1 : block.line - 2]
            if all(not line.strip() for line in between) and result[-1].expected is None:
                result[-1].expected = block.text
                continue
        result.append(block)
    return result


def prelude(source):
    headers = sorted(f"{p.parent.name}/{p.name}" for folder in FOLDERS for p in (source / folder).glob("*.hpp"))
    return ("".join(f"#include <empl/{h}>\n" for h in headers) +
            "#include <cmath>\n#include <cstdio>\n#include <iostream>\n#include <stdexcept>\n#include <string>\n"
            "#include <vector>\nusing namespace empl;\n"
            "static void expect(bool ok, const char* what) {\n"
            "  if (!ok) throw std::runtime_error(std::string(\"expect failed: \") + what);\n}\n")


def fragments_unit(source, path, fragments):
    code = [prelude(source)]
    for n, block in enumerate(fragments):
        code.append(f"static void snippet_{n}() {{\n#line {block.line} \"{path}\"\n{block.text}}}\n")
    code.append("int main() {\n  try {\n")
    for n, _ in enumerate(fragments):
        code.append(f"    snippet_{n}();\n    std::cout.flush();\n    std::printf(\"{SEPARATOR}\\n\");\n    std::fflush(stdout);\n")
    code.append("  } catch (const std::exception& e) {\n    std::fflush(stdout);\n"
                "    std::fprintf(stderr, \"snippet threw: %s\\n\", e.what());\n    return 1;\n  }\n  return 0;\n}\n")
    return "".join(code)


def build_and_run(job, arguments, link):
    name, unit, blocks, fragments = job
    folder = pathlib.Path(arguments.build) / "snippets"
    cpp, exe = folder / f"{name}.cpp", folder / name
    cpp.write_text(unit, encoding="utf-8")
    compile_command = [arguments.cxx, "-std=c++20", "-O1", "-w"] + shlex.split(arguments.flags) + [f"-I{arguments.source}",
                       f"-I{pathlib.Path(arguments.build) / 'include'}", str(cpp), "-o", str(exe)] + link
    compiled = subprocess.run(compile_command, capture_output=True, text=True)
    where = f"{blocks[0].path}:{blocks[0].line}" + (f" (+{len(blocks) - 1} more fragments)" if len(blocks) > 1 else "")
    if compiled.returncode != 0:
        return [f"{where}: does not compile\n{compiled.stderr[-3000:]}"]
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    problems = []
    if ran.returncode != 0:
        problems.append(f"{where}: exits with status {ran.returncode}\n{ran.stderr[-2000:]}")
    outputs = ran.stdout.split(SEPARATOR + "\n")[: len(blocks)] if fragments else [ran.stdout]
    for block, out in zip(blocks, outputs):
        if block.expected is not None and out != block.expected:
            problems.append(f"{block.path}:{block.line}: prints\n{out}which is not its ```output block\n{block.expected}")
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--cxx", required=True)
    parser.add_argument("--flags", default="", help="the build's CMAKE_CXX_FLAGS (sanitizers must match the library's)")
    arguments = parser.parse_args()
    source = pathlib.Path(arguments.source)
    (pathlib.Path(arguments.build) / "snippets").mkdir(exist_ok=True)
    link = [line for line in (pathlib.Path(arguments.build) / "snippets" / "link.txt").read_text().splitlines() if line]
    link += ["-lpthread"]
    jobs, listed = [], []
    for path in [source / "README.md"] + sorted((source / "docs").glob("*.md")):
        relative = path.relative_to(source).as_posix()
        blocks = blocks_of(path)
        for block in blocks:
            block.path = relative
        snippets = [b for b in blocks if b.lang == "cpp"]
        listed += [f"{relative}:{b.line} ```{b.lang or 'text'}" for b in blocks if b.lang not in ("cpp", "output")]
        stem = re.sub(r"\W", "_", relative[:-3])
        fragments = [b for b in snippets if not re.search(r"\bint\s+main\s*\(", b.text)]
        if fragments:
            jobs.append((f"{stem}_fragments", fragments_unit(source, relative, fragments), fragments, True))
        for b in snippets:
            if b not in fragments:
                unit = f"#line {b.line} \"{relative}\"\n{b.text}"
                jobs.append((f"{stem}_line{b.line}", unit, [b], False))
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda job: build_and_run(job, arguments, link), jobs))
    problems = [p for result in results for p in result]
    count = sum(len(job[2]) for job in jobs)
    print(f"run_snippets: {count} C++ snippets in {len(jobs)} programs; {len(listed)} other blocks listed, not run")
    for problem in problems:
        print(problem)
    return 1 if problems or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
