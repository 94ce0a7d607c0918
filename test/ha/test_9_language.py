"""Scenario "language": one key-free (Open-Meteo) location named first in German, then the agent
restarts in French (issue 51). Home Assistant must rename the entities and keep them: the same
entity ids and unique ids, no entity added or left behind, the states in English, no MQTT
warnings. The two entity lists are printed side by side (the closing summary shows them)."""

import re

import pytest

from checks import agent_scenario, device_of, registry_of_device, settle, state, wait_for, wait_for_entities
from expected import LEVEL_OPTIONS, location_entities
from harness import ROOT, Agent

PREFIX = "breezelang"
DEVICE = "breezelang_home"
TYPES = ["grass", "tree", "weed"]
PLANTS = ["alder", "birch", "olive", "graminales", "mugwort", "ragweed"]
# What the module saw, for the closing summary: entity id → (German name, French name).
NAMES = {}


def catalogue(language):
    """The agent's own catalogue (Sources/BreezeCore/Localization/Catalogue+<lang>.swift)."""
    path = "%s/Sources/BreezeCore/Localization/Catalogue+%s.swift" % (ROOT, language)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return {key: value.encode().decode("unicode_escape").encode("latin-1").decode("utf-8")
            for key, value in re.findall(r'"([a-z0-9_.]+)":\s*"((?:[^"\\]|\\.)*)"', text)}


def config(broker, api, language):
    return ["mqtt:", "  host: 127.0.0.1", "  port: %d" % broker.port, "  client_id: ha-test-language",
            "  topic_prefix: " + PREFIX, "  qos: 1", "language: " + language, "locations:",
            "  - id: home", "    name: München", "    latitude: 48.1", "    longitude: 11.6",
            "    timezone: Etc/GMT-2",
            "pollen:", "  source: open-meteo", "climate:", "  unit: celsius"] + api.endpoints_yaml()


def expected():
    return location_entities(PREFIX, "home", TYPES, PLANTS, indexed=PLANTS, hourly=True)


def snapshot(hass):
    """entity id → (unique id, registry original name, friendly name, state) for the device."""
    device = device_of(hass, DEVICE)
    registry = registry_of_device(hass, device)
    extended = {e["entity_id"]: e for e in hass.ws(
        {"type": "config/entity_registry/get_entries", "entity_ids": sorted(registry)})[0].values()}
    states = hass.states()
    out = {}
    for entity_id in registry:
        shown = states.get(entity_id, {})
        out[entity_id] = (extended[entity_id]["unique_id"], extended[entity_id].get("original_name"),
                          shown.get("attributes", {}).get("friendly_name"), shown.get("state"))
    return out


def everything_of_ours(hass):
    """Every registry entry of this scenario's unique ids, on any device or none (orphans)."""
    return {e["entity_id"]: e for e in hass.ws({"type": "config/entity_registry/list"})[0]
            if e["platform"] == "mqtt" and e.get("unique_id", "").startswith(DEVICE + "_")}


@pytest.fixture(scope="module")
def scenario(hass, broker, api, agent_bin, workdir):
    since = hass.log_offset()
    agent = Agent(agent_bin, workdir, "language", config(broker, api, "de"))
    def setup():
        wait_for_entities(hass, DEVICE, expected(), ready=["sensor.breezelang_home_pollen_grass_level",
                                                           "sensor.breezelang_home_climate_current"])
    yield from agent_scenario("language", hass, agent, since, setup, settle_for=3)


def test_german_then_french(hass, broker, api, scenario):
    de, fr = catalogue("de"), catalogue("fr")
    german = snapshot(hass)
    ids = set(german)
    assert ids == {e.entity_id for e in expected()}
    # German names as the catalogue gives them (Home Assistant prefixes the device's name).
    grass_level = "sensor.breezelang_home_pollen_grass_level"
    want = de["ha.item_level"].replace("{item}", de["plant.grass"])
    assert german[grass_level][1] == want, german[grass_level]
    assert german[grass_level][2] == "Breeze München " + want, german[grass_level]
    assert german["sensor.breezelang_home_pollen_alder"][1] == de["ha.item"].replace("{item}", "Erle")

    scenario["agent"].restart(config(broker, api, "fr"))
    want_fr = fr["ha.item_level"].replace("{item}", fr["plant.grass"])
    wait_for("the French names", lambda: (hass.state(grass_level) or {}).get("attributes", {}).get(
        "friendly_name") == "Breeze München " + want_fr, timeout=60)
    settle(3)
    french = snapshot(hass)
    for entity_id in sorted(ids):
        NAMES[entity_id] = (german[entity_id][2] or german[entity_id][1], french[entity_id][2] or french[entity_id][1])

    # The same entities, ids and unique ids: renamed, not replaced.
    assert set(french) == ids
    assert {e: v[0] for e, v in french.items()} == {e: v[0] for e, v in german.items()}
    assert set(everything_of_ours(hass)) == ids, "entities outside the device (orphans)"
    assert len([d for d in hass.device_registry() if ["mqtt", DEVICE] in d["identifiers"]]) == 1
    # Every enabled entity shows its French name; the states are the English ones.
    enabled = [e.entity_id for e in expected() if e.enabled]
    unchanged = [e for e in enabled if french[e][2] == german[e][2]]
    assert unchanged == [], "names that did not change: %s" % unchanged
    assert french["sensor.breezelang_home_pollen_alder"][2] == "Breeze München " + fr["ha.item"].replace(
        "{item}", fr["plant.alder"])
    assert state(hass, grass_level) in LEVEL_OPTIONS + ["unknown"]
    assert state(hass, "sensor.breezelang_home_pollen_trend") in ("rising", "falling", "steady", "unknown")
    # What the registry keeps as the entity's own name (shown where no state is loaded).
    stale = sorted(e for e in ids if french[e][1] == german[e][1])
    print("registry original_name not updated by the discovery update: %d of %d" % (len(stale), len(ids)))
    scenario["stale_original_names"] = stale


def test_after_home_assistant_restarts(hass, scenario):
    """A restart of Home Assistant loads the entities again: the names stay French, the ids the same."""
    before = snapshot(hass)
    hass.stop()
    hass.start()
    grass_level = "sensor.breezelang_home_pollen_grass_level"
    wait_for("entities back", lambda: state(hass, grass_level) not in (None, "unavailable"), timeout=90)
    after = snapshot(hass)
    assert set(after) == set(before)
    assert {e: v[0] for e, v in after.items()} == {e: v[0] for e, v in before.items()}
    assert {e: v[2] for e, v in after.items() if v[3] is not None} == {
        e: v[2] for e, v in before.items() if v[3] is not None and e in after and after[e][3] is not None}
    stale = sorted(e for e, v in after.items() if v[1] != before[e][1])
    print("registry original_name updated by the restart: %d" % len(stale))
    for entity_id, (german_name, french_name) in sorted(NAMES.items()):
        print("%-56s %-44s %s" % (entity_id, german_name, french_name))


def test_no_mqtt_warnings_or_errors(hass, scenario):
    settle(3)
    assert hass.mqtt_problems(scenario["since"]) == []
