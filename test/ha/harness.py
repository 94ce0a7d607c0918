"""The real parts of the Home Assistant conformance suite: a private mosquitto, the release
agent and a real Home Assistant, each a child process on loopback, stopped by the suite."""

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import aiohttp

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, check, timeout=30.0, interval=0.25):
    """Polls `check` until it returns something truthy; fails naming `what` and the last value."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = check()
        except Exception as error:  # noqa: BLE001 - a failing probe is retried until the deadline
            last = error
        else:
            if last:
                return last
        time.sleep(interval)
    raise AssertionError("timed out after %.0f s waiting for %s (last: %r)" % (timeout, what, last))


def stop_process(proc, timeout=20):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Broker:
    def __init__(self, workdir):
        self.port = free_port()
        self.dir = os.path.join(workdir, "mosquitto")
        os.makedirs(self.dir)
        conf = os.path.join(self.dir, "mosquitto.conf")
        with open(conf, "w") as f:
            f.write("listener %d 127.0.0.1\nallow_anonymous true\npersistence false\n" % self.port)
        self.log = open(os.path.join(self.dir, "mosquitto.log"), "w")
        self.proc = subprocess.Popen(["mosquitto", "-c", conf], stdout=self.log, stderr=subprocess.STDOUT)
        try:
            wait_for("mosquitto on port %d" % self.port, lambda: self._connects(), timeout=10)
        except BaseException:
            self.close()
            raise

    def _connects(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=1):
            return True

    def retained(self, topic, timeout=2.0):
        """The retained payload of one topic, or None when nothing is retained there."""
        out = subprocess.run(
            ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(self.port), "-t", topic, "-C", "1",
             "-W", str(max(1, int(timeout))), "--retained-only"],
            capture_output=True, text=True)
        return out.stdout[:-1] if out.returncode == 0 and out.stdout else None

    def close(self):
        stop_process(self.proc)
        self.log.close()


class Agent:
    """The release agent in `run` mode with a config written from the given lines."""

    def __init__(self, binary, workdir, name, lines):
        self.binary = binary
        self.dir = os.path.join(workdir, "agent-" + name)
        os.makedirs(os.path.join(self.dir, "state"), exist_ok=True)
        self.config = os.path.join(self.dir, "config.yaml")
        self.log_path = os.path.join(self.dir, "agent.log")
        self.proc = None
        self.start(lines)

    def start(self, lines):
        with open(self.config, "w") as f:
            f.write("\n".join(lines + ["state_dir: %s" % os.path.join(self.dir, "state")]) + "\n")
        env = dict(os.environ, BREEZE_TEST_REFRESH_COOLDOWN="1", BREEZE_TEST_HTTP_TIMEOUT="5")
        self.log = open(self.log_path, "a")
        self.proc = subprocess.Popen([self.binary, "run", "--config", self.config], env=env,
                                     stdout=self.log, stderr=subprocess.STDOUT)

    def restart(self, lines):
        self.stop()
        self.start(lines)

    def stop(self):
        if self.proc is not None:
            stop_process(self.proc)
            self.log.close()
            self.proc = None


TOKEN_COMPONENT = '''"""Test-only: creates a system-admin user and writes an access token for the suite."""
from datetime import timedelta


async def async_setup(hass, config):
    user = await hass.auth.async_create_system_user(
        "breeze-agent test suite", group_ids=["system-admin"])
    refresh = await hass.auth.async_create_refresh_token(
        user, access_token_expiration=timedelta(days=1))
    token = hass.auth.async_create_access_token(refresh)
    path = hass.config.path("test-token")

    def write():
        with open(path + ".tmp", "w") as f:
            f.write(token)
        import os
        os.replace(path + ".tmp", path)

    await hass.async_add_executor_job(write)
    return True
'''


class HomeAssistant:
    """A real Home Assistant (`hass -c <dir> --skip-pip`) on a free loopback port."""

    # Home Assistant runs in its Debian 13 tree (scripts/ha-setup.sh) through scripts/ha-chroot.sh,
    # which binds the config folder at its own path; its venv's `hass` is at this path there.
    HASS = "/opt/ha-venv/bin/hass"

    def __init__(self, tree, workdir):
        self.tree = tree
        self.dir = os.path.join(workdir, "homeassistant")
        self.port = free_port()
        self.base = "http://127.0.0.1:%d" % self.port
        os.makedirs(os.path.join(self.dir, "custom_components", "breeze_test_token"))
        component = os.path.join(self.dir, "custom_components", "breeze_test_token")
        with open(os.path.join(component, "__init__.py"), "w") as f:
            f.write(TOKEN_COMPONENT)
        with open(os.path.join(component, "manifest.json"), "w") as f:
            json.dump({"domain": "breeze_test_token", "name": "breeze-agent test token",
                       "version": "1.0.0", "documentation": "https://example.invalid",
                       "codeowners": [], "requirements": [], "dependencies": ["auth"],
                       "iot_class": "local_push"}, f)
        self._install_dashboards()
        with open(os.path.join(self.dir, "configuration.yaml"), "w") as f:
            f.write(
                "homeassistant:\n"
                "  name: breeze-agent test\n"
                "  latitude: 52.52\n  longitude: 13.405\n  elevation: 34\n"
                "  time_zone: UTC\n  unit_system: metric\n  currency: EUR\n  country: DE\n"
                "http:\n  server_host: 127.0.0.1\n  server_port: %d\n"
                "api:\nconfig:\n"
                # The frontend (dashboard screenshots), the history graph's recorder, automations
                # made from the blueprint through the config API (written to automations.yaml)
                # and the repository's dashboard in YAML mode (test_8_dashboards).
                "frontend:\nhistory:\n"
                "automation: !include automations.yaml\n"
                "lovelace:\n  dashboards:\n    %s:\n      mode: yaml\n      title: Pollen\n"
                "      icon: mdi:flower-pollen\n      show_in_sidebar: true\n      filename: %s\n"
                "logger:\n  default: warning\n"
                "breeze_test_token:\n" % (self.port, self.DASHBOARD_URL, self.DASHBOARD_FILE))
        self.log_path = os.path.join(self.dir, "home-assistant.log")
        self.proc = None
        self.token = None
        # Home Assistant rolls its log over at start: earlier runs' text is kept here so that
        # offsets stay valid across a restart.
        self.history = b""

    # The repository's dashboard and blueprint, installed as a user would (docs/home-assistant.md).
    DASHBOARD_URL = "breeze-pollen"
    DASHBOARD_FILE = "dashboards/breeze.yaml"
    BLUEPRINT_PATH = "breeze_agent/pollen_alert.yaml"
    AIR_OUT_BLUEPRINT_PATH = "breeze_agent/air_out.yaml"

    def _install_dashboards(self):
        for source, target in [
                (os.path.join(ROOT, "ha", "dashboards", "breeze.yaml"), os.path.join(self.dir, self.DASHBOARD_FILE)),
                (os.path.join(ROOT, "ha", "blueprints", "automation", self.BLUEPRINT_PATH),
                 os.path.join(self.dir, "blueprints", "automation", self.BLUEPRINT_PATH)),
                (os.path.join(ROOT, "ha", "blueprints", "automation", self.AIR_OUT_BLUEPRINT_PATH),
                 os.path.join(self.dir, "blueprints", "automation", self.AIR_OUT_BLUEPRINT_PATH))]:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(source, target)
        with open(os.path.join(self.dir, "automations.yaml"), "w") as f:
            f.write("[]\n")
        # /local/ (the frontend serves <config>/www when it exists at start): the browser's
        # login page (test_8_dashboards writes it once the token is known).
        os.makedirs(os.path.join(self.dir, "www"), exist_ok=True)
        # The frontend sends a browser to onboarding while no (non-system) user exists; the
        # suite's user is a system user, so onboarding is marked done.
        os.makedirs(os.path.join(self.dir, ".storage"), exist_ok=True)
        with open(os.path.join(self.dir, ".storage", "onboarding"), "w") as f:
            json.dump({"version": 4, "minor_version": 1, "key": "onboarding",
                       "data": {"done": ["user", "core_config", "analytics", "integration"]}}, f)

    def start(self, timeout=240):
        token_file = os.path.join(self.dir, "test-token")
        if os.path.exists(token_file):
            os.unlink(token_file)
        self.stdout = open(os.path.join(self.dir, "hass.stdout"), "a")
        self.proc = subprocess.Popen(
            [os.path.join(ROOT, "scripts", "ha-chroot.sh"), self.tree, self.dir, "--",
             self.HASS, "-c", self.dir, "--skip-pip",
             "--log-file", self.log_path, "--log-no-color"],
            stdout=self.stdout, stderr=subprocess.STDOUT)

        def running():
            if self.proc.poll() is not None:
                raise AssertionError("Home Assistant exited with %s; see %s" % (self.proc.returncode, self.log_path))
            if not os.path.exists(token_file):
                return False
            with open(token_file) as f:
                self.token = f.read().strip()
            return self.get("/api/config").get("state") == "RUNNING"

        wait_for("Home Assistant to run", running, timeout=timeout, interval=1.0)

    def stop(self):
        if self.proc is not None:
            stop_process(self.proc, timeout=60)
            self.stdout.close()
            self.proc = None
            self.history += self._current_log()

    # ------------------------------------------------------------------ REST

    def request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Authorization", "Bearer " + self.token)
        req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as error:
            raise AssertionError("%s %s: HTTP %d %s" % (method, path, error.code, error.read().decode()))
        return json.loads(text) if text else None

    def get(self, path):
        return self.request("GET", path)

    def post(self, path, body):
        return self.request("POST", path, body)

    def states(self):
        return {s["entity_id"]: s for s in self.get("/api/states")}

    def state(self, entity_id):
        try:
            return self.get("/api/states/" + entity_id)
        except AssertionError as error:
            if "HTTP 404" in str(error):
                return None
            raise

    def call(self, domain, service, data):
        return self.post("/api/services/%s/%s" % (domain, service), data)

    def setup_mqtt(self, broker_port):
        flow = self.post("/api/config/config_entries/flow", {"handler": "mqtt", "show_advanced_options": False})
        result = self.post("/api/config/config_entries/flow/" + flow["flow_id"],
                           {"broker": "127.0.0.1", "port": broker_port})
        assert result.get("type") == "create_entry", result
        return result

    # ------------------------------------------------------------------ websocket

    def ws(self, *messages):
        """Sends each message (a dict without `id`) on one websocket connection; returns the results."""
        async def run():
            async with aiohttp.ClientSession() as session:
                async with session.ws_connect(self.base + "/api/websocket") as ws:
                    hello = await ws.receive_json()
                    assert hello["type"] == "auth_required", hello
                    await ws.send_json({"type": "auth", "access_token": self.token})
                    auth = await ws.receive_json()
                    assert auth["type"] == "auth_ok", auth
                    results = []
                    for number, message in enumerate(messages, start=1):
                        await ws.send_json(dict(message, id=number))
                        while True:
                            reply = await ws.receive_json(timeout=30)
                            if reply.get("id") == number and reply.get("type") == "result":
                                break
                        assert reply["success"], reply
                        results.append(reply["result"])
                    return results
        return asyncio.run(run())

    def entity_registry(self):
        return {e["entity_id"]: e for e in self.ws({"type": "config/entity_registry/list"})[0]}

    def device_registry(self):
        return self.ws({"type": "config/device_registry/list"})[0]

    # ------------------------------------------------------------------ log

    def _current_log(self):
        if not os.path.exists(self.log_path):
            return b""
        with open(self.log_path, "rb") as f:
            return f.read()

    def log_text(self):
        return (self.history + (self._current_log() if self.proc is not None else b"")).decode("utf-8", "replace")

    def log_offset(self):
        return len(self.history) + (len(self._current_log()) if self.proc is not None else 0)

    # Loggers whose WARNING/ERROR lines count: the MQTT integration, and the template engine
    # that renders the discovery configs' templates on the MQTT payloads.
    WATCHED_LOGGERS = ("[homeassistant.components.mqtt", "[homeassistant.helpers.template]")

    def mqtt_problems(self, since=0):
        """WARNING/ERROR records of the MQTT integration and of templates written after `since`
        (with their continuation lines, e.g. tracebacks)."""
        text = (self.history + (self._current_log() if self.proc is not None else b""))[since:].decode(
            "utf-8", "replace")
        problems, current = [], None
        for line in text.splitlines():
            if line[:4].isdigit() and " (" in line[:40]:
                current = None
                head = line.split("] ", 1)[0]
                if ("WARNING" in line[:40] or "ERROR" in line[:40]) and any(
                        logger in head for logger in self.WATCHED_LOGGERS):
                    current = [line]
                    problems.append(current)
            elif current is not None:
                current.append(line)
        return ["\n".join(p) for p in problems]
