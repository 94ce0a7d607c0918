"""Scenario "dashboards" (SPEC §17): the attributes the pollen Lovelace cards read, the alert
blueprint and the YAML dashboard of the repository (ha/), against a real Home Assistant.

One location `home` with the default prefix `breeze` (the entity ids the dashboard names),
Google pollen, a risk profile `anna` and a rendered image `wall`. Plants start disabled in Home
Assistant; the scenario enables them as a user would (the cards and the dashboard read them),
which makes Home Assistant reload the MQTT entry. The blueprint fires when the fake API's grass
value moves across its level, and not before. The dashboard is screenshotted by headless
Chromium from Home Assistant's own frontend, logged in with the suite's token."""

import datetime
import json
import os
import shutil
import subprocess
import tempfile

import pytest
import yaml

from checks import agent_scenario, press_refresh, settle, state, wait_state
from harness import ROOT, Agent, wait_for

PREFIX = "breeze"
LAT, LON = "52.52", "13.405"
TYPES = {"grass": "mdi:grass", "tree": "mdi:tree", "weed": "mdi:flower-tulip"}
# The plants of the Google fixture: the dashboard's entity-filter card lists them all.
PLANTS = ["hazel", "ash", "cottonwood", "oak", "pine", "birch", "olive", "graminales", "ragweed", "alder",
          "mugwort"]
CARD_KEYS = {"offset", "date", "has_index", "value", "category", "color_hex"}
DASHBOARD = os.path.join(ROOT, "ha", "dashboards", "breeze.yaml")
# Entity id -> attributes as Home Assistant reported them (closing summary).
ATTRIBUTES = {}
# What the blueprint's automations did (closing summary).
FIRED = []
SCREENSHOTS = []


def config(broker, api):
    return ["mqtt:", "  host: 127.0.0.1", "  port: %d" % broker.port, "  client_id: ha-test-dashboards",
            "  topic_prefix: " + PREFIX, "  qos: 1", "locations:",
            "  - id: home", "    name: Home", "    latitude: " + LAT, "    longitude: " + LON,
            "    timezone: UTC",
            "pollen:", "  source: google", "  api_key: ha-test-not-a-key", "  max_calls_per_day: 1000",
            "climate:", "  unit: celsius",
            "profiles:",
            "  - id: anna", "    name: Anna", "    allergens: [grass]", "    alert_level: High",
            "images:",
            "  - {id: wall, kind: climate, width: 400, height: 300, palette: color, format: png}",
            ] + api.endpoints_yaml()


def entity_id(item):
    return "sensor.breeze_home_pollen_" + item


@pytest.fixture(scope="module")
def scenario(hass, broker, api, agent_bin, workdir):
    # Grass Moderate (2) today: below the blueprint's level High.
    api.google_today[LAT] = {"GRASS": 2, "TREE": 0}
    api.failing.discard(LAT)
    since = hass.log_offset()
    agent = Agent(agent_bin, workdir, "dashboards", config(broker, api))
    def setup():
        ready = [entity_id("grass"), "sensor.breeze_home_risk_anna", "image.breeze_home_image_wall",
                 "sensor.breeze_home_climate_current"]
        wait_for("the home device's entities", lambda: all(
            state(hass, e) not in (None, "unknown", "unavailable") for e in ready), timeout=120, interval=1.0)
        wait_state(hass, "sensor.breeze_home_pollen_grass_level", "Moderate")
        # Enable the plants, as a user would for the cards. The MQTT integration adds them at
        # once, and Home Assistant also reloads the MQTT entry `reload_delay` (30) s after the
        # last change, every entity being unavailable for a moment then: wait for it to pass.
        registry = hass.entity_registry()
        delay = 0
        for plant in PLANTS:
            if registry[entity_id(plant)].get("disabled_by") is not None:
                result = hass.ws({"type": "config/entity_registry/update", "entity_id": entity_id(plant),
                                  "disabled_by": None})[0]
                delay = max(delay, result.get("reload_delay", 0))
        settle(delay + 5)
        wait_for("enabled plants to have a state", lambda: all(
            state(hass, entity_id(p)) not in (None, "unavailable") for p in PLANTS), timeout=120, interval=1.0)
        wait_for("the types after the reload", lambda: all(
            state(hass, e) not in (None, "unknown", "unavailable") for e in ready), timeout=60, interval=1.0)
    yield from agent_scenario("dashboards", hass, agent, since, setup, settle_for=3)


def today():
    return datetime.datetime.now(datetime.timezone.utc).date()


def assert_card_forecast(forecast, what):
    assert isinstance(forecast, list) and len(forecast) == 4, (what, forecast)  # the fixture's 5 days
    for offset, entry in enumerate(forecast, start=1):
        assert CARD_KEYS <= set(entry), (what, entry)
        assert entry["offset"] == offset, (what, entry)
        assert entry["date"] == (today() + datetime.timedelta(days=offset)).isoformat(), (what, entry)
        assert entry["has_index"] == (entry["value"] is not None), (what, entry)
        assert entry["category"] == entry["level"] and entry["color_hex"] == entry["color"], (what, entry)
        assert entry["color_hex"].startswith("#") and len(entry["color_hex"]) == 7, (what, entry)


