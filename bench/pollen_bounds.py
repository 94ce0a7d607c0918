#!/usr/bin/env python3
"""The cost of the largest key-free pollen bodies (issue 50, finding 2; docs/operations.md "Limits").

Two real-format Open-Meteo air-quality bodies:
  - accepted: the largest body the decoder takes, OpenMeteoPollen.maximumHours (2,616) hourly
    times, ISO local, on 109 full days, all six pollen series with values (a season call asks
    for 96 days: 2,304 hours);
  - refused:  the body of the finding, 340,000 Unix hourly times each on its own date
    (3.95 MB, under the 4 MiB body cap), which once cost `print` 37.7 s and 2,133,700 KiB.

For each body, in a fresh process so that the peak is the body's own:
  --decoder BIN  bench/decode/PollenBoundsBench.swift compiled with the BreezeCore sources
                 (scripts/bench.sh builds it as .build/bench/pollen-bounds-bench): decode wall
                 time and the process's peak RSS (its VmHWM), decoding once;
  --agent BIN    `BIN print` with one key-free location whose `endpoints.air_quality` is a
                 loopback server answering every request with the body, under /usr/bin/time -v:
                 its elapsed time and maximum resident set size (wait4's figures without it).

Prints one line per body and measurement. Nothing here runs in `make test`.

Usage: pollen_bounds.py [--decoder BIN] [--agent BIN] [--write DIR]
"""

import argparse
import datetime
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAXIMUM_HOURS = 2616  # OpenMeteoPollen.maximumHours (= AirQualityDecoder.maximumHours)
REFUSED_HOURS = 340_000
PLANTS = [("alder_pollen", 80), ("birch_pollen", 320), ("grass_pollen", 25), ("mugwort_pollen", 7),
          ("olive_pollen", 0), ("ragweed_pollen", 9)]


def accepted_body(today):
    """2,616 ISO hours on 109 full local days ending three days after `today`, every series full."""
    days = MAXIMUM_HOURS // 24
    first = today - datetime.timedelta(days=days - 4)
    times = ['"%sT%02d:00"' % (first + datetime.timedelta(days=h // 24), h % 24) for h in range(MAXIMUM_HOURS)]
    series = ",".join('"%s":[%s]' % (name, ",".join("%.1f" % (peak * ((h % 24) + 1) / 24) for h in range(MAXIMUM_HOURS)))
                      for name, peak in PLANTS)
    return ('{"latitude":52.5,"longitude":13.4,"generationtime_ms":1.0,"utc_offset_seconds":0,'
            '"timezone":"GMT","timezone_abbreviation":"GMT","elevation":38.0,'
            '"hourly_units":{"time":"iso8601"},"hourly":{"time":[%s],%s}}' % (",".join(times), series)).encode()


def refused_body():
    """340,000 Unix hours, each on its own UTC date, and an alder series: 3.95 MB."""
    head = ('{"latitude":52.5,"longitude":13.4,"generationtime_ms":1.0,"utc_offset_seconds":0,'
            '"timezone":"GMT","timezone_abbreviation":"GMT","elevation":38.0,'
            '"hourly_units":{"time":"unixtime"},"hourly":{"time":[')
    times = ",".join(str(h * 86_400) for h in range(REFUSED_HOURS))
    body = head + times + '],"alder_pollen":['
    # Fill to 3.95 MB with alder values ("1," each), as the finding's body was.
    values = max(1, (3_950_000 - len(body) - 3) // 2)
    return (body + ",".join(["1"] * values) + "]}}").encode()


def peak_of(command, env=None):
    """Runs a command; returns (exit status, wall seconds, peak RSS KiB, stdout, stderr)."""
    start = time.monotonic()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out = child.stdout.read()
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    return child.returncode, wall, usage.ru_maxrss, out.decode(errors="replace"), err.decode(errors="replace")


def serve(body):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def run_print(agent, body):
    server = serve(body)
    directory = tempfile.mkdtemp(prefix="pollen-bounds-")
    try:
        config = os.path.join(directory, "breeze-agent.yaml")
        with open(config, "w") as f:
            f.write("mqtt: {host: 127.0.0.1, port: 9}\n"
                    "homeassistant: {discovery: false}\n"
                    "locations:\n  - {id: home, latitude: 52.5, longitude: 13.4, timezone: UTC}\n"
                    "pollen: {source: open-meteo}\n"
                    "climate: {enabled: false}\n"
                    "endpoints: {air_quality: 'http://127.0.0.1:%d/v1'}\n"
                    "state_dir: %s\n" % (server.server_address[1], os.path.join(directory, "state")))
        command = [agent, "print", "--config", config]
        if not os.path.exists("/usr/bin/time"):
            return peak_of(command)
        # GNU time's own report, as the finding measured it; the agent's log lines come first.
        status, wall, peak, out, err = peak_of(["/usr/bin/time", "-v"] + command)
        for line in err.splitlines():
            if "Maximum resident set size (kbytes):" in line:
                peak = int(line.rsplit(":", 1)[1])
            if "Elapsed (wall clock) time" in line:
                clock = line.rsplit(": ", 1)[1].split(":")
                wall = sum(float(part) * 60 ** index for index, part in enumerate(reversed(clock)))
        return status, wall, peak, out, err
    finally:
        server.shutdown()
        shutil.rmtree(directory, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--decoder", help="the compiled bench/decode/PollenBoundsBench.swift")
    parser.add_argument("--agent", help="a breeze-agent binary: `print` against a loopback server")
    parser.add_argument("--write", help="also keep the two bodies in this folder")
    args = parser.parse_args()

    today = datetime.datetime.now(datetime.timezone.utc).date()
    bodies = [("accepted, %d h on %d full days" % (MAXIMUM_HOURS, MAXIMUM_HOURS // 24), accepted_body(today)),
              ("refused, %d h on as many dates" % REFUSED_HOURS, refused_body())]
    scratch = tempfile.mkdtemp(prefix="pollen-bodies-")
    try:
        for index, (name, body) in enumerate(bodies):
            path = os.path.join(scratch, "body-%d.json" % index)
            with open(path, "wb") as f:
                f.write(body)
            if args.write:
                os.makedirs(args.write, exist_ok=True)
                shutil.copy(path, os.path.join(args.write, ("accepted" if index == 0 else "refused") + ".json"))
            label = "pollen body %s (%.2f MB)" % (name, len(body) / 1e6)
            if args.decoder:
                status, wall, peak, out, err = peak_of([args.decoder, path])
                if status != 0:
                    sys.exit("%s: decoder exit %d: %s" % (label, status, err.strip()))
                print("%s, decode:  %s" % (label, out.strip()))
            if args.agent:
                status, wall, peak, out, err = run_print(args.agent, body)
                pollen = [line for line in err.splitlines() if "pollen[home]" in line]
                print("%s, print:   %.2f s, peak RSS %d KiB, exit %d; %s" % (
                    label, wall, peak, status, pollen[-1] if pollen else "(no pollen line)"))
            sys.stdout.flush()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
