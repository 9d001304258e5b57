#!/usr/bin/env python3
"""The compile commands clang-tidy reads, one per source as written:
    tidy_database.py BUILD_DIR/compile_commands.json OUT_DIR
A unity build compiles generated batch files (Unity/unity_N_cxx.cxx, each including a few
sources); each source they include gets the batch's command, compiling it alone. GCC's
precompiled header (which clang cannot read) is left out of every command, so a source that
leans on it for an include it lacks is a finding."""
import json
import os
import re
import sys

PCH = re.compile(r" -Winvalid-pch| -include [^ ]*cmake_pch\.hxx")
INCLUDE = re.compile(r'^#include "([^"]+)"$', re.M)


def main(database, out_dir):
    entries = []
    with open(database, encoding="utf-8") as f:
        for entry in json.load(f):
            command = PCH.sub("", entry["command"])
            batch = entry["file"]
            sources = [batch]
            if "/Unity/unity_" in batch:
                with open(batch, encoding="utf-8") as u:
                    sources = INCLUDE.findall(u.read())
            for source in sources:
                one = command.replace(" -c " + batch, " -c " + source)
                entries.append({"directory": entry["directory"], "command": one, "file": source})
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "compile_commands.json"), "w", encoding="utf-8") as f:
        json.dump(entries, f, indent=0)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
