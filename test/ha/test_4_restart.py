"""Scenario "restart": Home Assistant restarts while the agent runs; the entities come back
with their states from the retained topics, and the diagnostics sensor is not unknown for long."""

import time

import pytest

from checks import agent_scenario, settle, state, wait_for_entities
from expected import GOOGLE_INDEXED, location_entities
from harness import Agent, wait_for

PREFIX = "breezers"
TYPES = ["grass", "tree", "weed"]
PLANTS = ["hazel", "ash", "cottonwood", "oak", "pine", "birch", "olive", "graminales", "ragweed", "alder",
          "mugwort"]


@pytest.fixture(scope="module")
def scenario(hass, broker, api, agent_bin, workdir):
    api.google_today["51.0"] = {"GRASS": 4, "TREE": 0}
    lines = ["mqtt:", "  host: 127.0.0.1", "  port: %d" % broker.port, "  client_id: ha-test-restart",
             "  topic_prefix: " + PREFIX, "  qos: 1", "locations:",
             "  - id: home", "    name: Home", "    latitude: 51.0", "    longitude: 10.0", "    timezone: UTC",
             "pollen:", "  source: google", "  api_key: ha-test-not-a-key", "climate:", "  unit: celsius"]
    since = hass.log_offset()
    agent = Agent(agent_bin, workdir, "restart", lines + api.endpoints_yaml())
    def setup():
        wait_for_entities(hass, "breezers_home", location_entities(PREFIX, "home", TYPES, PLANTS, indexed=GOOGLE_INDEXED), ready=[
            "sensor.breezers_home_pollen_grass", "sensor.breezers_home_climate_current"])
    yield from agent_scenario("restart", hass, agent, since, setup)


def test_restart_brings_entities_back_with_states(hass, scenario):
    watched = ["sensor.breezers_home_pollen_grass", "sensor.breezers_home_pollen_grass_level",
               "sensor.breezers_home_pollen_tree_level", "sensor.breezers_home_pollen_max",
               "sensor.breezers_home_climate_current", "sensor.breezers_home_climate_change",
               "select.breezers_home_climate_unit", "binary_sensor.breezers_home_pollen_stale",
               "sensor.breezers_home_pollen_updated_at"]
    before = {e: state(hass, e) for e in watched}
    assert before["sensor.breezers_home_pollen_grass"] == "4"
    assert before["sensor.breezers_home_pollen_tree_level"] == "No pollen"
    hass.stop()
    hass.start()
    wait_for("states back after the restart", lambda: {e: state(hass, e) for e in watched} == before, timeout=60)
    # The diagnostics are re-sent on Home Assistant's birth (after the 1–10 s re-announce delay;
    # a Home Assistant that first meets a running agent waits for the periodic message instead).
    started = time.monotonic()
    wait_for("API calls today after the restart",
             lambda: state(hass, "sensor.breezers_home_api_calls_today") not in ("unknown", "unavailable", None),
             timeout=20)
    print("api_calls_today known %.1f s after Home Assistant ran again" % (time.monotonic() - started))


def test_no_mqtt_warnings_or_errors(hass, scenario):
    settle(3)
    assert hass.mqtt_problems(scenario["since"]) == []
