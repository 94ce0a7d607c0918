"""Scenario "climate": climate only (pollen disabled), display unit °F from the config, a
location whose past years are all missing, and Home Assistant switched to US customary units."""

import datetime

import pytest

from checks import (agent_scenario, assert_device, assert_entities, press_refresh, settle, state,
                    wait_for_entities, wait_state)
from expected import location_entities
from fake_api import climate_celsius
from harness import Agent, wait_for

PREFIX = "breezecl"
WARM, NOBASE = ("45.1", "7.0"), ("46.2", "8.0")


def config(broker, api):
    return ["mqtt:", "  host: 127.0.0.1", "  port: %d" % broker.port, "  client_id: ha-test-climate",
            "  topic_prefix: " + PREFIX, "  qos: 1", "locations:",
            "  - id: warm", "    name: Warm", "    latitude: " + WARM[0], "    longitude: " + WARM[1],
            "    timezone: UTC",
            "  - id: nobase", "    name: No baseline", "    latitude: " + NOBASE[0], "    longitude: " + NOBASE[1],
            "    timezone: UTC",
            "pollen:", "  enabled: false", "climate:", "  unit: fahrenheit"] + api.endpoints_yaml()


@pytest.fixture(scope="module")
def scenario(hass, broker, api, agent_bin, workdir):
    api.null_years[NOBASE[0]] = {1980, 1990, 2000, 2010, 2020}
    since = hass.log_offset()
    agent = Agent(agent_bin, workdir, "climate", config(broker, api))
    def setup():
        for loc in ("warm", "nobase"):
            wait_for_entities(hass, "breezecl_" + loc, location_entities(PREFIX, loc, climate=True), ready=[
                "binary_sensor.breezecl_%s_climate_stale" % loc, "sensor.breezecl_%s_climate_current" % loc])
    yield from agent_scenario("climate", hass, agent, since, setup)


def test_device_and_entities(hass, scenario):
    assert_device(hass, "breezecl_warm", "Breeze Warm")
    assert_entities(hass, "breezecl_warm", location_entities(PREFIX, "warm", climate=True))


def test_states_in_celsius_while_mqtt_shows_fahrenheit(hass, scenario, broker):
    year = datetime.datetime.now(datetime.timezone.utc).year
    current, baseline = climate_celsius(year) / 10, climate_celsius(1980) / 10
    assert state(hass, "select.breezecl_warm_climate_unit") == "°F"
    assert broker.retained("breezecl/warm/climate/unit") == "°F"
    assert float(state(hass, "sensor.breezecl_warm_climate_current")) == pytest.approx(current)
    assert float(state(hass, "sensor.breezecl_warm_climate_baseline")) == pytest.approx(baseline)
    assert float(state(hass, "sensor.breezecl_warm_climate_change")) == pytest.approx(current - baseline, abs=0.05)
    assert state(hass, "binary_sensor.breezecl_warm_climate_stale") == "off"


def test_missing_baseline(hass, scenario, broker):
    # Only the current year has a value: it is its own baseline (the earliest year with a
    # value, SPEC §2), there is no change, and the data is marked stale.
    current = state(hass, "sensor.breezecl_nobase_climate_current")
    assert current not in ("unknown", "unavailable")
    assert state(hass, "sensor.breezecl_nobase_climate_baseline") == current
    assert state(hass, "sensor.breezecl_nobase_climate_change") == "unknown"
    assert broker.retained("breezecl/nobase/climate/change") == "None"
    assert state(hass, "binary_sensor.breezecl_nobase_climate_stale") == "on"


def test_unit_select_round_trip_from_fahrenheit(hass, scenario, broker):
    hass.call("select", "select_option", {"entity_id": "select.breezecl_warm_climate_unit", "option": "°C"})
    wait_state(hass, "select.breezecl_warm_climate_unit", "°C")
    wait_for("°C change text", lambda: (broker.retained("breezecl/warm/climate/change/text") or "").endswith("°C"))
    hass.call("select", "select_option", {"entity_id": "select.breezecl_warm_climate_unit", "option": "°F"})
    wait_state(hass, "select.breezecl_warm_climate_unit", "°F")
    wait_for("°F change text", lambda: (broker.retained("breezecl/warm/climate/change/text") or "").endswith("°F"))


def test_us_customary_home_assistant(hass, scenario, api):
    """What Home Assistant itself does when its user picks US customary units: temperatures
    follow the unit system; a temperature_delta does not (Home Assistant's unit systems have no
    rule for it), and the entity's own unit setting converts it (docs/home-assistant.md)."""
    year = datetime.datetime.now(datetime.timezone.utc).year
    current, baseline = climate_celsius(year) / 10, climate_celsius(1980) / 10
    change_id = "sensor.breezecl_warm_climate_change"
    temperatures = ["sensor.breezecl_warm_climate_current", change_id]
    hass.ws({"type": "config/core/update", "unit_system": "us_customary"})
    try:
        # An MQTT sensor writes its state only when a message changes it: ask for a write.
        hass.call("homeassistant", "update_entity", {"entity_id": temperatures})
        def converted():
            s = hass.state("sensor.breezecl_warm_climate_current")
            return s["attributes"].get("unit_of_measurement") == "°F" and s
        s = wait_for("the temperature in °F", converted, timeout=20)
        assert float(s["state"]) == pytest.approx(current * 9 / 5 + 32, abs=0.06)
        change = hass.state(change_id)
        assert change["attributes"]["unit_of_measurement"] == "°C"
        assert float(change["state"]) == pytest.approx(current - baseline, abs=0.05)
        hass.ws({"type": "config/entity_registry/update", "entity_id": change_id,
                 "options_domain": "sensor", "options": {"unit_of_measurement": "°F"}})
        change = wait_for("the change in °F", lambda: hass.state(change_id)["attributes"]
                          ["unit_of_measurement"] == "°F" and hass.state(change_id), timeout=20)
        assert float(change["state"]) == pytest.approx((current - baseline) * 9 / 5, abs=0.06)
    finally:
        hass.ws({"type": "config/entity_registry/update", "entity_id": change_id,
                 "options_domain": "sensor", "options": {"unit_of_measurement": None}})
        hass.ws({"type": "config/core/update", "unit_system": "metric"})
        hass.call("homeassistant", "update_entity", {"entity_id": temperatures})
        wait_for("metric again", lambda: hass.state("sensor.breezecl_warm_climate_current")["attributes"]
                 .get("unit_of_measurement") == "°C", timeout=20)


def test_no_mqtt_warnings_or_errors(hass, scenario):
    settle(3)
    assert hass.mqtt_problems(scenario["since"]) == []
