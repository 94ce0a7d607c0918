"""Scenario "add-on" (SPEC §15, issue 28 item 4): the release agent started as the Home Assistant
add-on starts it (`breeze-agent addon`), with the add-on's default options, against a stand-in
Supervisor whose answers come from this suite's real Home Assistant and broker. Home Assistant
must then show one device named as it names its home, with the entities the defaults produce,
plus the one image the `images` option adds (SPEC §19): `wall`, the image the repository's
dashboard (ha/dashboards/breeze.yaml) shows in its picture card, screenshotted here.

The stand-in is written from the Supervisor's documented API (docs/home-assistant.md, "Runtime
environment", and the sources cited there): requests carry `Authorization: Bearer
$SUPERVISOR_TOKEN` [DEV docs/apps/communication.md]; `GET /services/mqtt` answers
`{"result": "ok", "data": {host, port, ssl, protocol, username, password, addon}}`
[SV supervisor/api/utils.py api_return_ok, supervisor/services/modules/mqtt.py]; `GET
/core/api/config` is Home Assistant's own `/api/config` passed through without the envelope
[SV supervisor/api/proxy.py] — here read from the running Home Assistant on every request, as
the Supervisor's proxy does; an unknown token gets 401 [SV supervisor/api/proxy.py
_check_access].

`/data` is a temporary folder whose `options.json` is what the Supervisor writes for an add-on
nobody configured: the `options` defaults of ha-addon/breeze_agent/config.yaml [SV apps/app.py
write_options], plus the one thing this machine needs, `advanced` pointing the agent at the
suite's API stand-in and its status page at a free loopback port, and one `images` entry. The
agent finds its render helper next to itself (the release build), as the add-on's image has it
at /usr/libexec/breeze-agent (the image itself is run by scripts/test-addon-image.sh)."""

import dataclasses
import json
import os
import shutil
import stat
import subprocess
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import yaml

from checks import agent_scenario, assert_device, assert_entities, registry_of_device, device_of, settle, state
from checks import wait_for_entities
from expected import Entity, location_entities
from harness import ROOT, free_port, stop_process, wait_for
from test_7_images import image_proxy, retained_bytes
from test_8_dashboards import DASHBOARD, LOGIN_PAGE, SCREENSHOTS, screenshot

# The agent's defaults: topic prefix `breeze`, the home location's id `home` (SPEC §15).
PREFIX = "breeze"
DEVICE = "breeze_home"
TYPES = ["grass", "tree", "weed"]
# Key-free pollen (pollen_source auto, no Google key): the plants of the Open-Meteo response.
PLANTS = ["alder", "birch", "olive", "graminales", "mugwort", "ragweed"]
CONFIG_YAML = os.path.join(ROOT, "ha-addon", "breeze_agent", "config.yaml")
# The image the dashboard's picture card shows (image.breeze_home_image_wall), as a user adds it.
IMAGE = {"id": "wall", "location": "home", "kind": "climate", "width": 400, "height": 300, "palette": "color",
         "format": "png"}
IMAGE_ENTITY = "image.%s_image_wall" % DEVICE
TOKEN = "test-supervisor-token"
BROKER_LOGIN = ("addons", "Ieh6ohs4ae")  # what the Mosquitto add-on announces for add-ons


class Supervisor:
    """The stand-in Supervisor on a free loopback port (see the module's docstring)."""

    def __init__(self, hass, broker):
        self.requests = []  # (path, token accepted)
        self.lock = threading.Lock()
        supervisor = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                authorized = self.headers.get("Authorization") == "Bearer " + TOKEN
                with supervisor.lock:
                    supervisor.requests.append((self.path, authorized))
                if not authorized:
                    status, body = 401, {"result": "error", "message": "Unauthorized"}
                elif self.path == "/services/mqtt":
                    status, body = 200, {"result": "ok", "data": {
                        "addon": "core_mosquitto", "host": "127.0.0.1", "port": broker.port, "ssl": False,
                        "protocol": "3.1.1", "username": BROKER_LOGIN[0], "password": BROKER_LOGIN[1]}}
                elif self.path == "/core/api/config":
                    status, body = 200, hass.get("/api/config")
                else:
                    status, body = 404, {"result": "error", "message": "not found"}
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class AddonAgent:
    """`breeze-agent addon` with BREEZE_ADDON_DATA as the add-on's /data."""

    def __init__(self, binary, workdir, supervisor, options):
        # Run as root on a machine with a `breeze-agent` user, the add-on drops to that user once
        # it has written its config (issue 39), as in the container, where /data hangs off `/`:
        # the work folder (0700, root's) must let it pass to the data folder.
        os.chmod(workdir, 0o711)
        self.data = os.path.join(workdir, "addon-data")
        os.makedirs(self.data)
        with open(os.path.join(self.data, "options.json"), "w") as f:
            json.dump(options, f)
        os.chmod(os.path.join(self.data, "options.json"), 0o600)
        self.log_path = os.path.join(workdir, "addon.log")
        self.log = open(self.log_path, "w")
        env = dict(os.environ, BREEZE_ADDON_DATA=self.data, BREEZE_SUPERVISOR_URL=supervisor.base,
                   SUPERVISOR_TOKEN=TOKEN, BREEZE_TEST_REFRESH_COOLDOWN="1", BREEZE_TEST_HTTP_TIMEOUT="5")
        self.proc = subprocess.Popen([binary, "addon"], env=env, stdout=self.log, stderr=subprocess.STDOUT)

    def stop(self):
        if self.proc is not None:
            stop_process(self.proc)
            self.log.close()
            self.proc = None

    def log_text(self):
        with open(self.log_path) as f:
            return f.read()


