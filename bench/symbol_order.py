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
publish, a minute idle, SIGTERM); every function of the binary that callgrind saw executed
(mangled names, as nm lists them) is written out, sorted. A stale file costs nothing but the
saving: names no longer in the binary are ignored (--no-warn-symbol-ordering).

Usage: python3 bench/symbol_order.py path/to/release/breeze-agent  (needs valgrind; ~2 min)
"""

import os
import re
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


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    work = tempfile.mkdtemp(prefix="breeze-order-")
    binary = os.path.join(work, "breeze-agent")
    subprocess.run(["strip", "--strip-debug", "-o", binary, sys.argv[1]], check=True)
    bench = B.Bench(binary)
    api = B.APIProcess()
    out = os.path.join(work, "callgrind.out")
    try:
        state_dir = tempfile.mkdtemp(prefix="state-", dir=bench.work)
        config = B.write_config(bench.work, "order", bench.broker_port, api.base, 1, state_dir)
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
    finally:
        api.stop()
        bench.close()
    defined = set()
    nm = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True)
    for line in nm.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTWw":
            defined.add(parts[2])
    functions = sorted(executed_functions(out, binary) & defined)
    if len(functions) < 500:
        raise SystemExit("symbol_order: only %d functions seen; see %s.log" % (len(functions), out))
    with open(OUT, "w") as f:
        f.write("\n".join(functions) + "\n")
    print("symbol_order: %d functions written to %s" % (len(functions), os.path.relpath(OUT, ROOT)))


if __name__ == "__main__":
    main()
