"""Scenario "open-meteo": key-free pollen from Open-Meteo air quality (the real Brno response,
inside Europe; the real New York one, every pollen value null: an unsupported location) and
climate, against a real Home Assistant."""

import pytest

from checks import agent_scenario, assert_device, assert_entities, settle, state, wait_for_entities
from expected import location_entities
from harness import Agent

PREFIX = "breezeom"
TYPES = ["grass", "tree", "weed"]
PLANTS = ["alder", "birch", "olive", "graminales", "mugwort", "ragweed"]


def config(broker, api):
    # The fixtures' own offsets as fixed zones, so their hours fall on whole local days.
    return ["mqtt:", "  host: 127.0.0.1", "  port: %d" % broker.port, "  client_id: ha-test-open-meteo",
            "  topic_prefix: " + PREFIX, "  qos: 1", "locations:",
            "  - id: brno", "    name: Brno", "    latitude: 49.2", "    longitude: 16.6",
            "    timezone: Etc/GMT-2",
            "  - id: new-york", "    name: New York", "    latitude: 40.7", "    longitude: -74.0",
            "    timezone: Etc/GMT+4",
            "pollen:", "  source: open-meteo", "climate:", "  unit: celsius"] + api.endpoints_yaml()


@pytest.fixture(scope="module")
def scenario(hass, broker, api, agent_bin, workdir):
    api.outside_europe.add("40.7")
    since = hass.log_offset()
    agent = Agent(agent_bin, workdir, "open-meteo", config(broker, api))
    def setup():
        wait_for_entities(hass, "breezeom_brno", location_entities(PREFIX, "brno", TYPES, PLANTS, indexed=PLANTS, hourly=True), ready=[
            "sensor.breezeom_brno_pollen_tree", "sensor.breezeom_brno_climate_current"])
        wait_for_entities(hass, "breezeom_new_york", location_entities(PREFIX, "new-york", climate=True),
                          ready=["sensor.breezeom_new_york_climate_current"])
    yield from agent_scenario("open-meteo", hass, agent, since, setup, settle_for=3)


def test_device_and_entities(hass, scenario):
    assert_device(hass, "breezeom_brno", "Breeze Brno")
    assert_entities(hass, "breezeom_brno", location_entities(PREFIX, "brno", TYPES, PLANTS, indexed=PLANTS, hourly=True))


def test_states(hass, scenario):
    # Brno, 1 October: no tree pollen at all (0.0 every hour), grass 0.47 grains/m³ (rounds to
    # 0), mugwort 3.0 and ragweed 0.9 grains/m³ (both Low).
    expected = {
        "sensor.breezeom_brno_pollen_tree": "0",
        "sensor.breezeom_brno_pollen_tree_level": "No pollen",
        "sensor.breezeom_brno_pollen_grass": "0",
        "sensor.breezeom_brno_pollen_grass_level": "No pollen",
        "sensor.breezeom_brno_pollen_weed": "1",
        "sensor.breezeom_brno_pollen_weed_level": "Low",
        "sensor.breezeom_brno_pollen_max": "1",
        "sensor.breezeom_brno_pollen_max_level": "Low",
        "binary_sensor.breezeom_brno_pollen_stale": "off",
        # 2 October: grass 0.47, mugwort 3.6, ragweed 0.35 grains/m³: the same levels.
        "sensor.breezeom_brno_pollen_weed_tomorrow": "1",
        "sensor.breezeom_brno_pollen_tree_tomorrow": "0",
        "sensor.breezeom_brno_pollen_trend": "steady",
        "sensor.breezeom_brno_pollen_peak": "Low",
        # Today against the season (SPEC §20): the stand-in's 92 past days repeat today, so grass
        # and weed (pollen every day) are at the 100th percentile; tree (none) is off_season,
        # which the sensor shows as unknown; nothing reaches its EAACI onset (mugwort 3.0 < 10,
        # ragweed 0.9 < 3, grass 0.47 < 3): no season start.
        "sensor.breezeom_brno_pollen_grass_percentile": "100",
        "sensor.breezeom_brno_pollen_weed_percentile": "100",
        "sensor.breezeom_brno_pollen_tree_percentile": "unknown",
        "sensor.breezeom_brno_pollen_weed_season_start": "unknown",
    }
    assert {e: state(hass, e) for e in expected} == expected
    assert "grains_per_m3" in hass.state("sensor.breezeom_brno_pollen_grass")["attributes"]


def test_pollen_card_attributes(hass, scenario):
    """SPEC §17 with Open-Meteo: the same shape as with Google, with Open-Meteo's attribution
    (which the pollen cards' Google detection does not match)."""
    icons = {"grass": "mdi:grass", "tree": "mdi:tree", "weed": "mdi:flower-tulip"}
    for item, icon in icons.items():
        attributes = hass.state("sensor.breezeom_brno_pollen_" + item)["attributes"]
        assert attributes["attribution"].startswith("Pollen data by Open-Meteo.com (CC BY 4.0"), attributes
        assert "pollen data from Google" not in attributes["attribution"]
        assert attributes["icon"] == icon and "code" not in attributes
        # Today plus three days from this source (never a d4).
        assert [d["offset"] for d in attributes["forecast"]] == [1, 2, 3], attributes["forecast"]
        for day in attributes["forecast"]:
            assert {"offset", "date", "has_index", "value", "category", "color_hex"} <= set(day), day
            assert day["has_index"] == (day["value"] is not None), day
    weed = hass.state("sensor.breezeom_brno_pollen_weed")["attributes"]["forecast"]
    # 2 October: mugwort 3.6 grains/m³ (Low); 4 October is beyond the 72 h series.
    assert (weed[0]["value"], weed[0]["category"], weed[2]["has_index"]) == (1, "Low", False), weed


def test_outside_europe_has_climate_only(hass, scenario):
    assert_entities(hass, "breezeom_new_york", location_entities(PREFIX, "new-york", climate=True))
    assert state(hass, "sensor.breezeom_new_york_climate_current") not in (None, "unknown", "unavailable")


def test_no_mqtt_warnings_or_errors(hass, scenario):
    settle(3)
    assert hass.mqtt_problems(scenario["since"]) == []