def test_type_sensors_carry_the_card_attributes(hass, scenario):
    for item, icon in TYPES.items():
        attributes = hass.state(entity_id(item))["attributes"]
        ATTRIBUTES[entity_id(item)] = attributes
        assert "pollen data from Google" in attributes["attribution"], attributes
        assert attributes["icon"] == icon
        assert "code" not in attributes  # the cards tell a type from a plant by `code`
        assert attributes["id"] == item and attributes["is_plant"] is False
        assert_card_forecast(attributes["forecast"], item)
        # Tomorrow's entry is what the "tomorrow" sensor shows.
        tomorrow = state(hass, entity_id(item) + "_tomorrow")
        first = attributes["forecast"][0]
        assert (str(first["value"]) if first["has_index"] else "unknown") == tomorrow, (item, first, tomorrow)
    # The fixture's second day: grass 3, tree 1, weed without an index.
    assert [ATTRIBUTES[entity_id(t)]["forecast"][0]["value"] for t in TYPES] == [3, 1, None]
    assert ATTRIBUTES[entity_id("weed")]["forecast"][0]["has_index"] is False
    assert state(hass, entity_id("grass")) == "2" and ATTRIBUTES[entity_id("grass")]["level"] == "Moderate"


def test_plant_sensors_carry_the_card_attributes(hass, scenario):
    for plant in PLANTS:
        attributes = hass.state(entity_id(plant))["attributes"]
        ATTRIBUTES[entity_id(plant)] = attributes
        assert attributes["code"] == plant, attributes
        assert "pollen data from Google" in attributes["attribution"], attributes
        assert attributes["icon"] == "mdi:flower-pollen"
        assert attributes["id"] == plant and attributes["is_plant"] is True
        assert_card_forecast(attributes["forecast"], plant)


def test_other_sensors_carry_no_card_attributes(hass, scenario):
    """The pollen cards scan every state for the Google attribution: only the item sensors may
    carry it (a level or tomorrow sensor would be taken for an item)."""
    states = hass.states()
    google = sorted(e for e, s in states.items() if "pollen data from Google" in str(s["attributes"].get("attribution")))
    assert google == sorted(entity_id(i) for i in list(TYPES) + PLANTS)


def test_blueprint_loads(hass, scenario):
    blueprints = hass.ws({"type": "blueprint/list", "domain": "automation"})[0]
    entry = blueprints.get(hass.BLUEPRINT_PATH)
    assert entry is not None, sorted(blueprints)
    assert "error" not in entry, entry
    metadata = entry["metadata"]
    assert metadata["domain"] == "automation" and set(metadata["input"]) == {
        "level_sensor", "level", "notify_action", "title"}
    assert metadata["input"]["level_sensor"]["selector"]["entity"]["filter"][0]["integration"] == "mqtt"


def notifications(hass):
    return {n["notification_id"]: n for n in hass.ws({"type": "persistent_notification/get"})[0]}


def make_automation(hass, key, sensor, level):
    body = {"alias": "Pollen alert test " + key, "description": "",
            "use_blueprint": {"path": hass.BLUEPRINT_PATH,
                              "input": {"level_sensor": sensor, "level": level}}}
    assert hass.post("/api/config/automation/config/" + key, body) == {"result": "ok"}
    automation = "automation.pollen_alert_test_" + key
    wait_state(hass, automation, "on")
    return automation


def set_grass(hass, api, value):
    api.google_today[LAT] = {"GRASS": value, "TREE": 0}
    press_refresh(hass, api, "button.breeze_home_refresh", "google")
    wait_state(hass, entity_id("grass"), str(value))


def test_blueprint_fires_when_the_level_is_crossed_and_not_before(hass, scenario, api):
    grass_alert = make_automation(hass, "grass", "sensor.breeze_home_pollen_grass_level", "High")
    risk_alert = make_automation(hass, "anna", "sensor.breeze_home_risk_anna", "High")
    ids = {"breeze_pollen_alert_sensor_breeze_home_pollen_grass_level",
           "breeze_pollen_alert_sensor_breeze_home_risk_anna"}
    assert not ids & set(notifications(hass))
    # Moderate → Moderate (3): a new value, the same level; still below High.
    set_grass(hass, api, 3)
    wait_state(hass, "sensor.breeze_home_pollen_grass_level", "Moderate")
    settle(3)
    assert not ids & set(notifications(hass)), notifications(hass)
    assert hass.state(grass_alert)["attributes"].get("last_triggered") is None
    # High (4): both fire.
    set_grass(hass, api, 4)
    wait_state(hass, "sensor.breeze_home_pollen_grass_level", "High")
    wait_state(hass, "sensor.breeze_home_risk_anna", "High")
    fired = wait_for("both notifications", lambda: (lambda n: n if ids <= set(n) else None)(notifications(hass)))
    for notification_id in sorted(ids):
        FIRED.append({k: fired[notification_id][k] for k in ("notification_id", "title", "message", "created_at")})
    assert fired["breeze_pollen_alert_sensor_breeze_home_pollen_grass_level"]["message"] == \
        "Breeze Home Gramíneas pollen level is High (alert at High)."  # the fixture is Spanish
    assert fired["breeze_pollen_alert_sensor_breeze_home_risk_anna"]["title"] == "Pollen alert"
    for automation in (grass_alert, risk_alert):
        assert hass.state(automation)["attributes"].get("last_triggered") is not None
    # Very High (5) after High: no new crossing, so no new notification.
    for notification_id in ids:
        hass.call("persistent_notification", "dismiss", {"notification_id": notification_id})
    set_grass(hass, api, 5)
    wait_state(hass, "sensor.breeze_home_pollen_grass_level", "Very High")
    settle(3)
    assert not ids & set(notifications(hass))