def default_options(api, status_port):
    """options.json as the Supervisor writes it for an unconfigured add-on, plus `advanced`."""
    with open(CONFIG_YAML) as f:
        options = dict(yaml.safe_load(f)["options"])
    options["advanced"] = "\n".join(api.endpoints_yaml() + ["http:", "  listen: 127.0.0.1:%d" % status_port])
    options["images"] = [IMAGE]
    return options


def forget_earlier_home_device(hass, broker):
    """Earlier scenarios used the same prefix and location id (`breeze_home`): remove that device
    the documented way (an empty retained config), then clear the retained state topics, so what
    Home Assistant shows afterwards is the add-on's alone. Returns the entity ids that were
    enabled and those that were disabled: Home Assistant remembers a deleted entity's settings
    and restores them when the same unique id comes back (seen on 2026.2.3: the plants test_8
    enabled came back enabled; plant level sensors Google announced disabled came back disabled
    although the key-free source announces them enabled, SPEC §17.1), so for those the add-on's
    device is not what a fresh installation shows."""
    device = device_of(hass, DEVICE)
    enabled, disabled = set(), set()
    if device is not None:
        registry = registry_of_device(hass, device)
        enabled = {e for e, entry in registry.items() if entry["disabled_by"] is None}
        disabled = set(registry) - enabled
    subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-r", "-n",
                    "-t", "homeassistant/device/%s/config" % DEVICE], check=True)
    wait_for("the earlier %s device removed" % DEVICE, lambda: device_of(hass, DEVICE) is None, timeout=30)
    subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-t", PREFIX + "/#",
                    "--remove-retained", "--retained-only", "-W", "2"], capture_output=True)
    settle(1)
    return enabled, disabled


def expected_entities(remembered):
    """One key-free location with the default config; what an earlier scenario left enabled or
    disabled stays so."""
    enabled, disabled = remembered
    return [dataclasses.replace(e, enabled=True) if e.entity_id in enabled
            else dataclasses.replace(e, enabled=False) if e.entity_id in disabled else e
            for e in location_entities(PREFIX, "home", TYPES, PLANTS, indexed=PLANTS, hourly=True)] + [
                Entity(IMAGE_ENTITY, IMAGE_ENTITY[6:])]


@pytest.fixture(scope="module")
def scenario(hass, broker, api, agent_bin, workdir):
    remembered = forget_earlier_home_device(hass, broker)
    fresh = location_entities(PREFIX, "home", TYPES, PLANTS, indexed=PLANTS, hourly=True)
    RESTORED.update(e.entity_id for e in fresh if not e.enabled and e.entity_id in remembered[0])
    RESTORED_DISABLED.update(e.entity_id for e in fresh if e.enabled and e.entity_id in remembered[1])
    supervisor = Supervisor(hass, broker)
    status_port = free_port()
    since = hass.log_offset()
    agent = AddonAgent(agent_bin, workdir, supervisor, default_options(api, status_port))

    def setup():
        wait_for_entities(hass, DEVICE, expected_entities(remembered), ready=[
            "sensor.breeze_home_pollen_grass", "sensor.breeze_home_climate_current", IMAGE_ENTITY], timeout=90)

    try:
        for value in agent_scenario("add-on", hass, agent, since, setup, settle_for=3):
            value.update(supervisor=supervisor, status_port=status_port, ha_config=hass.get("/api/config"),
                         remembered=remembered)
            yield value
    finally:
        supervisor.close()


def test_supervisor_was_asked_with_the_token(scenario):
    asked = scenario["supervisor"].requests
    assert ("/services/mqtt", True) in asked and ("/core/api/config", True) in asked, asked
    assert all(authorized for _, authorized in asked), asked


def test_written_config_is_home_assistants_home(scenario):
    """/data/breeze-agent.yaml (0600) holds Home Assistant's home as location `home`, its unit
    system, and the announced broker with its login."""
    agent, ha = scenario["agent"], scenario["ha_config"]
    path = os.path.join(agent.data, "breeze-agent.yaml")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    with open(path) as f:
        written = yaml.safe_load(f)
    assert written["locations"] == [{"id": "home", "name": ha["location_name"], "latitude": ha["latitude"],
                                     "longitude": ha["longitude"], "timezone": ha["time_zone"]}]
    unit = {"°C": "celsius", "°F": "fahrenheit"}[ha["unit_system"]["temperature"]]
    assert written["climate"] == {"unit": unit}
    assert (written["mqtt"]["username"], written["mqtt"]["password"]) == BROKER_LOGIN
    assert written["state_dir"] == agent.data
    # The log says what the file holds, never the password.
    log = agent.log_text()
    assert "home location \"%s\"" % ha["location_name"] in log, log
    assert BROKER_LOGIN[1] not in log


