#!/usr/bin/env python3
"""Does the agent's CPU depend on how slowly the APIs answer (issue 18)? Runs `run` with N
locations against bench.py's loopback API answering at once or after a delay per request, waits
until it served 3 requests per location and the agent is idle, and prints wall time, CPU
(utime+stime), RSS and peak RSS. Reuses bench/bench.py's pieces; not part of `make bench` yet.

    python3 bench/latency.py bench <agent binary> <locations> <delays in s, comma-separated>
    python3 bench/latency.py bench .build/release/breeze-agent 1000 0,0.04
"""
import os, sys, time, tempfile, subprocess, shutil
sys.path.insert(0, sys.argv[1])  # <repo>/bench
import bench as B

agent, locations = sys.argv[2], int(sys.argv[3])
delays = [float(x) for x in sys.argv[4].split(",")]
work = tempfile.mkdtemp(prefix="fleets-lat-")
broker, port = B.start_broker(work)
try:
    for delay in delays:
        state = B.APIState()
        original = state.body
        def slow(path, query, original=original, delay=delay):
            time.sleep(delay)
            return original(path, query)
        state.body = slow
        server = B.start_api(state)
        base = "http://127.0.0.1:%d" % server.server_address[1]
        sd = tempfile.mkdtemp(prefix="state-", dir=work)
        cfg = B.write_config(work, "lat-%s" % delay, port, base, locations, sd)
        start = time.monotonic()
        proc = subprocess.Popen([agent, "run", "--config", cfg], stdout=subprocess.DEVNULL,
                                stderr=open(os.path.join(work, "agent-%s.log" % delay), "w"))
        want = 3 * locations
        while state.count() < want and proc.poll() is None and time.monotonic() - start < 600:
            time.sleep(0.05)
        B.wait_idle(proc.pid, quiet=0.5, timeout=120)
        wall = time.monotonic() - start
        cpu = B.proc_cpu_seconds(proc.pid)
        st = B.proc_status(proc.pid)
        print("locations=%d delay=%.0f ms: requests %d, wall %.1f s to idle, CPU %.2f s, RSS %d KB, HWM %d KB, threads %d"
              % (locations, delay * 1000, state.count(), wall, cpu, st["rss_kb"], st["hwm_kb"], st["threads"]), flush=True)
        proc.terminate(); proc.wait()
        server.shutdown()
finally:
    broker.terminate(); broker.wait()
    shutil.rmtree(work, ignore_errors=True)