def dashboard_entities(node):
    """Every entity id the dashboard names (cards, rows, conditions)."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "entity" and isinstance(value, str):
                found.append(value)
            elif key == "entities" and isinstance(value, list):
                found += [v for v in value if isinstance(v, str)]
                found += [e for v in value if isinstance(v, dict) for e in dashboard_entities(v)]
            else:
                found += dashboard_entities(value)
    elif isinstance(node, list):
        for value in node:
            found += dashboard_entities(value)
    return found


def test_dashboard_loads_in_yaml_mode_and_its_entities_exist(hass, scenario):
    with open(DASHBOARD, encoding="utf-8") as f:
        source = yaml.safe_load(f)
    loaded = hass.ws({"type": "lovelace/config", "url_path": hass.DASHBOARD_URL, "force": True})[0]
    assert loaded == source
    entities = sorted(set(dashboard_entities(source)))
    assert len(entities) >= 25, entities
    states = hass.states()
    missing = [e for e in entities if e not in states]
    unavailable = [e for e in entities if e in states and states[e]["state"] == "unavailable"]
    assert (missing, unavailable) == ([], [])
    # The plant card lists the enabled plants in season: the fixture has two today.
    plants = [e for e in entities if e.startswith("sensor.breeze_home_pollen_") and e[26:] in PLANTS]
    assert sorted(e for e in plants if states[e]["attributes"].get("in_season") is True) == [
        entity_id("graminales"), entity_id("olive")]
    # Built-in cards only: no `custom:` card type anywhere.
    assert "custom:" not in json.dumps(source)


LOGIN_PAGE = """<!doctype html><meta charset="utf-8"><title>login</title><script>
localStorage.setItem("hassTokens", JSON.stringify({
  hassUrl: location.origin, clientId: location.origin + "/", access_token: %s, token_type: "Bearer",
  expires_in: 86400, expires: Date.now() + 86400000, refresh_token: ""}));
location.replace("/%s/pollen");
</script>"""


def chromium():
    for path in ("/usr/bin/chromium", "/usr/lib/chromium/chromium"):
        if os.access(path, os.X_OK):
            return path
    pytest.fail("chromium is not installed: scripts/deps.sh chromium")


def screenshot(hass, path, width, height):
    profile = tempfile.mkdtemp(prefix="breeze-chromium.")
    try:
        out = subprocess.run(
            [chromium(), "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
             "--disable-extensions", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-default-apps", "--mute-audio", "--user-data-dir=" + profile,
             # Loopback only: nothing leaves the machine.
             "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
             "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>;127.0.0.1:%d" % hass.port,
             "--virtual-time-budget=30000", "--window-size=%d,%d" % (width, height), "--screenshot=" + path,
             hass.base + "/local/breeze-login.html"],
            capture_output=True, text=True, timeout=180)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert out.returncode == 0 and os.path.getsize(path) > 10000, (out.returncode, out.stderr[-2000:])


@pytest.mark.parametrize("width,height", [(1280, 1300), (390, 2300)])
def test_dashboard_screenshot(hass, scenario, workdir, width, height):
    with open(os.path.join(hass.dir, "www", "breeze-login.html"), "w") as f:
        f.write(LOGIN_PAGE % (json.dumps(hass.token), hass.DASHBOARD_URL))
    path = os.path.join(workdir, "dashboard-%d.png" % width)
    with open(DASHBOARD, encoding="utf-8") as f:
        entities = set(dashboard_entities(yaml.safe_load(f)))

    def unavailable():
        return sorted(e for e, s in hass.states().items() if e in entities and s["state"] == "unavailable")
    assert unavailable() == []
    screenshot(hass, path, width, height)
    # Nothing turned unavailable while the browser looked (e.g. an MQTT entry reload).
    assert unavailable() == []
    with open(path, "rb") as f:
        head = f.read(24)
    assert head.startswith(b"\x89PNG\r\n\x1a\n")
    assert int.from_bytes(head[16:20], "big") == width
    SCREENSHOTS.append(path)
    target = os.environ.get("BREEZE_HA_SCREENSHOT_DIR")
    if target:
        shutil.copyfile(path, os.path.join(target, "ha-dashboard-%d.png" % width))


def test_no_mqtt_warnings_or_errors(hass, scenario):
    settle(3)
    assert hass.mqtt_problems(scenario["since"]) == []
