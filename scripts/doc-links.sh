#!/usr/bin/env bash
# Every DocC link (``Symbol``, ``Type/member(label:)``) in a `///` comment under Sources/ names a
# symbol that exists in the package: a link that outlived a rename or a move is the first comment
# to go stale (issue 47). The declarations are read from the sources themselves (types, their
# members with argument labels, extensions), so it needs no build and takes about a second; a
# link resolves when some declaration's path ends with it, as DocC resolves relative links.
# Symbols of other packages (the standard library, Foundation) are written in code voice
# (`Duration`), not as links: DocC cannot resolve them here either.
#   scripts/doc-links.sh
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PY'
import os, re, sys

KEYWORDS = {"func", "var", "let", "init", "subscript", "static", "final", "case", "where", "some", "any"}

def clean(text):
    """The source with comments blanked and string literals emptied (so braces in them do not count)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif text[i] == '"' or (text[i] == "#" and re.match(r'#+"', text[i:])):
            m = re.match(r'(#*)("""|")', text[i:])
            hashes, quote = m.group(1), m.group(2)
            close = quote + hashes
            j = i + len(m.group(0))
            while j < n:
                if text.startswith(close, j):
                    break
                if text[j] == "\\" and not hashes:
                    j += 2
                    continue
                j += 1
            j = min(n, j + len(close))
            out.append(hashes + quote + re.sub(r"[^\n]", " ", text[i + len(m.group(0)):j - len(close)]) + close)
            i = j
        else:
            out.append(text[i]); i += 1
    return "".join(out)

def labels(params, kind):
    """`(_ a: Int, b c: String)` → `_:c:`-style labels, DocC's way (`(_:b:)`)."""
    depth, parts, current = 0, [], ""
    for ch in params[1:-1]:
        if ch in "([<{": depth += 1
        if ch in ")]>}": depth -= 1
        if ch == "," and depth == 0:
            parts.append(current); current = ""
        else:
            current += ch
    if current.strip(): parts.append(current)
    result = ""
    for part in parts:
        part = part.strip()
        if not part: continue
        head = part.split(":")[0].split() if ":" in part else []
        if kind == "case" and ":" not in part:
            result += "_:"
        elif head:
            # A subscript's single name is internal only: `subscript(kind: K)` is `subscript(_:)`.
            result += ("_" if kind == "subscript" and len(head) == 1 else head[0]) + ":"
    return "(" + result + ")"

def split_top(segment):
    """Splits at the commas outside parentheses."""
    depth, parts, current = 0, [], ""
    for ch in segment:
        if ch in "([<": depth += 1
        if ch in ")]>": depth -= 1
        if ch == "," and depth == 0:
            parts.append(current); current = ""
        else:
            current += ch
    return parts + [current]

def matching(text, i, open_ch, close_ch):
    depth = 0
    for j in range(i, len(text)):
        if text[j] == open_ch: depth += 1
        elif text[j] == close_ch:
            depth -= 1
            if depth == 0: return j
    return len(text) - 1

token = re.compile(
    r"\b(struct|enum|class|protocol|actor|extension)\s+([A-Za-z_][\w.]*)"
    r"|\b(func|init|case|var|let|subscript|typealias|associatedtype)\b"
    r"|[{}]")
declared = set()
sources = sorted(os.path.join(d, f) for d, _, fs in os.walk("Sources") for f in fs if f.endswith(".swift"))
for path in sources:
    text = clean(open(path, encoding="utf-8").read())
    stack, pending = [], None
    for m in token.finditer(text):
        if m.group(1):
            if m.group(2) in KEYWORDS: continue
            pending = m.group(2).split(".")
            declared.add(tuple(n for s in stack if s for n in s) + tuple(pending))
        elif m.group(0) == "{":
            stack.append(pending); pending = None
        elif m.group(0) == "}":
            if stack: stack.pop()
        else:
            kind = m.group(3)
            scope = tuple(n for s in stack if s for n in s)
            rest = text[m.end():]
            if kind == "init":
                p = re.match(r"[?!]?\s*(<[^>]*>)?\s*\(", rest)
                if p:
                    start = m.end() + p.end() - 1
                    declared.add(scope + ("init" + labels(text[start:matching(text, start, "(", ")") + 1], kind),))
                continue
            if kind == "subscript":
                p = re.match(r"\s*(<[^>]*>)?\s*\(", rest)
                if p:
                    start = m.end() + p.end() - 1
                    declared.add(scope + ("subscript" + labels(text[start:matching(text, start, "(", ")") + 1], kind),))
                continue
            if kind == "case":
                # `case a, b(x: Int)`: the elements up to the end of the line (parentheses may span
                # lines); a switch's `case .a:` or `case let` is a pattern and names nothing.
                i, depth, segment = m.end(), 0, ""
                while i < len(text) and (depth > 0 or text[i] not in "\n:=" ):
                    depth += text[i] in "(" ; depth -= text[i] in ")"
                    segment += text[i]; i += 1
                for element in split_top(segment):
                    e = re.match(r"\s*([A-Za-z_]\w*|`\w+`)\s*(\(.*\))?\s*$", element, re.S)
                    if not e or e.group(1) in ("let", "var"): break
                    name = e.group(1).strip("`")
                    declared.add(scope + (name + (labels(e.group(2), kind) if e.group(2) else ""),))
                continue
            n = re.match(r"\s*([A-Za-z_]\w*|`\w+`)\s*(<[^>]*>)?\s*(\()?", rest)
            if not n: continue
            name = n.group(1).strip("`")
            if kind == "func" and n.group(3):
                start = m.end() + n.end() - 1
                declared.add(scope + (name + labels(text[start:matching(text, start, "(", ")") + 1], kind),))
            declared.add(scope + (name,))

modules = {d for d in os.listdir("Sources") if os.path.isdir(os.path.join("Sources", d))}

def strip(component):
    # DocC's disambiguation suffixes: `-swift.struct`, `-5zdx3`.
    return re.sub(r"-(swift\.[a-z.]+|[0-9a-z]{4,6})$", "", component)

link = re.compile(r"``([^`]+)``")
failures = 0
for path in sources:
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if not line.lstrip().startswith("///"): continue
        for target in link.findall(line):
            parts = [strip(p) for p in target.strip("/").split("/")]
            if parts and parts[0] in modules: parts = parts[1:]
            if not parts: continue
            key = tuple(parts)
            if any(d[len(d) - len(key):] == key for d in declared if len(d) >= len(key)): continue
            print(f"{path}:{number}: ``{target}`` names no declaration in Sources/")
            failures += 1
if failures:
    print(f"doc-links: {failures} DocC link(s) to symbols that do not exist", file=sys.stderr)
    sys.exit(1)
print(f"doc-links: every DocC link resolves ({len(declared)} declarations)", file=sys.stderr)
PY
