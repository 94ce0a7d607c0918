#!/usr/bin/env python3
"""Writes scripts/link/breeze-agent.order: the functions one location's `run` executes, for
lld's --symbol-ordering-file (Package.swift, release builds only).

Why: the static Swift stdlib and FoundationEssentials make a 10 MB .text, and the code one
location's daemon actually runs (about 1.2 MB, some 3,300 functions) is spread all over it. The
kernel maps file pages in 64 KB windows around each touched page, so the scattered code kept
~6.9 MB of the binary resident. Placed together, it keeps ~4.5 MB resident (bench/RESULTS.md,
"One location, lean"). Stdlib objects not built with function sections move as a whole, which
is why the cut is not larger.

How: the release binary, without debug info (valgrind cannot read Swift's DWARF), runs under
callgrind against the bench's loopback API and broker (one location, start, first fetches and
publish, a minute idle, SIGTERM), twice: as configured by default, then with `http:` and four
images (the render helper beside the binary is copied along). Every function of the binary that
callgrind saw executed (mangled names, as nm lists them) is written out: the first run's, sorted,
then what the second added, sorted — the lean path's code stays together at the front. A stale file costs nothing but the
saving: names no longer in the binary are ignored (--no-warn-symbol-ordering).

Usage: python3 bench/symbol_order.py path/to/release/breeze-agent  (needs valgrind; ~2 min)
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench as B  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "scripts/link/breeze-agent.order")


def executed_functions(callgrind_file, binary):
    """Names of functions in `binary` with cost in a callgrind output (compressed names)."""
    names, objects, executed = {}, {}, set()
    current = None
    object_line = re.compile(r"^(c?ob)=\((\d+)\)(?: (.*))?$")
    function_line = re.compile(r"^(c?fn)=\((\d+)\)(?: (.*))?$")
    with open(callgrind_file, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = object_line.match(line)
            if m:
                if m.group(3):
                    objects[m.group(2)] = m.group(3)
                if m.group(1) == "ob":
                    current = objects.get(m.group(2))
                continue
            m = function_line.match(line)
            if m:
                if m.group(3):
                    names[m.group(2)] = m.group(3)
                if m.group(1) == "fn" and current == binary:
                    executed.add(m.group(2))
    return {names[i] for i in executed if i in names}


def callgrind_run(bench, api, binary, out, name, extra):
    """One `run` of one location under callgrind: start, first fetches and publish, a minute
    idle, SIGTERM; `extra` config lines (the HTTP server and images for the second run)."""
    state_dir = tempfile.mkdtemp(prefix="state-", dir=bench.work)
    config = B.write_config(bench.work, name, bench.broker_port, api.base, 1, state_dir, extra=extra)
    with open(out + ".log", "w") as log:
        proc = subprocess.Popen(
            ["valgrind", "--tool=callgrind", "--demangle=no", "--callgrind-out-file=" + out,
             binary, "run", "--config", config], stdout=subprocess.DEVNULL, stderr=log)
        time.sleep(20)
        B.wait_idle(proc.pid, quiet=3.0, timeout=300)
        time.sleep(60)
        B.wait_idle(proc.pid, quiet=3.0, timeout=300)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)


# The second run: the HTTP server (status page fetched) and one image of each kind, so a
# config using them does not fault in code spread over the whole .text either.
WITH_HTTP_AND_IMAGES = [
    "http:", "  listen: \"127.0.0.1:%d\"",
    "images:",
    "  - {id: hall, kind: summary, width: 296, height: 128, palette: bwr, format: jpeg}",
    "  - {id: web, kind: pollen, width: 400, height: 300}",
    "  - {id: wall, kind: stripes, width: 800, height: 480}",
    "  - {id: trend, kind: climate, width: 400, height: 300}",
]


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    work = tempfile.mkdtemp(prefix="breeze-order-")
    binary = os.path.join(work, "breeze-agent")
    subprocess.run(["strip", "--strip-debug", "-o", binary, sys.argv[1]], check=True)
    helper = os.path.join(os.path.dirname(sys.argv[1]), "breeze-agent-render")
    if os.path.exists(helper):
        shutil.copy(helper, work)
    bench = B.Bench(binary)
    api = B.APIProcess()
    outs = [os.path.join(work, "plain.out"), os.path.join(work, "served.out")]
    try:
        callgrind_run(bench, api, binary, outs[0], "order-plain", [])
        port = B.free_port()
        extra = [line % port if "%d" in line else line for line in WITH_HTTP_AND_IMAGES]
        callgrind_run(bench, api, binary, outs[1], "order-served", extra)
    finally:
        api.stop()
        bench.close()
    defined = set()
    nm = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True)
    for line in nm.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTWw":
            defined.add(parts[2])
    seen = [executed_functions(out, binary) & defined for out in outs]
    if min(len(s) for s in seen) < 500:
        raise SystemExit("symbol_order: too few functions seen; see %s.log" % " and ".join(outs))
    # The lean run's functions first (the path every config takes), then what HTTP and images add.
    functions = sorted(seen[0]) + sorted(seen[1] - seen[0])
    with open(OUT, "w") as f:
        f.write("\n".join(functions) + "\n")
    print("symbol_order: %d functions (%d for HTTP and images) written to %s" % (
        len(functions), len(seen[1] - seen[0]), os.path.relpath(OUT, ROOT)))

if __name__ == "__main__":
    main()
