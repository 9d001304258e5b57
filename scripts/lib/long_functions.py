#!/usr/bin/env python3
"""Lists the functions of src/ and apps/ longer than a limit (default 60 lines), longest first.

A rough reader, not a parser: a definition is a line at column 0 with a '(' that opens a body
ending at the next '}' at column 0. It misreads a few (a one-line function followed by a
longer one); the house rule it checks is docs/ARCHITECTURE.md's "a function past ~60 lines is a
sign to split by concept", and a function that stays long says why in a comment above it.

usage: scripts/lib/long_functions.py [ROOT] [LIMIT]
"""
import pathlib
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 60
SKIP = ("#", "/", "}", "namespace", "using", "struct", "class", "enum", "template",
        "static_assert")
found = []
for base in ("src", "apps"):
    for path in sorted((root / base).rglob("*.cc")):
        lines = path.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            if line and not line[0].isspace() and not line.startswith(SKIP) and "(" in line:
                j = i
                while (j < len(lines) and j - i < 8 and
                       not lines[j].rstrip().endswith(("{", ";"))):
                    j += 1
                if (j < len(lines) and lines[j].rstrip().endswith("{") and
                        "=" not in line.split("(")[0]):
                    k = j + 1
                    while k < len(lines) and lines[k] != "}":
                        k += 1
                    body = k - j - 1
                    if body > limit:
                        found.append((body, f"{path.relative_to(root)}:{i + 1}", line.strip()))
                    i = k + 1
                    continue
            i += 1
for body, where, signature in sorted(found, reverse=True):
    print(body, where, signature[:90])
print(f"{len(found)} functions over {limit} lines", file=sys.stderr)