def test_device_named_as_home_assistant_names_its_home(hass, scenario):
    assert_device(hass, DEVICE, "Breeze " + scenario["ha_config"]["location_name"])


def test_entities_are_what_discovery_announces(hass, broker, scenario):
    """The device's entities are those of one key-free location with the default config, and
    exactly the components of the retained discovery config."""
    expected = expected_entities(scenario["remembered"])
    assert_entities(hass, DEVICE, expected)
    announced = json.loads(broker.retained("homeassistant/device/%s/config" % DEVICE))
    ids = {c["default_entity_id"] for c in announced["components"].values()}
    assert ids == {e.entity_id for e in expected}
    assert set(registry_of_device(hass, device_of(hass, DEVICE))) == ids


def test_states_follow_the_broker(hass, broker, scenario):
    """Every enabled entity has a state; the pollen numbers are the agent's value topics."""
    states = hass.states()
    expected = [e for e in expected_entities(scenario["remembered"]) if e.enabled]
    assert not [e.entity_id for e in expected if states[e.entity_id]["state"] == "unavailable"]
    for item in TYPES + ["max"]:
        value = broker.retained("%s/home/pollen/%s/value" % (PREFIX, item))
        want = "unknown" if value == "None" else value
        assert state(hass, "sensor.breeze_home_pollen_" + item) == want, item
    SHOWN.update({e.entity_id: states[e.entity_id]["state"] for e in expected})


def test_unit_system_is_home_assistants(hass, scenario):
    temperature = scenario["ha_config"]["unit_system"]["temperature"]
    assert state(hass, "select.breeze_home_climate_unit") == temperature
    current = hass.state("sensor.breeze_home_climate_current")
    assert current["attributes"]["unit_of_measurement"] == temperature
    assert current["state"] not in ("unknown", "unavailable")


def test_status_page_on_the_advanced_port(scenario):
    url = "http://127.0.0.1:%d/api/state.json" % scenario["status_port"]
    with urllib.request.urlopen(url, timeout=10) as response:
        body = json.loads(response.read())
    assert response.status == 200 and body, body


def test_broker_login_is_the_supervisors(broker, scenario):
    """The agent connected with the login the Supervisor announced (the mosquitto log names it)."""
    with open(os.path.join(broker.dir, "mosquitto.log")) as f:
        log = f.read()
    assert "u'%s'" % BROKER_LOGIN[0] in log, log[-2000:]


def test_no_mqtt_warnings_or_errors(hass, scenario):
    settle(3)
    assert hass.mqtt_problems(scenario["since"]) == []


# Entity id → state, and the entities disabled by default that came back enabled, for the closing summary.
SHOWN = {}
RESTORED = set()
# Enabled by default, but disabled when an earlier scenario registered them (the closing summary).
RESTORED_DISABLED = set()


def test_image_entity_serves_the_rendered_png(hass, broker, scenario):
    """The `images` option's PNG: on the broker at its size, and Home Assistant serves those bytes."""
    payload = retained_bytes(broker, "%s/home/image/wall" % PREFIX)
    assert payload.startswith(b"\x89PNG\r\n\x1a\n") and payload[12:16] == b"IHDR", payload[:24]
    assert (int.from_bytes(payload[16:20], "big"), int.from_bytes(payload[20:24], "big")) == (400, 300)
    content_type, served = image_proxy(hass, IMAGE_ENTITY)
    assert content_type == "image/png" and served == payload
    assert "error:" not in scenario["agent"].log_text()


def test_dashboard_picture_card_shows_the_image(hass, scenario, workdir):
    """The repository's dashboard with the add-on's device: the picture card's entity has the
    image, and headless Chromium screenshots the page (ha-addon-dashboard-1280.png with
    BREEZE_HA_SCREENSHOT_DIR). Entities of the other scenarios (a risk profile) are not there."""
    with open(os.path.join(hass.dir, "www", "breeze-login.html"), "w") as f:
        f.write(LOGIN_PAGE % (json.dumps(hass.token), hass.DASHBOARD_URL))
    with open(DASHBOARD, encoding="utf-8") as f:
        assert IMAGE_ENTITY in f.read()
    assert state(hass, IMAGE_ENTITY) not in (None, "unknown", "unavailable")
    path = os.path.join(workdir, "addon-dashboard-1280.png")
    screenshot(hass, path, 1280, 1300)
    with open(path, "rb") as f:
        head = f.read(24)
    assert head.startswith(b"\x89PNG\r\n\x1a\n") and int.from_bytes(head[16:20], "big") == 1280
    SCREENSHOTS.append(path)
    target = os.environ.get("BREEZE_HA_SCREENSHOT_DIR")
    if target:
        shutil.copyfile(path, os.path.join(target, "ha-addon-dashboard-1280.png"))
