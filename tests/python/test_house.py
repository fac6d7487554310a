# SPDX-License-Identifier: Apache-2.0
"""The house: no function over 100 lines, in the C++ model and in the Python package (a function that long
does several things; split it into steps with names)."""
import ast
import glob
import os
import re

from conftest import ROOT

LIMIT = 100
_NOT_A_FUNCTION = re.compile(r"^((public|private|protected):|(namespace|struct|class|enum|union|extern)\b|template\s*<[^>]*>\s*(struct|class)\b)")


def _cpp_functions(path):
    """(name, lines) of every function defined at file or namespace scope: a body opened by a line ending in
    '{' whose statement starts at column 0, closed by the next '}' at column 0."""
    with open(path, errors="replace") as fh:
        lines = fh.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        if line.endswith("{") and not line.lstrip().startswith(("//", "#")):
            start = i
            while start > 0 and lines[start][:1] in (" ", "\t") and lines[start - 1].strip() and \
                    not lines[start - 1].rstrip().endswith((";", "{", "}")) and \
                    not lines[start - 1].lstrip().startswith(("//", "#")):
                start -= 1
            head = lines[start]
            if head[:1] not in ("", " ", "\t", "}", "/", "#") and not _NOT_A_FUNCTION.match(head) and \
                    "=" not in head.split("(")[0]:
                end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("}")), len(lines) - 1)
                yield head.strip()[:80], end - start + 1
                i = end
        i += 1


def test_no_function_is_over_100_lines():
    long = []
    for pattern in ("model/**/*.cpp", "model/**/*.h", "platform/**/*.cpp", "platform/**/*.h", "traffic/**/*.cpp",
                    "traffic/**/*.h", "config/**/*.cpp", "config/**/*.h", "bindings/*.cpp", "apps/*.cpp"):
        for path in glob.glob(os.path.join(ROOT, pattern), recursive=True):
            long += [(n, os.path.relpath(path, ROOT), name) for name, n in _cpp_functions(path) if n > LIMIT]
    for path in glob.glob(os.path.join(ROOT, "bindings", "cmswitch", "*.py")):
        with open(path) as fh:
            tree = ast.parse(fh.read())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > LIMIT:
                    long.append((n, os.path.relpath(path, ROOT), node.name))
    assert not long, "functions over 100 lines: " + "; ".join(f"{p}: {name} ({n})" for n, p, name in sorted(long))


def test_the_scan_finds_a_long_function(tmp_path):
    body = "\n".join(f"    x += {k};" for k in range(LIMIT))
    src = tmp_path / "a.cpp"
    src.write_text(f"int f(int x,\n      int y) {{\n{body}\n    return x;\n}}\nnamespace n {{\nint g() {{ return 1; }}\n}}\n")
    found = dict(_cpp_functions(str(src)))
    assert found["int f(int x,"] == LIMIT + 4


def test_the_tcp_stack_reads_in_steps():
    """traffic/tcp/ holds the host stack a reader follows: no function over 80 lines, and the sender (the state
    every strategy shares) under 500 lines, its loss recovery in strategies of their own."""
    long = []
    for path in glob.glob(os.path.join(ROOT, "traffic", "tcp", "*.*")):
        long += [(n, os.path.relpath(path, ROOT), name) for name, n in _cpp_functions(path) if n > 80]
    assert not long, "functions over 80 lines: " + "; ".join(f"{p}: {name} ({n})" for n, p, name in sorted(long))
    for name in ("tcp_sender.cpp", "tcp_sender.h"):
        with open(os.path.join(ROOT, "traffic", "tcp", name)) as fh:
            assert len(fh.read().split("\n")) < 500, name
