"""Scenario "google": Google pollen (the real 5-day response, edited per location) and climate,
three locations, against a real Home Assistant."""

import pytest

from checks import (agent_scenario, assert_device, assert_entities, device_of, press_refresh, settle, state,
                    wait_for_entities, wait_gone, wait_state)
from expected import GOOGLE_INDEXED, LEVEL_OPTIONS, location_entities
from harness import Agent, wait_for

PREFIX = "breeze"
TYPES = ["grass", "tree", "weed"]
# The plants of the Google fixture, in its order.
PLANTS = ["hazel", "ash", "cottonwood", "oak", "pine", "birch", "olive", "graminales", "ragweed", "alder",
          "mugwort"]
# Disabled-by-default entities a removal left in the entity registry, per case (reported).
LEFT_BEHIND = {}
# Home Assistant's own "No device components to cleanup" warnings, per case (reported).
HA_ECHO = {}
HOME, OFFICE, SEA = ("52.52", "13.405"), ("48.137", "11.575"), ("40.0", "-30.0")


def config(broker, api, locations=("home", "office", "sea"), pollen=True):
    coordinates = {"home": HOME, "office": OFFICE, "sea": SEA}
    lines = ["mqtt:", "  host: 127.0.0.1", "  port: %d" % broker.port, "  client_id: ha-test-google",
             "  topic_prefix: " + PREFIX, "  qos: 1", "locations:"]
    for loc in locations:
        lines += ["  - id: " + loc, "    name: " + loc.title(), "    latitude: " + coordinates[loc][0],
                  "    longitude: " + coordinates[loc][1], "    timezone: UTC"]
    lines += ["pollen:", "  enabled: %s" % ("true" if pollen else "false"), "  source: google",
              "  api_key: ha-test-not-a-key", "  max_calls_per_day: 1000",
              "climate:", "  unit: celsius"] + api.endpoints_yaml()
    return lines


@pytest.fixture(scope="module")
def scenario(hass, broker, api, agent_bin, workdir):
    # home: grass Very High, tree zero (indexInfo without value), weed without index (as in the
    # fixture); 1980 has no temperature, so the baseline is 1990.
    api.google_today[HOME[0]] = {"GRASS": 5, "TREE": 0}
    api.null_years[HOME[0]] = {1980}
    since = hass.log_offset()
    agent = Agent(agent_bin, workdir, "google", config(broker, api))
    def setup():
        for loc in ("home", "office", "sea"):
            wait_for_entities(hass, "breeze_" + loc, location_entities(PREFIX, loc, TYPES, PLANTS, indexed=GOOGLE_INDEXED), ready=[
                "binary_sensor.breeze_%s_pollen_stale" % loc, "binary_sensor.breeze_%s_climate_stale" % loc,
                "sensor.breeze_%s_pollen_tree" % loc, "sensor.breeze_%s_climate_current" % loc])
    yield from agent_scenario("google", hass, agent, since, setup)


def test_device_and_origin(hass, scenario):
    assert_device(hass, "breeze_home", "Breeze Home")


# Entity id → state of the home device, for the closing summary.
STATES = {}


def test_entities(hass, scenario):
    expected = location_entities(PREFIX, "home", TYPES, PLANTS, indexed=GOOGLE_INDEXED)
    assert_entities(hass, "breeze_home", expected)
    states = hass.states()
    STATES.update({e.entity_id: states[e.entity_id]["state"] if e.enabled else "(disabled by default)"
                   for e in expected})


def test_level_sensor_options(hass, scenario):
    for entity_id in ["sensor.breeze_home_pollen_max_level", "sensor.breeze_home_pollen_grass_level"]:
        assert hass.state(entity_id)["attributes"]["options"] == LEVEL_OPTIONS


def test_states_zero_very_high_no_index(hass, scenario):
    expected = {
        "sensor.breeze_home_pollen_max": "5",
        "sensor.breeze_home_pollen_max_level": "Very High",
        "sensor.breeze_home_pollen_grass": "5",
        "sensor.breeze_home_pollen_grass_level": "Very High",
        "sensor.breeze_home_pollen_tree": "0",
        "sensor.breeze_home_pollen_tree_level": "No pollen",   # zero pollen is not "unknown"
        "sensor.breeze_home_pollen_weed": "unknown",           # no index
        "sensor.breeze_home_pollen_weed_level": "unknown",
        "binary_sensor.breeze_home_pollen_stale": "off",
        "binary_sensor.breeze_home_climate_stale": "off",
    }
    actual = {entity_id: state(hass, entity_id) for entity_id in expected}
    assert actual == expected
    grass = hass.state("sensor.breeze_home_pollen_grass")["attributes"]
    assert grass["level"] == "Very High" and grass["color"] == "#8e0000" and grass["is_plant"] is False


