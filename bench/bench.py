#!/usr/bin/env python3
"""breeze-agent benchmark (`make bench`, issue 8): footprint and cost per cycle of the release binary.

Everything runs on loopback: a mosquitto broker, and a stand-in for the Google Pollen and
Open-Meteo APIs (stdlib ThreadingHTTPServer, plain HTTP and HTTPS with a CA this script makes
with openssl, so OpenSSL's cost is counted). The agent is pointed at it with `endpoints:`.

Figures (each over several runs; median and min..max):
  - `once` wall time, process start to exit after the broker acknowledged the whole tree (QoS 1),
    with an empty state_dir (fetch, decode, compute, publish, acks);
  - `run` with a warm state_dir: process start to the last topic of the full tree seen by a
    subscriber (the broker forwards a QoS 1 publish when it acknowledges it);
  - `run` CPU (user+sys, /proc/<pid>/stat) per full cycle, cycles driven by `refresh` commands
    (BREEZE_TEST_REFRESH_COOLDOWN=1, docs/operations.md "Test-only settings");
  - `run` RSS: steady (VmRSS after the cycles) and peak (VmHWM);
  - idle CPU of `run` over 60 s after its cycles (1 location, HTTP).
Decode throughput, binary and .deb size are measured by scripts/bench.sh and passed in.

Usage: bench.py --agent BIN [--quick] [--idle SECONDS] [--extra KEY=VALUE ...]
       bench.py --agent BIN --only fleet-starts [--starts 5]   (issue 30: consecutive cold
       1,000-location starts, each to a tree where every location is complete)
       bench.py --agent BIN --only status   (issue 27: /api/state.json at 120 locations, CPU per
       request and /healthz latency under a request loop)
"""

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import signal
import socket
import ssl
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(ROOT, "Tests/CoreTests/Fixtures/eXPerience83-pollenlevels__google_pollen_forecast_5_days.es.json")
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def log(text):
    print(text, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the API stand-in

class APIState:
    """Bodies per request shape, cached; a request counter the cycles wait on."""

    def __init__(self):
        with open(FIXTURE, "rb") as f:
            self.google = json.load(f)
        self.cache = {}
        self.lock = threading.Lock()
        self.requests = 0

    def count(self):
        with self.lock:
            return self.requests

    def body(self, path, query):
        def q(name, default=""):
            return query.get(name, [default])[0]

        if path.endswith("/forecast:lookup"):
            # The 5-day Google fixture, its dates moved to today (UTC; the bench locations use UTC).
            today = datetime.datetime.now(datetime.timezone.utc).date()
            key = ("google", today)
            if key not in self.cache:
                doc = json.loads(json.dumps(self.google))
                for offset, day in enumerate(doc["dailyInfo"]):
                    d = today + datetime.timedelta(days=offset)
                    day["date"] = {"year": d.year, "month": d.month, "day": d.day}
                self.cache[key] = json.dumps(doc, ensure_ascii=False).encode()
            return self.cache[key]
        if path.endswith("/archive") and q("daily") == "temperature_2m_mean":
            # The warming stripes' yearly archive: daily means from start_date to end_date.
            key = ("stripes", q("start_date"), q("end_date"))
            if key not in self.cache:
                first = datetime.date.fromisoformat(q("start_date"))
                last = datetime.date.fromisoformat(q("end_date"))
                days, values, d = [], [], first
                while d <= last:
                    days.append('"%s"' % d.isoformat())
                    tenths = 95 + (d.year - 1980) * 3 // 10 + (90 if 4 <= d.month <= 9 else -90)
                    values.append("%d.%d" % (tenths // 10, tenths % 10))
                    d += datetime.timedelta(days=1)
                self.cache[key] = (
                    '{"latitude":%s,"longitude":%s,"generationtime_ms":3.1,"utc_offset_seconds":0,'
                    '"timezone":"GMT","timezone_abbreviation":"GMT","elevation":38.0,'
                    '"daily_units":{"time":"iso8601","temperature_2m_mean":"\u00b0C"},'
                    '"daily":{"time":[%s],"temperature_2m_mean":[%s]}}'
                    % (q("latitude", "0"), q("longitude", "0"), ",".join(days), ",".join(values))).encode()
            return self.cache[key]
        if path.endswith("/archive") or path.endswith("/forecast"):
            # Open-Meteo daily: one object per start_date (a list for several, as the archive answers).
            dates = [d for d in q("start_date").split(",") if d]
            tz = q("timezone", "GMT")
            objects = []
            for d in dates:
                year = int(d[:4])
                tenths = 118 + (year - 1980) * 3 // 10 + (year * 7) % 11 - 5
                objects.append(
                    '{"latitude":%s,"longitude":%s,"generationtime_ms":0.4,"utc_offset_seconds":0,'
                    '"timezone":"%s","timezone_abbreviation":"GMT","elevation":38.0,'
                    '"daily_units":{"time":"iso8601","temperature_2m_max":"\u00b0C"},'
                    '"daily":{"time":["%s"],"temperature_2m_max":[%d.%d]}}'
                    % (q("latitude", "0"), q("longitude", "0"), tz, d, tenths // 10, tenths % 10))
            text = objects[0] if len(objects) == 1 else "[" + ",".join(objects) + "]"
            return text.encode()
        if path.endswith("/air-quality"):
            today = datetime.datetime.now(datetime.timezone.utc).date()
            times = ['"%sT%02d:00"' % (today + datetime.timedelta(days=h // 24), h % 24) for h in range(96)]
            series = ",".join('"%s":[%s]' % (n, ",".join("%.1f" % (p * (h % 24) / 24) for h in range(96)))
                              for n, p in [("alder_pollen", 8), ("birch_pollen", 32), ("grass_pollen", 2.5),
                                           ("mugwort_pollen", 0.7), ("olive_pollen", 0), ("ragweed_pollen", 0.9)])
            return ('{"latitude":52.5,"longitude":13.4,"generationtime_ms":1.0,"utc_offset_seconds":0,'
                    '"timezone":"GMT","timezone_abbreviation":"GMT","elevation":38.0,'
                    '"hourly_units":{"time":"iso8601"},"hourly":{"time":[%s],%s}}'
                    % (",".join(times), series)).encode()
        return None


def make_handler(state, delay=0.0):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: the agent reuses its connections

        def setup(self):
            super().setup()
            # Headers and body leave in one write with Nagle off: otherwise a keep-alive request
            # waits ~40 ms for the client's delayed ACK, and the stand-in, not the agent, is slow.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_GET(self):
            parts = urlsplit(self.path)
            if parts.path == "/count":
                body = str(state.count()).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if delay:
                time.sleep(delay)
            body = state.body(parts.path, parse_qs(parts.query))
            status = 200
            if body is None:
                status, body = 404, b'{"error":true,"reason":"Not found"}'
            head = ("HTTP/1.1 %d %s\r\nContent-Type: application/json; charset=utf-8\r\n"
                    "Content-Length: %d\r\n\r\n" % (status, "OK" if status == 200 else "Not Found", len(body)))
            self.wfile.write(head.encode() + body)
            with state.lock:
                state.requests += 1

        def log_message(self, *args):
            pass

    return Handler


def make_ca(directory):
    """A CA and a server certificate for 127.0.0.1 / localhost, made with openssl."""
    def run(*args):
        subprocess.run(["openssl", *args], check=True, cwd=directory, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=breeze bench CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
        "-subj", "/CN=127.0.0.1")
    with open(os.path.join(directory, "san.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "server.pem", "-days", "2", "-extfile", "san.ext")
    return os.path.join(directory, "ca.pem"), os.path.join(directory, "server.pem"), os.path.join(directory, "server.key")


def start_api(state, tls=None, delay=0.0):
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state, delay))
    server.daemon_threads = True
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tls[0], tls[1])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# ---------------------------------------------------------------- MQTT helpers

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_broker(directory):
    port = free_port()
    conf = os.path.join(directory, "mosquitto.conf")
    with open(conf, "w") as f:
        f.write("listener %d 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest stderr\n"
                "log_type error\nmax_queued_messages 100000\n" % port)
    proc = subprocess.Popen(["mosquitto", "-c", conf], stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.05)
    raise SystemExit("bench: mosquitto did not start")


def mqtt_string(text):
    data = text.encode()
    return struct.pack("!H", len(data)) + data


def mqtt_packet(kind, body):
    length, encoded = len(body), b""
    while True:
        byte, length = length % 128, length // 128
        encoded += bytes([byte | (0x80 if length else 0)])
        if not length:
            break
    return bytes([kind]) + encoded + body


def mqtt_publish_all(port, messages):
    """Publishes (topic, payload) pairs at QoS 0, not retained, over one MQTT 3.1.1 connection."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(mqtt_packet(0x10, mqtt_string("MQTT") + bytes([4, 2]) + struct.pack("!H", 30)
                              + mqtt_string("bench-cmd-%d" % os.getpid())))
        if s.recv(4)[:1] != b"\x20":
            raise SystemExit("bench: broker refused the command connection")
        s.sendall(b"".join(mqtt_packet(0x30, mqtt_string(t) + p.encode()) for t, p in messages))
        s.sendall(b"\xe0\x00")


class Subscriber:
    """mosquitto_sub on the bench prefixes; records (monotonic time, retained?, topic) per message."""

    def __init__(self, port):
        self.lines = []
        self.lock = threading.Lock()
        self.proc = subprocess.Popen(
            ["stdbuf", "-oL", "mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-q", "1",
             "-t", "bench/#", "-t", "fleet/#", "-t", "homeassistant/#", "-F", "%r %t"],
            stdout=subprocess.PIPE, text=True)
        threading.Thread(target=self._read, daemon=True).start()
        time.sleep(0.5)

    def _read(self):
        for line in self.proc.stdout:
            now = time.monotonic()
            retained, _, topic = line.rstrip("\n").partition(" ")
            with self.lock:
                self.lines.append((now, retained == "1", topic))

    def live_since(self, since):
        with self.lock:
            return [(t, topic) for t, r, topic in self.lines if t >= since and not r]

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


# ---------------------------------------------------------------- the agent

def write_config(directory, name, broker_port, api_base, locations, state_dir, prefix="bench", extra=()):
    lines = [
        "mqtt:", "  host: 127.0.0.1", "  port: %d" % broker_port, "  client_id: bench-%s" % name,
        "  topic_prefix: %s" % prefix, "  qos: 1",
        "homeassistant:", "  discovery: true",
        "locations:",
    ]
    for i in range(locations):
        lines += ["  - id: loc%03d" % i, "    latitude: %.3f" % (40 + (i % 20) * 0.5),
                  "    longitude: %.3f" % (-5 + (i // 20) * 2.5), "    timezone: UTC"]
    lines += [
        "pollen:", "  source: google", "  api_key: bench-not-a-key", "  max_calls_per_day: 10000",
        "climate:", "  unit: celsius",
        "endpoints:",
        "  pollen: %s/google/v1" % api_base, "  air_quality: %s/aq/v1" % api_base,
        "  climate_archive: %s/archive/v1" % api_base, "  climate_forecast: %s/forecast/v1" % api_base,
        "state_dir: %s" % state_dir, "log_level: info",
    ] + list(extra)
    path = os.path.join(directory, "%s.yaml" % name)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def stop_process(proc, timeout):
    """SIGTERM, then SIGKILL if `proc` has not exited within `timeout` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def proc_cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rpartition(")")[2].split()
    # fields[0] is state (field 3); utime is field 14, stime field 15.
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_status(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            out[key] = value.strip()
    return {"rss_kb": int(out["VmRSS"].split()[0]), "hwm_kb": int(out["VmHWM"].split()[0]),
            "threads": int(out["Threads"])}


def wait_idle(pid, quiet=0.4, timeout=60):
    """Waits until the process has used no CPU for `quiet` seconds."""
    deadline = time.monotonic() + timeout
    last, since = proc_cpu_seconds(pid), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now_cpu = proc_cpu_seconds(pid)
        if now_cpu != last:
            last, since = now_cpu, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
    raise SystemExit("bench: agent %d never went idle" % pid)


class Scenario:
    def __init__(self, bench, locations, tls):
        self.bench, self.locations, self.tls = bench, locations, tls
        self.name = "%d-%s" % (locations, "https" if tls else "http")
        self.api_base = bench.https_base if tls else bench.http_base
        self.env = dict(os.environ, BREEZE_TEST_REFRESH_COOLDOWN="1")
        if tls:
            self.env["BREEZE_TEST_CA_FILE"] = bench.ca_file
        self.tree_size = None

    def config(self, tag, state_dir):
        return write_config(self.bench.work, "%s-%s" % (self.name, tag), self.bench.broker_port,
                            self.api_base, self.locations, state_dir)

    def fresh_state(self):
        return tempfile.mkdtemp(prefix="state-", dir=self.bench.work)

    def once(self, state_dir):
        config = self.config("once", state_dir)
        start = time.monotonic()
        proc = subprocess.Popen([self.bench.agent, "once", "--config", config], env=self.env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
        err = proc.stderr.read()
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit("bench: once failed (%s):\n%s" % (self.name, err))
        sent = [int(w) for line in err.splitlines() if "topics published and acknowledged" in line
                for w in line.split() if w.isdigit()]
        return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, sent[-1] if sent else None

    def measure_once(self, runs):
        walls, cpus, rsss = [], [], []
        for _ in range(runs):
            wall, cpu, maxrss, sent = self.once(self.fresh_state())
            walls.append(wall)
            cpus.append(cpu)
            rsss.append(maxrss)
            self.tree_size = sent
        return walls, cpus, rsss

    def run_process(self, cycles, idle_seconds=0):
        """One `run` process on a warm state_dir: start latency, then `cycles` refresh cycles."""
        state_dir = self.fresh_state()
        self.once(state_dir)  # warm: stored responses and published topics
        config = self.config("run", state_dir)
        sub = self.bench.subscriber
        start = time.monotonic()
        proc = subprocess.Popen([self.bench.agent, "run", "--config", config], env=self.env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        stderr_lines = []
        threading.Thread(target=lambda: stderr_lines.extend(proc.stderr), daemon=True).start()
        try:
            # Start to full tree: every topic of the tree forwarded live by the broker.
            startup = None
            deadline = start + 20
            while time.monotonic() < deadline:
                seen = {}
                for t, topic in sub.live_since(start):
                    if topic != "bench/status":
                        seen.setdefault(topic, t)
                if len(seen) >= self.tree_size:
                    startup = max(seen.values()) - start
                    break
                time.sleep(0.005)
            if startup is None:
                raise SystemExit("bench: run (%s) published %d of %d topics in 20 s:\n%s"
                                 % (self.name, len(seen), self.tree_size, "".join(stderr_lines)))
            wait_idle(proc.pid)
            # A warm start fetches nothing (the data is fresh); refresh drives full cycles.
            messages = [("bench/loc%03d/refresh" % i, "now") for i in range(self.locations)]
            cycle_cpu = []
            cpu_start = proc_cpu_seconds(proc.pid)
            for _ in range(cycles):
                # Cooldown is 1 s in whole Unix seconds: refresh in a later second than the last.
                time.sleep(1.02 - (time.time() % 1.0))
                before_cpu, before_req = proc_cpu_seconds(proc.pid), self.bench.api.count()
                mqtt_publish_all(self.bench.broker_port, messages)
                want = before_req + 3 * self.locations  # pollen, climate archive and forecast
                limit = time.monotonic() + 60
                while self.bench.api.count() < want:
                    if time.monotonic() > limit or proc.poll() is not None:
                        raise SystemExit("bench: cycle (%s) stalled at %d of %d requests:\n%s" % (
                            self.name, self.bench.api.count() - before_req, 3 * self.locations,
                            "".join(stderr_lines)))
                    time.sleep(0.01)
                wait_idle(proc.pid, quiet=0.3)
                cycle_cpu.append(proc_cpu_seconds(proc.pid) - before_cpu)
            per_cycle = (proc_cpu_seconds(proc.pid) - cpu_start) / cycles
            status = proc_status(proc.pid)
            idle = None
            if idle_seconds:
                c0, t0 = proc_cpu_seconds(proc.pid), time.monotonic()
                time.sleep(idle_seconds)
                idle = (proc_cpu_seconds(proc.pid) - c0) / (time.monotonic() - t0)
            return {"startup": startup, "per_cycle": per_cycle, "cycle_cpu": cycle_cpu, "idle": idle, **status}
        finally:
            stop_process(proc, 10)


class Bench:
    def __init__(self, agent):
        self.agent = agent
        self.work = tempfile.mkdtemp(prefix="breeze-bench-")
        self.api = APIState()
        self.ca_file, cert, key = make_ca(self.work)
        self.http = start_api(self.api)
        self.https = start_api(self.api, tls=(cert, key))
        self.http_base = "http://127.0.0.1:%d" % self.http.server_address[1]
        self.https_base = "https://127.0.0.1:%d" % self.https.server_address[1]
        self.broker, self.broker_port = start_broker(self.work)
        self.subscriber = Subscriber(self.broker_port)

    def close(self):
        self.subscriber.stop()
        self.broker.terminate()
        self.broker.wait()
        self.http.shutdown()
        self.https.shutdown()
        shutil.rmtree(self.work, ignore_errors=True)


# ---------------------------------------------------------------- 1,000 locations (issue 18)

class APIProcess:
    """The API stand-in in a process of its own (HTTP), so its CPU is measured apart from the
    bench's: a ThreadingHTTPServer, Nagle off, one write per response. GET /count answers the
    requests served so far; GET /delay?ms=N makes every later answer wait N ms (a slow API)."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve-api"],
                                     stdout=subprocess.PIPE, text=True)
        self.port = int(self.proc.stdout.readline())
        self.base = "http://127.0.0.1:%d" % self.port

    def _get(self, path):
        return http_get(self.port, path)[1].decode()

    def count(self):
        return int(self._get("/count"))

    def set_delay(self, ms):
        self._get("/delay?ms=%d" % ms)

    def cpu(self):
        return proc_cpu_seconds(self.proc.pid)

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def serve_api():
    state = APIState()
    delay = [0.0]

    class Handler(make_handler(state)):
        def do_GET(self):
            parts = urlsplit(self.path)
            if parts.path == "/delay":
                delay[0] = int(parse_qs(parts.query)["ms"][0]) / 1000
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if delay[0] and parts.path != "/count":
                time.sleep(delay[0])
            super().do_GET()

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 128

    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


def tree_per_location(bench, api):
    """Topics per location and outside locations, from `once` with 1 and 2 locations."""
    sizes = []
    for n in (1, 2):
        state_dir = tempfile.mkdtemp(prefix="state-", dir=bench.work)
        config = write_config(bench.work, "fleet-size-%d" % n, bench.broker_port, api.base, n, state_dir,
                              prefix="fleetsize")
        proc = subprocess.run([bench.agent, "once", "--config", config], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        sent = [int(w) for line in proc.stderr.splitlines() if "topics published and acknowledged" in line
                for w in line.split() if w.isdigit()]
        if proc.returncode != 0 or not sent:
            raise SystemExit("bench: once (%d locations) failed:\n%s" % (n, proc.stderr))
        sizes.append(sent[-1])
    per = sizes[1] - sizes[0]
    return per, sizes[0] - per


def fleet_location(topic):
    """The location a fleet topic belongs to (`fleet/loc007/...`, `homeassistant/.../fleet_loc007/...`)."""
    if topic.startswith("fleet/"):
        return topic.split("/")[1]
    found = re.search(r"/fleet_(loc\d+)", topic)
    return found.group(1) if found else None


def incomplete_locations(seen, locations, per):
    """The locations with fewer than `per` of their topics in `seen` (every one complete: [])."""
    counts = {}
    for topic in seen:
        counts[fleet_location(topic)] = counts.get(fleet_location(topic), 0) + 1
    return ["loc%03d (%d of %d)" % (i, counts.get("loc%03d" % i, 0), per) for i in range(locations)
            if counts.get("loc%03d" % i, 0) < per]


def fleet_process(bench, api, locations, cycles, delays, start_timeout=300):
    """One `run` with `locations` locations and an empty state_dir: start to full tree (every
    location's own topics all seen, issue 30), then refresh cycles against the API at each
    delay; CPU per cycle, the server's CPU, RSS."""
    per, common = bench.fleet_tree
    want = per * locations + common
    state_dir = tempfile.mkdtemp(prefix="state-", dir=bench.work)
    config = write_config(bench.work, "fleet-%d" % locations, bench.broker_port, api.base, locations, state_dir,
                          prefix="fleet")
    env = dict(os.environ, BREEZE_TEST_REFRESH_COOLDOWN="1")
    sub = bench.subscriber
    api.set_delay(0)
    start = time.monotonic()
    proc = subprocess.Popen([bench.agent, "run", "--config", config], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    stderr_lines = []
    threading.Thread(target=lambda: stderr_lines.extend(proc.stderr), daemon=True).start()
    out = {"locations": locations, "tree": want}
    try:
        seen, startup = {}, None
        while time.monotonic() < start + start_timeout and proc.poll() is None:
            for t, topic in sub.live_since(start):
                if topic.startswith("fleet/") and topic not in ("fleet/diagnostics", "fleet/status") or (
                        topic.startswith("homeassistant/") and "/fleet_" in topic):
                    seen.setdefault(topic, t)
            if len(seen) >= want and not incomplete_locations(seen, locations, per):
                startup = max(seen.values()) - start
                break
            time.sleep(0.25)
        if startup is None:
            missing = incomplete_locations(seen, locations, per)
            raise SystemExit("bench: fleet run (%d locations) published %d of %d topics in %d s; %d location(s) "
                             "incomplete: %s\n%s" % (locations, len(seen), want, start_timeout, len(missing),
                                                     ", ".join(missing[:20]), "".join(stderr_lines[-20:])))
        out["startup"] = startup
        out["startup_cpu"] = proc_cpu_seconds(proc.pid)
        wait_idle(proc.pid, quiet=1.0, timeout=600)
        out["after_start"] = proc_status(proc.pid)
        messages = [("fleet/loc%03d/refresh" % i, "now") for i in range(locations)]
        for delay in delays:
            api.set_delay(delay)
            agent_cpu, server_cpu, walls = [], [], []
            for _ in range(cycles):
                time.sleep(1.02 - (time.time() % 1.0))
                c0, s0, r0, t0 = proc_cpu_seconds(proc.pid), api.cpu(), api.count(), time.monotonic()
                mqtt_publish_all(bench.broker_port, messages)
                limit = time.monotonic() + 600
                while api.count() < r0 + 3 * locations:
                    if time.monotonic() > limit or proc.poll() is not None:
                        raise SystemExit("bench: fleet cycle stalled at %d of %d requests:\n%s" % (
                            api.count() - r0, 3 * locations, "".join(stderr_lines[-20:])))
                    time.sleep(0.2)
                wait_idle(proc.pid, quiet=0.5, timeout=600)
                walls.append(time.monotonic() - t0 - 0.5)
                agent_cpu.append(proc_cpu_seconds(proc.pid) - c0)
                server_cpu.append(api.cpu() - s0)
            out["cycles-%d" % delay] = {"agent": agent_cpu, "server": server_cpu, "wall": walls}
        api.set_delay(0)
        out["steady"] = proc_status(proc.pid)
        return out
    finally:
        stop_process(proc, 30)


def fleet_starts(bench, runs, locations=1000):
    """Issue 30: `runs` consecutive cold starts of `locations` locations, each to a tree where
    every location is complete (a stalled HTTP driver once left ~200 of 1,000 incomplete)."""
    api = APIProcess()
    times = []
    try:
        bench.fleet_tree = tree_per_location(bench, api)
        for run in range(runs):
            log("bench: fleet start %d of %d (%d locations)" % (run + 1, runs, locations))
            out = fleet_process(bench, api, locations, 0, [], start_timeout=300)
            times.append(out["startup"])
            print("  start %d: full tree (every location complete) in %.1f s (CPU %.1f s)" % (
                run + 1, out["startup"], out["startup_cpu"]))
            sys.stdout.flush()
    finally:
        api.stop()
    print("\n[%d consecutive cold starts, %d locations] full tree %s; all <= 120 s: %s" % (
        runs, locations, fmt(times, "s"), "met" if max(times) <= 120 else "MISSED"))


def one_location_rss(bench, api, cycles=5):
    """RSS of `run` with one location once idle after the start, and steady after a few
    refresh cycles (fast API)."""
    out = fleet_process(bench, api, 1, cycles, [0], start_timeout=60)
    return out["after_start"]["rss_kb"], out["steady"]["rss_kb"]


def fleet_report(bench, quick):
    api = APIProcess()
    try:
        bench.fleet_tree = tree_per_location(bench, api)
        log("bench: fleet: %d topics per location, %d outside" % bench.fleet_tree)
        rss1, start1 = [], []
        for _ in range(1 if quick else 3):
            log("bench: fleet: 1 location run")
            at_start, steady = one_location_rss(bench, api)
            start1.append(at_start)
            rss1.append(steady)
        log("bench: fleet: 1000 locations run (start, then cycles at 0 and 40 ms)")
        big = fleet_process(bench, api, 1000, 1 if quick else 2, [0, 40])
    finally:
        api.stop()
    print("\n[1,000 locations, HTTP, max_concurrent default] tree: %d topics" % big["tree"])
    print("  run cold: start to full tree      %.1f s  (CPU %.1f s)" % (big["startup"], big["startup_cpu"]))
    fast, slow = big["cycles-0"], big["cycles-40"]
    for name, c in (("fast API (~1 ms)", fast), ("slow API (+40 ms)", slow)):
        print("  run: CPU per cycle, %-17s %s; wall %s; API server %s (%.0f %% of the agent's)" % (
            name, fmt(c["agent"], "s", 1, 2), fmt(c["wall"], "s", 1, 1), fmt(c["server"], "s", 1, 2),
            100 * statistics.median(c["server"]) / max(statistics.median(c["agent"]), 1e-9)))
    r1 = statistics.median(rss1)
    r1000 = big["steady"]["rss_kb"]
    per_location = (r1000 - r1) / 999
    print("  run: steady RSS, 1 location       %s" % fmt([r / 1024 for r in rss1], "MB", 1, 2))
    print("  run: steady RSS, 1,000 locations  %.2f MB (peak %.2f MB, threads %d)" % (
        r1000 / 1024, big["steady"]["hwm_kb"] / 1024, big["steady"]["threads"]))
    print("  run: per extra location           %.0f KB" % per_location)
    # Before the refresh cycles: each `refresh` re-publishes its location's whole tree (SPEC §16),
    # a burst of every tree at once that glibc's heap keeps as free pages (RESULTS.md, "Per-location
    # memory after the hardening"); the figure after the start has no burst in it.
    s1, s1000 = statistics.median(start1), big["after_start"]["rss_kb"]
    print("  run: RSS after the start, before the cycles: 1 location %.2f MB, 1,000 %.2f MB, per extra %.0f KB" % (
        s1 / 1024, s1000 / 1024, (s1000 - s1) / 999))
    cf, cs = statistics.median(fast["agent"]), statistics.median(slow["agent"])
    print("\ngoals (1,000 locations, issue 18):")
    print("  full first tree <= 120 s:          %.1f s  %s" % (big["startup"], "met" if big["startup"] <= 120 else "MISSED"))
    print("  CPU independent of latency:        %.2f s slow vs %.2f s fast per cycle (%+.0f %%)  %s" % (
        cs, cf, 100 * (cs - cf) / cf, "met" if cs <= cf * 1.15 else "MISSED"))
    print("  <= 150 KB per extra location:      %.0f KB  %s" % (per_location, "met" if per_location <= 150 else "MISSED"))
    print("  steady RSS, 1 location <= 16 MB:   %.2f MB  %s" % (r1 / 1024, "met" if r1 <= 16 * 1024 else "MISSED"))


def steady_run(bench, api, name, extra, idle, probe=None):
    """One `run` with one location and `extra` config lines: its steady RSS after the first
    cycle and `idle` quiet seconds (`probe` runs just before the measurement), and which
    optional libraries its process maps."""
    state_dir = tempfile.mkdtemp(prefix="state-", dir=bench.work)
    config = write_config(bench.work, "lean-%s" % name, bench.broker_port, api.base, 1, state_dir,
                          prefix="lean", extra=extra)
    proc = subprocess.Popen([bench.agent, "run", "--config", config], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    stderr_lines = []
    threading.Thread(target=lambda: stderr_lines.extend(proc.stderr), daemon=True).start()
    try:
        time.sleep(3)
        wait_idle(proc.pid, quiet=2.0, timeout=180)
        time.sleep(idle)
        if probe:
            probe()
        wait_idle(proc.pid, quiet=1.0, timeout=60)
        if proc.poll() is not None:
            raise SystemExit("bench: lean run %s exited:\n%s" % (name, "".join(stderr_lines[-20:])))
        with open("/proc/%d/maps" % proc.pid) as f:
            maps = f.read()
        libs = sorted({lib for lib in ("libmicrohttpd", "libcairo", "libjpeg", "libX11")
                       if lib in maps})
        return proc_status(proc.pid)["rss_kb"], libs, stderr_lines
    finally:
        stop_process(proc, 30)


def http_status(port, path):
    return http_get(port, path)[0]


def lean_report(bench, quick, idle):
    """SPEC §9.2 / issue 16: a config without images or HTTP must not pay for them. The same
    build, one location, `run`: steady RSS with neither, and with HTTP and three images (the
    renders run in the helper process, the server in the agent); the optional libraries mapped."""
    api = APIProcess()
    rows = {"without images and HTTP": [], "with HTTP and 3 images": []}
    mapped = {}
    served = []
    try:
        for _ in range(1 if quick else 3):
            port = free_port()
            extras = {
                "without images and HTTP": [],
                "with HTTP and 3 images": [
                    "http:", "  listen: \"127.0.0.1:%d\"" % port,
                    "images:",
                    "  - {id: hall, kind: summary, width: 296, height: 128, palette: bwr, format: jpeg}",
                    "  - {id: web, kind: pollen, width: 400, height: 300}",
                    "  - {id: wall, kind: stripes, width: 800, height: 480}",
                ],
            }
            for name, extra in extras.items():
                log("bench: lean path: %s" % name)
                # With HTTP: a rendered image is fetched (from the agent's memory) before measuring.
                probe = (lambda: served.append(http_status(port, "/images/loc000/web.png"))) if extra else None
                rss, libs, _ = steady_run(bench, api, name, extra, idle, probe)
                rows[name].append(rss)
                mapped[name] = libs
    finally:
        api.stop()
    print("\n[lean path, 1 location, run, same build (SPEC §9.2)]")
    for name, values in rows.items():
        print("  steady RSS, %-26s %s; optional libraries mapped: %s" % (
            name + ":", fmt([v / 1024 for v in values], "MB", 1, 2), ", ".join(mapped[name]) or "none"))
    print("  /images/loc000/web.png while measured: %s" % ", ".join(str(s) for s in served))
    lean = statistics.median(rows["without images and HTTP"])
    full = statistics.median(rows["with HTTP and 3 images"])
    print("  difference (with - without):        %+.2f MB" % ((full - lean) / 1024))
    print("  lean config maps none of libmicrohttpd/Cairo/libjpeg/X11: %s" % (
        "met" if not mapped["without images and HTTP"] else "MISSED"))


# ---------------------------------------------------------------- status endpoints (issue 27)

def http_get(port, path, timeout=10.0):
    """One GET over a fresh connection (the server closes after each answer): (status, body bytes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % path).encode())
        data = b""
        while True:
            chunk = sock.recv(262144)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    parts = head.split(b" ")
    return (int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None), body


def status_report(bench, quick, locations=120):
    """SPEC §16 / issue 27: `run` with `locations` locations (Google pollen, climate with
    stripes, air, one risk profile) and HTTP; once every location is complete, the agent's CPU
    per `/api/state.json` request in a sequential loop, and `/healthz` latency (bound 1 s)
    polled every 250 ms while two clients loop on `/api/state.json`."""
    api = APIProcess()
    port = free_port()
    state_dir = tempfile.mkdtemp(prefix="state-", dir=bench.work)
    config = write_config(bench.work, "status-%d" % locations, bench.broker_port, api.base, locations, state_dir,
                          prefix="status", extra=[
                              "air: {enabled: true}",
                              "profiles:", "  - {id: anna, name: Anna, allergens: [birch, grass], alert_level: High}",
                              "http:", "  listen: \"127.0.0.1:%d\"" % port])
    proc = subprocess.Popen([bench.agent, "run", "--config", config], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    stderr_lines = []
    threading.Thread(target=lambda: stderr_lines.extend(proc.stderr), daemon=True).start()
    try:
        deadline, size, complete = time.monotonic() + 300, 0, False
        while time.monotonic() < deadline and proc.poll() is None and not complete:
            time.sleep(1.0)
            try:
                status, body = http_get(port, "/api/state.json")
            except OSError:
                continue
            if status != 200:
                continue
            size = len(body)
            doc = json.loads(body)
            listed = doc["locations"]
            complete = len(listed) + len(doc["left_out"]) == locations and all(
                loc["pollen"] and loc["climate"] and loc["stripes"] and loc["air"] for loc in listed)
        if not complete:
            raise SystemExit("bench: status: state.json never complete:\n%s" % "".join(stderr_lines[-20:]))
        wait_idle(proc.pid, quiet=1.0, timeout=300)
        status, body = http_get(port, "/api/state.json")
        doc = json.loads(body)
        out = {"bytes": len(body), "shown": len(doc["locations"]), "left_out": len(doc["left_out"])}

        # CPU per request: a sequential loop, the agent's utime+stime over it.
        requests = 100 if quick else 300
        c0, t0 = proc_cpu_seconds(proc.pid), time.monotonic()
        for _ in range(requests):
            http_get(port, "/api/state.json")
        out["cpu_per_request"] = (proc_cpu_seconds(proc.pid) - c0) / requests
        out["wall_per_request"] = (time.monotonic() - t0) / requests
        out["requests"] = requests

        # /healthz under a loop: two clients request /api/state.json back to back.
        stop = threading.Event()
        looped = [0]

        def loop():
            while not stop.is_set():
                try:
                    http_get(port, "/api/state.json", timeout=30)
                    looped[0] += 1
                except OSError:
                    pass

        loopers = [threading.Thread(target=loop, daemon=True) for _ in range(2)]
        for thread in loopers:
            thread.start()
        time.sleep(1.0)
        latencies = []
        c1, t1, l1 = proc_cpu_seconds(proc.pid), time.monotonic(), looped[0]
        for _ in range(40 if quick else 120):
            start = time.monotonic()
            try:
                status, _ = http_get(port, "/healthz", timeout=1.0)
                latencies.append(time.monotonic() - start if status in (200, 503) else None)
            except OSError:
                latencies.append(None)
            time.sleep(0.25)
        out["loop_cpu_share"] = (proc_cpu_seconds(proc.pid) - c1) / (time.monotonic() - t1)
        out["loop_requests"] = looped[0] - l1
        out["loop_seconds"] = time.monotonic() - t1
        stop.set()
        for thread in loopers:
            thread.join(timeout=30)
        out["healthz"] = latencies
    finally:
        stop_process(proc, 30)
        api.stop()
    answered = [x for x in out["healthz"] if x is not None]
    print("\n[status endpoints, %d locations, HTTP (SPEC §16)]" % locations)
    print("  /api/state.json                   %d bytes, %d locations, %d left out" % (
        out["bytes"], out["shown"], out["left_out"]))
    print("  agent CPU per request (loop)      %.2f ms (%d requests, %.1f ms wall each)" % (
        out["cpu_per_request"] * 1000, out["requests"], out["wall_per_request"] * 1000))
    print("  under 2 looping clients           %d requests in %.0f s, agent CPU %.0f %% of a core" % (
        out["loop_requests"], out["loop_seconds"], out["loop_cpu_share"] * 100))
    print("  /healthz answered within 1 s      %d of %d polls" % (len(answered), len(out["healthz"])))
    if answered:
        print("  /healthz latency                  %s" % fmt(answered, "ms", 1000))
    print("  goal: CPU per request <= 1 ms:    %.2f ms  %s" % (
        out["cpu_per_request"] * 1000, "met" if out["cpu_per_request"] <= 0.001 else "MISSED"))


# ---------------------------------------------------------------- report

def fmt(values, unit, scale=1.0, digits=1):
    values = [v * scale for v in values]
    med = statistics.median(values)
    return "%.*f %s (%.*f..%.*f, n=%d)" % (digits, med, unit, digits, min(values), digits, max(values), len(values))


def machine():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem = f.readline().split()[1]
    distro = "?"
    if os.path.exists("/etc/os-release"):
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    distro = line.split("=", 1)[1].strip().strip('"')
    return "%s, %d CPU(s) %s, %d MB RAM, kernel %s, load %s" % (
        distro, os.cpu_count(), cpu, int(mem) // 1024, platform.release(),
        " ".join("%.2f" % x for x in os.getloadavg()))


def service_environment():
    """The `Environment=` settings of packaging/breeze-agent.service, as the agent runs there."""
    unit = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "packaging", "breeze-agent.service")
    settings = {}
    with open(unit) as f:
        for line in f:
            if line.startswith("Environment="):
                for item in line[len("Environment="):].split():
                    key, _, value = item.partition("=")
                    settings[key] = value
    return settings


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--agent")
    parser.add_argument("--quick", action="store_true", help="fewer runs (a smoke test of the bench)")
    parser.add_argument("--idle", type=float, default=60.0)
    parser.add_argument("--extra", action="append", default=[], help="KEY=VALUE lines printed first")
    parser.add_argument("--serve-api", action="store_true", help="internal: the API stand-in process")
    parser.add_argument("--only", choices=["classic", "fleet", "lean", "fleet-starts", "status"], help="run one part only")
    parser.add_argument("--starts", type=int, default=5,
                        help="fleet-starts: consecutive cold 1,000-location starts to a complete tree")
    args = parser.parse_args()
    if args.serve_api:
        serve_api()
        return

    once_runs, processes = (2, 1) if args.quick else (5, 3)
    cycles = {1: 4 if args.quick else 20, 100: 2 if args.quick else 5}

    print("breeze-agent bench, %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    print("machine: %s" % machine())
    print("figures: median (min..max, n=runs)")
    # The agent runs with the environment the shipped systemd unit gives it.
    for key, value in service_environment().items():
        os.environ[key] = value
        print("agent environment (packaging/breeze-agent.service): %s=%s" % (key, value))
    for extra in args.extra:
        key, _, value = extra.partition("=")
        print("%-34s %s" % (key + ":", value))
    sys.stdout.flush()

    # A timeout's SIGTERM must still stop the broker and the agent (the finally below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    bench = Bench(os.path.abspath(args.agent))
    results = {}
    try:
        if args.only in (None, "classic"):
            classic(bench, args, results, once_runs, processes, cycles)
        if args.only in (None, "lean"):
            lean_report(bench, args.quick, min(args.idle, 20))
        if args.only in (None, "status"):
            status_report(bench, args.quick)
        if args.only in (None, "fleet"):
            fleet_report(bench, args.quick)
        if args.only == "fleet-starts":
            fleet_starts(bench, args.starts)
    finally:
        bench.close()
    if args.only in (None, "classic"):
        classic_goals(args, results)


def classic(bench, args, results, once_runs, processes, cycles):
    if True:
        for locations in (1, 100):
            for tls in (False, True):
                sc = Scenario(bench, locations, tls)
                try:
                    log("bench: %s: once x%d" % (sc.name, once_runs))
                    walls, cpus, rsss = sc.measure_once(once_runs)
                    runs = []
                    for p in range(processes):
                        idle = args.idle if (locations == 1 and not tls and p == 0) else 0
                        log("bench: %s: run #%d, %d cycles%s" % (sc.name, p + 1, cycles[locations],
                                                                 ", %.0f s idle" % idle if idle else ""))
                        runs.append(sc.run_process(cycles[locations], idle_seconds=idle))
                except SystemExit as failure:
                    # One scenario failing (a stall, a timeout) must not hide the others' figures.
                    print("\n[%s] FAILED: %s" % (sc.name, str(failure).splitlines()[0] if str(failure) else "?"))
                    sys.stdout.flush()
                    continue
                results[sc.name] = (sc, walls, cpus, rsss, runs)
                print("\n[%d location%s, %s] tree: %d topics" % (
                    locations, "" if locations == 1 else "s", "HTTPS" if tls else "HTTP", sc.tree_size))
                print("  once: start to tree acked (exit)  %s" % fmt(walls, "ms", 1000))
                print("  once: CPU user+sys               %s" % fmt(cpus, "ms", 1000))
                print("  once: peak RSS                   %s" % fmt([r / 1024 for r in rsss], "MB", 1, 2))
                print("  run warm: start to full tree     %s" % fmt([r["startup"] for r in runs], "ms", 1000))
                print("  run: CPU per full cycle          %s" % fmt([r["per_cycle"] for r in runs], "ms", 1000))
                print("        (%d cycles per process; per-cycle values %s ms)" % (
                    cycles[locations], " ".join("%.0f" % (c * 1000) for c in runs[0]["cycle_cpu"])))
                print("  run: steady RSS after cycles     %s" % fmt([r["rss_kb"] / 1024 for r in runs], "MB", 1, 2))
                print("  run: peak RSS (VmHWM)            %s" % fmt([r["hwm_kb"] / 1024 for r in runs], "MB", 1, 2))
                print("  run: threads                     %s" % fmt([r["threads"] for r in runs], "", 1, 0))
                for r in runs:
                    if r["idle"] is not None:
                        print("  run: idle CPU over %.0f s          %.4f %% (%.0f ms)" % (
                            args.idle, r["idle"] * 100, r["idle"] * args.idle * 1000))
                sys.stdout.flush()


def classic_goals(args, results):
    if "1-http" not in results:
        return
    one = results["1-http"][4]
    hundred = results["100-http"][4] if "100-http" in results else None
    c1 = statistics.median(r["per_cycle"] for r in one)
    c100 = statistics.median(r["per_cycle"] for r in hundred) if hundred else None
    print("\ngoals (1 location, HTTP unless noted):")
    rss = statistics.median(r["rss_kb"] for r in one) / 1024
    print("  steady RSS <= 12 MB:              %.2f MB  %s" % (rss, "met" if rss <= 12 else "MISSED"))
    print("  CPU per cycle <= 15 ms:           %.1f ms  %s" % (c1 * 1000, "met" if c1 <= 0.015 else "MISSED"))
    if c100 is None:
        print("  linear: 100 locations:            not measured (the 100-location scenario failed)")
    else:
        print("  linear: 100 locations / 100:      %.1f ms per location  %s" % (
            c100 * 10, "met" if c100 / 100 <= max(c1, 0.001) * 1.1 else "check"))
    idle = [r["idle"] for r in one if r["idle"] is not None]
    if idle:
        print("  idle CPU < 0.1 %%:                 %.4f %%  %s" % (idle[0] * 100, "met" if idle[0] < 0.001 else "MISSED"))
    warm = statistics.median(r["startup"] for r in one)
    print("  warm start to full tree <= 100 ms: %.0f ms  %s" % (warm * 1000, "met" if warm <= 0.1 else "MISSED"))


if __name__ == "__main__":
    main()
