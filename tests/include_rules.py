#!/usr/bin/env python3
"""Checks the include rules docs/ARCHITECTURE.md states: every area under src/frugal/ has a
section there whose "May include:" line names the areas it may include, and no file of the
area includes one it does not name (so no area includes one above it).

Usage: include_rules.py SOURCE_DIR. Exit 0 when the tree keeps the rules; 1 listing each
include that breaks one (file:line: the include and what the area may include)."""

import pathlib
import re
import sys

SECTION = re.compile(r"^## `?([a-z_]+)`?\s*$")
MAY_INCLUDE = "**May include:**"
INCLUDE = re.compile(r'^\s*#\s*include\s+"frugal/([a-z_]+)/')


def allowed_includes(architecture):
    """{area: set of areas it may include}: the backquoted names after a section's
    "**May include:**", up to the end of that sentence."""
    sections, area = {}, None
    for line in architecture.read_text(encoding="utf-8").splitlines():
        if m := SECTION.match(line):
            area = m.group(1)
            sections[area] = ""
        elif area is not None:
            sections[area] += " " + line
    rules = {}
    for name, text in sections.items():
        at = text.find(MAY_INCLUDE)
        if at < 0:
            continue
        sentence = re.split(r"\.(\s|$)", text[at + len(MAY_INCLUDE):], maxsplit=1)[0]
        rules[name] = set(re.findall(r"`([a-z_]+)`", sentence))
    return rules


def main():
    root = pathlib.Path(sys.argv[1])
    rules = allowed_includes(root / "docs" / "ARCHITECTURE.md")
    problems = []
    areas = sorted(p for p in (root / "src" / "frugal").iterdir() if p.is_dir())
    for area_dir in areas:
        area = area_dir.name
        if area not in rules:
            problems.append(f"docs/ARCHITECTURE.md: no '## {area}' section with a "
                            "'**May include:**' line")
            continue
        for path in sorted(area_dir.rglob("*")):
            if path.suffix not in (".h", ".cc"):
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                m = INCLUDE.match(line)
                if m is None or m.group(1) == area or m.group(1) in rules[area]:
                    continue
                allowed = ", ".join(sorted(rules[area])) or "nothing"
                problems.append(f"{path.relative_to(root)}:{number}: {area} includes "
                                f"frugal/{m.group(1)}/, but may include only {allowed}")
    for p in problems:
        print(p)
    if not problems:
        print(f"{len(areas)} areas keep the include rules of docs/ARCHITECTURE.md")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
