#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The docs' links resolve: every relative Markdown link or image (and <img src>/<a href>) in
# README.md, CHANGELOG.md, docs/*.md and ha-addon/**/*.md must name a file or folder inside the
# repository, and a `#anchor` into a .md file must name one of its headings (GitHub's slugs:
# lower case, spaces to `-`, punctuation dropped, `-1`, `-2` … for repeated headings) or an
# explicit `<a name>`/`id`. Links in fenced code and code spans are not links. Web links
# (http:, https:, mailto:) are not fetched. Prints each broken link as file:line; exit 1 if any.
#   scripts/docs-check.sh              the documentation above
#   scripts/docs-check.sh FILE.md …    just these files (anchors are still checked in any target)
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PYTHON'
import glob, os, re, sys, urllib.parse

root = os.getcwd()
files = sys.argv[1:] or sorted(
    ["README.md", "CHANGELOG.md"]
    + glob.glob("docs/*.md")
    + glob.glob("ha-addon/**/*.md", recursive=True)
)

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# `](target)` or `](target "title")`: the link text may have started on an earlier line.
INLINE = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HTML_ATTR = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*[\"']([^\"']+)[\"']", re.I)
HTML_ANCHOR = re.compile(r"<a\b[^>]*?\b(?:name|id)\s*=\s*[\"']([^\"']+)[\"']|\bid\s*=\s*[\"']([^\"']+)[\"']", re.I)
ATX = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def prose_lines(text):
    """(number, line) of the lines outside fenced code blocks."""
    fenced = None
    for number, line in enumerate(text.split("\n"), 1):
        match = FENCE.match(line)
        if match:
            if fenced is None:
                fenced = match.group(1)
            elif line.strip().startswith(fenced):
                fenced = None
            continue
        if fenced is None:
            yield number, line


def slug(heading):
    """GitHub's anchor for a heading's text (github-slugger): the rendered text lower-cased,
    characters other than letters, digits, `-`, `_` and spaces dropped, spaces to `-`."""
    text = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # images: their alt text
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.lower()
    return "".join(c for c in text if c.isalnum() or c in "-_ ").replace(" ", "-")


anchor_cache = {}


def anchors(path):
    """Every anchor a .md file offers: its headings' slugs and explicit HTML anchors."""
    if path in anchor_cache:
        return anchor_cache[path]
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    found, counts = set(), {}
    previous = ""
    for _, line in prose_lines(text):
        heading = None
        match = ATX.match(line)
        if match:
            heading = match.group(2)
        elif previous.strip() and not previous.lstrip().startswith(("|", "-", "*", ">")) and re.fullmatch(r"\s{0,3}(=+|-+)\s*", line):
            heading = previous.strip()  # a setext heading: the line above, underlined
        if heading is not None:
            base = slug(heading)
            n = counts.get(base, 0)
            counts[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        for named in HTML_ANCHOR.findall(line):
            found.update(a for a in named if a)
        previous = line
    anchor_cache[path] = found
    return found


def targets(line):
    """The link targets of one prose line, code spans left out."""
    line = CODE_SPAN.sub("", line)
    found = INLINE.findall(line) + HTML_ATTR.findall(line)
    match = DEFINITION.match(line)
    if match:
        found.append(match.group(1))
    return found


problems = []
checked = 0
for source in files:
    with open(source, encoding="utf-8") as handle:
        text = handle.read()
    for number, line in prose_lines(text):
        for target in targets(line):
            if SCHEME.match(target) or target.startswith("//"):
                continue  # a web link (or mailto:): not checked here
            checked += 1
            where = f"{source}:{number}: {target}"
            path_part, _, anchor = target.partition("#")
            path_part = urllib.parse.unquote(path_part)
            if path_part:
                base = root if path_part.startswith("/") else os.path.dirname(os.path.abspath(source))
                resolved = os.path.normpath(os.path.join(base, path_part.lstrip("/")))
            else:
                resolved = os.path.abspath(source)
            if os.path.commonpath([resolved, root]) != root:
                problems.append(f"{where}: leaves the repository (a reader of the repository cannot open it)")
                continue
            if not os.path.exists(resolved):
                problems.append(f"{where}: no such file {os.path.relpath(resolved, root)}")
                continue
            if anchor and resolved.endswith(".md") and os.path.isfile(resolved):
                if urllib.parse.unquote(anchor) not in anchors(resolved):
                    problems.append(f"{where}: {os.path.relpath(resolved, root)} has no heading with the anchor #{anchor}")

for problem in problems:
    print(problem)
if problems:
    print(f"docs-check: {len(problems)} broken link(s) of {checked} relative link(s) in {len(files)} file(s)", file=sys.stderr)
    sys.exit(1)
print(f"docs-check: {checked} relative link(s) in {len(files)} file(s) resolve", file=sys.stderr)
PYTHON