def test_forecast_trend_and_peak(hass, scenario):
    # Tomorrow (the fixture's second day): grass 3, tree 1, weed without index.
    import datetime
    expected = {
        "sensor.breeze_home_pollen_grass_tomorrow": "3",
        "sensor.breeze_home_pollen_tree_tomorrow": "1",
        "sensor.breeze_home_pollen_weed_tomorrow": "unknown",
        "sensor.breeze_home_pollen_trend": "falling",      # max 5 today, 3 tomorrow
        "sensor.breeze_home_pollen_peak": "Very High",     # today's grass
    }
    assert {e: state(hass, e) for e in expected} == expected
    assert hass.state("sensor.breeze_home_pollen_trend")["attributes"]["options"] == ["rising", "falling", "steady"]
    peak = hass.state("sensor.breeze_home_pollen_peak")["attributes"]
    assert peak["date"] == datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    assert peak["id"] == "grass" and peak["value"] == 5


def test_climate_states_missing_baseline_year(hass, scenario, broker):
    from fake_api import climate_celsius
    import datetime
    year = datetime.datetime.now(datetime.timezone.utc).year
    current, baseline = climate_celsius(year) / 10, climate_celsius(1990) / 10
    assert float(state(hass, "sensor.breeze_home_climate_current")) == pytest.approx(current)
    assert float(state(hass, "sensor.breeze_home_climate_baseline")) == pytest.approx(baseline)
    assert float(state(hass, "sensor.breeze_home_climate_change")) == pytest.approx(current - baseline, abs=0.05)
    assert '"baseline_year":1990' in broker.retained("breeze/home/climate")


def test_timestamp_and_max_color(hass, scenario):
    updated = state(hass, "sensor.breeze_home_pollen_updated_at")
    assert updated not in (None, "unknown", "unavailable") and updated.endswith("+00:00")
    # `pollen/max` carries the RGB triple for light.turn_on (Very High: #8e0000).
    attributes = hass.state("sensor.breeze_home_pollen_max")["attributes"]
    assert attributes["color"] == "#8e0000" and attributes["color_rgb"] == [142, 0, 0]


def test_unit_select_round_trip(hass, scenario, broker):
    temperatures = ["sensor.breeze_home_climate_current", "sensor.breeze_home_climate_baseline",
                    "sensor.breeze_home_climate_change"]
    before = {t: hass.state(t) for t in temperatures}
    assert state(hass, "select.breeze_home_climate_unit") == "°C"
    hass.call("select", "select_option", {"entity_id": "select.breeze_home_climate_unit", "option": "°F"})
    wait_state(hass, "select.breeze_home_climate_unit", "°F")
    assert wait_for("°F text topic", lambda: (broker.retained("breeze/home/climate/current/text") or "").endswith("°F"))
    for t in temperatures:  # Home Assistant's temperatures stay in °C: only the MQTT text changes
        now = hass.state(t)
        assert (now["state"], now["attributes"]["unit_of_measurement"]) == \
            (before[t]["state"], before[t]["attributes"]["unit_of_measurement"]), t
    hass.call("select", "select_option", {"entity_id": "select.breeze_home_climate_unit", "option": "°C"})
    wait_state(hass, "select.breeze_home_climate_unit", "°C")
    assert wait_for("°C text topic", lambda: (broker.retained("breeze/home/climate/current/text") or "").endswith("°C"))


