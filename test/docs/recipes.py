#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The install, upgrade and removal recipes of the docs, as the docs tests run them.

A recipe is a fenced code block right after a line `<!-- recipe: NAME -->` in a Markdown file
(docs/installing.md, ha-addon/breeze_agent/DOCS.md). It is taken exactly as written — the test
runs the text a user copies — and a marker without a block after it, a name used twice, or a
block that is empty is an error.

  recipes.py list FILE...        one line per recipe: NAME FILE:LINE LANGUAGE LINES
  recipes.py show FILE NAME      the recipe's text, exactly
"""

import re
import sys

MARKER = re.compile(r"^<!-- recipe: ([a-z0-9-]+) -->\s*$")
FENCE = re.compile(r"^(```+)\s*([A-Za-z0-9_-]*)\s*$")


def recipes(path):
    """[(name, line, language, text)] of FILE, in order."""
    lines = open(path, encoding="utf-8").read().split("\n")
    found, names = [], set()
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        name, at = m.group(1), i + 1
        if name in names:
            sys.exit(f"{path}:{at}: recipe {name} is marked twice")
        names.add(name)
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        fence = FENCE.match(lines[j]) if j < len(lines) else None
        if not fence:
            sys.exit(f"{path}:{at}: the marker of recipe {name} is not followed by a fenced code block")
        end = j + 1
        while end < len(lines) and lines[end].rstrip() != fence.group(1):
            end += 1
        if end >= len(lines):
            sys.exit(f"{path}:{j + 1}: recipe {name}'s code block is not closed")
        body = lines[j + 1 : end]
        if not any(line.strip() for line in body):
            sys.exit(f"{path}:{at}: recipe {name} is empty")
        found.append((name, j + 2, fence.group(2), "\n".join(body) + "\n"))
        i = end + 1
    return found


def main(argv):
    if len(argv) >= 2 and argv[0] == "list":
        for path in argv[1:]:
            for name, line, language, text in recipes(path):
                print(f"{name} {path}:{line} {language or '-'} {text.count(chr(10))}")
        return 0
    if len(argv) == 3 and argv[0] == "show":
        for name, _, _, text in recipes(argv[1]):
            if name == argv[2]:
                sys.stdout.write(text)
                return 0
        sys.exit(f"{argv[1]}: no recipe {argv[2]}")
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