def test_commands_and_subscriptions_at_qos_1(hass, scenario, api):
    device = assert_device(hass, "breeze_home", "Breeze Home")
    press_refresh(hass, api, "button.breeze_home_refresh", "google")
    info = {e["entity_id"]: e for e in hass.ws({"type": "mqtt/device/debug_info", "device_id": device["id"]})[0]["entities"]}
    for entity_id, topic in [("button.breeze_home_refresh", "breeze/home/refresh"),
                             ("select.breeze_home_climate_unit", "breeze/home/climate/unit/set")]:
        sent = [m for t in info[entity_id]["transmitted"] if t["topic"] == topic for m in t["messages"]]
        assert sent, "%s sent nothing on %s" % (entity_id, topic)
        assert {m["qos"] for m in sent} == {1}, (entity_id, sent)
    # What Home Assistant received on its subscriptions came at QoS 1 (the lower of the
    # agent's publish QoS and the subscription's).
    for entity_id in ["sensor.breeze_home_pollen_grass", "sensor.breeze_home_pollen_max_level",
                      "sensor.breeze_home_climate_current", "select.breeze_home_climate_unit"]:
        received = [m for s in info[entity_id]["subscriptions"] for m in s["messages"]]
        assert received, entity_id
        assert {m["qos"] for m in received} == {1}, (entity_id, received)


def test_stale(hass, scenario, api):
    api.failing.add(HOME[0])
    try:
        press_refresh(hass, api, "button.breeze_home_refresh", "google")
        wait_state(hass, "binary_sensor.breeze_home_pollen_stale", "on")
        wait_state(hass, "binary_sensor.breeze_home_climate_stale", "on")
        # Stale data stays published: the values do not turn unknown.
        assert state(hass, "sensor.breeze_home_pollen_grass") == "5"
        assert state(hass, "sensor.breeze_home_pollen_tree_level") == "No pollen"
    finally:
        api.failing.discard(HOME[0])
    press_refresh(hass, api, "button.breeze_home_refresh", "google")
    wait_state(hass, "binary_sensor.breeze_home_pollen_stale", "off")
    wait_state(hass, "binary_sensor.breeze_home_climate_stale", "off")


def test_unsupported_location_removes_pollen_entities(hass, scenario, api):
    since = hass.log_offset()
    api.unsupported.add(SEA[0])
    press_refresh(hass, api, "button.breeze_sea_refresh", "google")
    remaining = location_entities(PREFIX, "sea", climate=True)
    kept = {e.entity_id for e in remaining}
    gone = [e for e in location_entities(PREFIX, "sea", TYPES, PLANTS, indexed=GOOGLE_INDEXED) if e.entity_id not in kept]
    LEFT_BEHIND["unsupported"] = wait_gone(hass, "breeze_sea", gone)
    wait_for_entities(hass, "breeze_sea", [e for e in location_entities(PREFIX, "sea", TYPES, PLANTS, indexed=GOOGLE_INDEXED)
                                           if e.entity_id in kept or not e.enabled])
    settle(6)
    assert hass.mqtt_problems(since) == []


def test_removing_a_location_removes_its_device(hass, scenario, broker, api):
    since = hass.log_offset()
    scenario["agent"].restart(config(broker, api, locations=("home", "sea")))
    office = location_entities(PREFIX, "office", TYPES, PLANTS, indexed=GOOGLE_INDEXED)
    wait_gone(hass, "breeze_office", office)
    wait_for("office device removed", lambda: device_of(hass, "breeze_office") is None)
    settle(6)
    problems = hass.mqtt_problems(since)
    # Home Assistant's own echo: removing the device deletes its disabled (never loaded)
    # entities from the registry, and for each one Home Assistant publishes an empty payload
    # on the device's discovery topic itself, then warns that nothing is left to clean up.
    echo = [p for p in problems if "No device components to cleanup for breeze_office" in p]
    assert [p for p in problems if p not in echo] == []
    assert len(echo) <= len([e for e in office if not e.enabled])
    HA_ECHO["location removed"] = len(echo)


def test_disabling_pollen_removes_pollen_entities(hass, scenario, broker, api):
    since = hass.log_offset()
    scenario["agent"].restart(config(broker, api, locations=("home", "sea"), pollen=False))
    remaining = location_entities(PREFIX, "home", climate=True)
    kept = {e.entity_id for e in remaining}
    gone = [e for e in location_entities(PREFIX, "home", TYPES, PLANTS, indexed=GOOGLE_INDEXED) if e.entity_id not in kept]
    LEFT_BEHIND["pollen disabled"] = wait_gone(hass, "breeze_home", gone)
    wait_for_entities(hass, "breeze_home", [e for e in location_entities(PREFIX, "home", TYPES, PLANTS, indexed=GOOGLE_INDEXED)
                                            if e.entity_id in kept or not e.enabled])
    settle(6)
    assert hass.mqtt_problems(since) == []
