"""Scenario "dwd" (SPEC §22, issue 48): two key-free German locations, Berlin (DWD region 50,
Brandenburg und Berlin, a region without partregions) and Munich (partregion 121, Allgäu/
Oberbayern/Bay. Wald), with the default pollen source: Open-Meteo plus the DWD's
Pollenflug-Gefahrenindex. The API stand-in serves the real DWD document issued today with the
rows of the two regions: Berlin's as they are, Munich's changed to every index string (the half
steps, the highest, and "-1", no data) so that the DWD and Open-Meteo disagree there.

Home Assistant must show, per location: the DWD-only plants (hazel, ash, rye) next to
Open-Meteo's; the eight sensors of pollenprognos-card's DWD shape,
`sensor.<p>_<loc>_pollenflug_<species>_<region>`, reading `<p>/<loc>/pollen/<id>/dwd`; per item
both sources carry a consensus level (the higher of the two) and a "sources disagree" binary
sensor; no MQTT warnings. When the card's source and harness are present (test/ha/card/README.md),
the card's own `dwd` adapter reads those sensors from this Home Assistant."""

import datetime
import json

import pytest

from card_harness import card_days, card_dwd, card_unavailable
from checks import agent_scenario, assert_device, assert_entities, registry_of_device, device_of, settle, state
from checks import wait_for_entities
from expected import DWD_ITEMS, DWD_SPECIES, LEVEL_OPTIONS, OPEN_METEO_ITEMS, consensus_items, location_entities
from fake_api import BERLIN, berlin_today
from harness import Agent
from test_card_dwd_unit import DAYS, LEVELS_EN

PREFIX = "breezedwd"
TYPES = ["grass", "tree", "weed"]
OPEN_METEO_PLANTS = [i for i in OPEN_METEO_ITEMS if i not in TYPES]
DWD_ONLY = [i for i in DWD_ITEMS if i not in TYPES and i not in OPEN_METEO_ITEMS]  # hazel, ash, rye
PLANTS = OPEN_METEO_PLANTS + DWD_ONLY
CONSENSUS = consensus_items(OPEN_METEO_ITEMS, DWD_ITEMS)
ATTRIBUTION = "Pollenflug-Gefahrenindex: Deutscher Wetterdienst (DWD), https://opendata.dwd.de"
# id -> (name, latitude, longitude, DWD region: DWDRegions.swift's nearest representative point,
# München itself for 121).
LOCATIONS = {"berlin": ("Berlin", "52.52", "13.405", 50), "munich": ("Munich", "48.14", "11.58", 121)}
# Munich's row, changed in the document's own strings (today, tomorrow, the day after).
MUNICH_DAYS = {"Hasel": ("2-3", "3", "-1"), "Erle": ("1-2", "2", "1"), "Esche": ("-1", "0-1", "0"),
               "Roggen": ("1", "-1", "0-1"), "Beifuss": ("0", "0-1", "1-2"), "Ambrosia": ("2", "2-3", "3")}
DAY_KEYS = ("today", "tomorrow", "dayafter_to")
# SPEC §22's table: the DWD's index string -> (its number, its words, our level).
INDEX = {"0": (0, "keine Belastung", "No pollen"), "0-1": (0.5, "keine bis geringe Belastung", "Low"),
         "1": (1, "geringe Belastung", "Low"), "1-2": (1.5, "geringe bis mittlere Belastung", "Moderate"),
         "2": (2, "mittlere Belastung", "Moderate"), "2-3": (2.5, "mittlere bis hohe Belastung", "High"),
         "3": (3, "hohe Belastung", "High")}
TYPE_MEMBERS = {"tree": ("hazel", "alder", "ash", "birch"), "grass": ("graminales", "rye"),
                "weed": ("mugwort", "ragweed")}
# What the module saw, for the closing note: the card's result per (location, language).
CARD = {}
# The stand-in's DWD requests before the scenario's agent started (other scenarios' agents ask too).
DWD_REQUESTS_BEFORE = []


def species_key(item):
    """The document's key of a DWD species item (`Graeser` for graminales)."""
    return DWD_SPECIES[item][0].capitalize()


def config(broker, api):
    lines = ["mqtt:", "  host: 127.0.0.1", "  port: %d" % broker.port, "  client_id: ha-test-dwd",
             "  topic_prefix: " + PREFIX, "  qos: 1", "locations:"]
    for loc, (name, lat, lon, _) in LOCATIONS.items():
        lines += ["  - id: " + loc, "    name: " + name, "    latitude: " + lat, "    longitude: " + lon,
                  "    timezone: Europe/Berlin"]
    # No pollen section: the default source (auto, no Google key) is Open-Meteo plus the DWD.
    return lines + ["climate:", "  unit: celsius"] + api.endpoints_yaml()


def device(loc):
    return "%s_%s" % (PREFIX, loc)


def dwd_row(api, loc):
    return api.dwd_row(LOCATIONS[loc][3])


def index_today(api, loc, item):
    return dwd_row(api, loc)["Pollen"][species_key(item)]["today"]


def indexed(api, loc):
    """The plants with an index today: Open-Meteo's (all, in the stand-in's response) and the
    DWD-only ones whose today is not "-1"."""
    return OPEN_METEO_PLANTS + [i for i in DWD_ONLY if index_today(api, loc, i) in INDEX]


def expected(api, loc):
    return location_entities(PREFIX, loc, TYPES, PLANTS, indexed=indexed(api, loc), hourly=True,
                             dwd_region=LOCATIONS[loc][3], consensus=CONSENSUS)


def pollenflug(loc, item):
    return "sensor.%s_pollenflug_%s_%s" % (device(loc), DWD_SPECIES[item][0], LOCATIONS[loc][3])


def dwd_payload(api, loc, item):
    """`<p>/<loc>/pollen/<id>/dwd` as the served row says: the DWD's number per day (null for no
    data), its words, the document's times in Berlin time."""
    row = dwd_row(api, loc)
    days = row["Pollen"][species_key(item)]
    numbers = [INDEX[days[d]][0] if days[d] in INDEX else None for d in DAY_KEYS]
    words = [INDEX[days[d]][1] if days[d] in INDEX else None for d in DAY_KEYS]
    issued = datetime.datetime.combine(berlin_today(), datetime.time(11), BERLIN)
    due = datetime.datetime.combine(berlin_today() + datetime.timedelta(days=1), datetime.time(11), BERLIN)
    name = row["region_name"] + (": " + row["partregion_name"] if row["partregion_id"] != -1 else "")
    return {"species": species_key(item), "region_id": LOCATIONS[loc][3], "region_name": name,
            "state_today": numbers[0], "state_tomorrow": numbers[1], "state_in_2_days": numbers[2],
            "state_today_desc": words[0], "state_tomorrow_desc": words[1], "state_in_2_days_desc": words[2],
            "last_update": issued.isoformat(), "next_update": due.isoformat(), "stale": False,
            "attribution": ATTRIBUTION}


def shown(number):
    """A DWD number as Home Assistant shows the state: 0.5, 1 (not 1.0), unknown for null."""
    if number is None:
        return "unknown"
    return str(int(number)) if number == int(number) else str(number)


def dwd_level(api, loc, item):
    """The DWD's level of an item today: a plant's by §22's table, a type's the highest of its
    known members; None when nothing is known."""
    members = TYPE_MEMBERS.get(item, (item,))
    known = [INDEX[index_today(api, loc, m)][2] for m in members if index_today(api, loc, m) in INDEX]
    return max(known, key=LEVEL_OPTIONS.index) if known else None


@pytest.fixture(scope="module")
def scenario(hass, broker, api, agent_bin, workdir):
    api.dwd_regions |= {region for _, _, _, region in LOCATIONS.values()}
    api.dwd_edits[LOCATIONS["munich"][3]] = {
        species: dict(zip(DAY_KEYS, days)) for species, days in MUNICH_DAYS.items()}
    since = hass.log_offset()
    DWD_REQUESTS_BEFORE[:] = [api.count("dwd")]
    agent = Agent(agent_bin, workdir, "dwd", config(broker, api))

    def setup():
        for loc in LOCATIONS:
            wait_for_entities(hass, device(loc), expected(api, loc), ready=[
                pollenflug(loc, "hazel"), "sensor.%s_pollen_tree_consensus" % device(loc),
                "sensor.%s_pollen_hazel" % device(loc), "sensor.%s_climate_current" % device(loc)])
    try:
        yield from agent_scenario("dwd", hass, agent, since, setup, settle_for=3)
    finally:
        api.dwd_regions.clear()
        api.dwd_edits.clear()


def test_device_and_entities(hass, api, scenario):
    for loc, (name, _, _, _) in LOCATIONS.items():
        assert_device(hass, device(loc), "Breeze " + name)
        assert_entities(hass, device(loc), expected(api, loc))


def test_pollenflug_names(hass, scenario):
    """"Pollenflug Hasel" … in every language (the card shows the species from the entity id)."""
    for loc, (name, _, _, _) in LOCATIONS.items():
        registry = registry_of_device(hass, device_of(hass, device(loc)))
        extended = hass.ws({"type": "config/entity_registry/get_entries",
                            "entity_ids": [pollenflug(loc, i) for i in DWD_SPECIES]})[0]
        for item, (_, german) in DWD_SPECIES.items():
            entity_id = pollenflug(loc, item)
            assert entity_id in registry
            assert extended[entity_id]["original_name"] == "Pollenflug " + german, extended[entity_id]
            assert hass.state(entity_id)["attributes"]["friendly_name"] == "Breeze %s Pollenflug %s" % (name, german)


def test_dwd_topics_say_what_the_document_says(broker, api, scenario):
    for loc in LOCATIONS:
        for item in DWD_SPECIES:
            topic = "%s/%s/pollen/%s/dwd" % (PREFIX, loc, item)
            payload = broker.retained(topic)
            assert payload is not None, "nothing retained on " + topic
            assert json.loads(payload) == dwd_payload(api, loc, item), topic
            # Whole numbers without ".0" (the card and templates compare states as text).
            assert ".0," not in payload and ".0}" not in payload, payload


def test_pollenflug_states_and_attributes(hass, api, scenario):
    for loc in LOCATIONS:
        for item in DWD_SPECIES:
            entity_id = pollenflug(loc, item)
            want = dwd_payload(api, loc, item)
            got = hass.state(entity_id)
            assert got["state"] == shown(want["state_today"]), (entity_id, got["state"], want)
            attributes = got["attributes"]
            assert set(want) <= set(attributes), (entity_id, sorted(set(want) - set(attributes)))
            assert {k: attributes[k] for k in want} == want, entity_id
            assert attributes["state_class"] == "measurement", entity_id
    # The served rows reach every kind of state: zero, a half step, a whole number, no data.
    states = {state(hass, pollenflug(loc, i)) for loc in LOCATIONS for i in DWD_SPECIES}
    assert {"0", "0.5", "1", "1.5", "2", "2.5", "unknown"} <= states, states


def test_dwd_only_plants(hass, api, scenario):
    """Hazel, ash and rye come from the DWD alone: their sensors exist, enabled when today has an
    index (Munich's ash has "-1": disabled), with §22's value and level."""
    values = {"0": 0, "0-1": 1, "1": 1, "1-2": 2, "2": 3, "2-3": 4, "3": 4}
    for loc in LOCATIONS:
        for item in DWD_ONLY:
            index = index_today(api, loc, item)
            entity_id = "sensor.%s_pollen_%s" % (device(loc), item)
            if index not in INDEX:
                assert hass.state(entity_id) is None, entity_id  # disabled by default: no state
                continue
            got = hass.state(entity_id)
            assert got["state"] == str(values[index]), entity_id
            assert (got["attributes"].get("source"), got["attributes"].get("dwd_index")) == ("dwd", index), entity_id
            assert state(hass, entity_id + "_level") == INDEX[index][2], entity_id


def test_consensus_is_the_higher_level(hass, broker, api, scenario):
    """Per item both sources carry: the consensus level is the higher of Open-Meteo's (its own
    level sensor: Open-Meteo is the first source) and the DWD's (§22's table on the served row);
    the sources disagree when the two known levels differ. Types in Home Assistant; plants
    (disabled by default) on their topics."""
    seen = set()
    for loc in LOCATIONS:
        for item in CONSENSUS:
            open_meteo = state(hass, "sensor.%s_pollen_%s_level" % (device(loc), item))
            assert open_meteo in LEVEL_OPTIONS + ["unknown"], (loc, item, open_meteo)
            known = [level for level in (None if open_meteo == "unknown" else open_meteo, dwd_level(api, loc, item))
                     if level is not None]
            want = max(known, key=LEVEL_OPTIONS.index) if known else "unknown"
            agree = len(set(known)) <= 1
            topic = "%s/%s/pollen/%s/consensus" % (PREFIX, loc, item)
            consensus = json.loads(broker.retained(topic))
            sources = json.loads(broker.retained("%s/%s/pollen/%s/sources" % (PREFIX, loc, item)))
            assert list(sources) == ["open-meteo", "dwd"], sources
            if item not in TYPES:
                assert sources["dwd"]["dwd_index"] == index_today(api, loc, item), (loc, item, sources)
            on_topic = {"None": "No pollen", "Unknown": "unknown"}.get(broker.retained(topic + "/level"))
            on_topic = on_topic or broker.retained(topic + "/level")
            assert (on_topic, consensus["agree"], consensus["count"], consensus["of"]) == (
                want, agree, len(known), 2), (loc, item, open_meteo, dwd_level(api, loc, item), consensus)
            seen.add(agree)
            if item in TYPES:
                sensor = "sensor.%s_pollen_%s_consensus" % (device(loc), item)
                got = hass.state(sensor)
                assert got["state"] == want, (sensor, got["state"], want)
                assert got["attributes"]["options"] == LEVEL_OPTIONS
                assert {k: got["attributes"].get(k) for k in consensus} == consensus, sensor
                disagree = "binary_sensor.%s_pollen_%s_disagree" % (device(loc), item)
                assert state(hass, disagree) == ("off" if agree else "on"), disagree
            print("%-7s %-11s open-meteo %-9s dwd %-9s consensus %-9s agree %s" % (
                loc, item, open_meteo, dwd_level(api, loc, item), want, agree))
    assert seen == {True, False}, "the served rows should make the sources agree somewhere and disagree elsewhere"


def card_registries(hass):
    """hass.entities and hass.devices as the frontend has them (the fields the card reads)."""
    entities = {e["entity_id"]: {"entity_id": e["entity_id"], "device_id": e["device_id"], "platform": e["platform"],
                                 "entity_category": e["entity_category"], "hidden": bool(e.get("hidden_by"))}
                for e in hass.ws({"type": "config/entity_registry/list"})[0]}
    devices = {d["id"]: {"id": d["id"], "name": d["name"], "name_by_user": d["name_by_user"],
                         "identifiers": d["identifiers"], "config_entries": d["config_entries"]}
               for d in hass.device_registry()}
    return entities, devices


def card_expected(broker, loc, language):
    """What the card must read for each DWD sensor: from the topics, every day with data, the
    number, twice it, and the card's level name (English) or the DWD's words (German)."""
    out = {}
    for item in DWD_SPECIES:
        payload = json.loads(broker.retained("%s/%s/pollen/%s/dwd" % (PREFIX, loc, item)))
        days = []
        for offset, key in enumerate(("state_today", "state_tomorrow", "state_in_2_days")):
            number = payload[key]
            if number is None:
                continue
            text = LEVELS_EN[int(number * 2)] if language == "en" else payload[key + "_desc"]
            days.append((DAYS[language][offset], number, number * 2, text))
        out[pollenflug(loc, item)] = days
    return out


@pytest.mark.skipif(card_unavailable() is not None, reason=str(card_unavailable()))
@pytest.mark.parametrize("language", ["en", "de"])
def test_card_reads_the_sensors(hass, broker, scenario, language):
    """pollenprognos-card's own `dwd` adapter against this Home Assistant's states and registries:
    it finds the eight sensors of each region by their entity ids and reads today, tomorrow and
    the day after exactly as the topics say. Other scenarios' DWD-shaped sensors are left out (a
    location of theirs in region 50 would be a second location the card keys the same)."""
    ours = {pollenflug(loc, i) for loc in LOCATIONS for i in DWD_SPECIES}
    states = [s for s in hass.get("/api/states") if "_pollenflug_" not in s["entity_id"] or s["entity_id"] in ours]
    entities, devices = card_registries(hass)
    for loc, (_, _, _, region) in LOCATIONS.items():
        result = card_dwd(states, {"region_id": str(region)}, language=language, entities=entities, devices=devices)
        locations = result["discovery"]["locations"]
        assert {key: set(value["entities"].values()) for key, value in locations.items()} == {
            str(LOCATIONS[other][3]): {pollenflug(other, i) for i in DWD_SPECIES} for other in LOCATIONS}
        days = card_days(result)
        assert days == card_expected(broker, loc, language), loc
        CARD[(loc, language)] = result
        print("card %s, region_id %s (tier %s, label %r):" % (language, region, result["discovery"]["tier"],
                                                             locations[str(region)]["label"]))
        for sensor in result["sensors"]:
            print("  %-48s %-10s %s" % (sensor["entity_id"], sensor["name"], json.dumps(
                [(d["day"], d["state"], d["state_text"]) for d in sensor["days"]], ensure_ascii=False)))


def test_one_request_for_both_locations(api, scenario):
    """One document serves every German location of the agent."""
    assert api.count("dwd") - DWD_REQUESTS_BEFORE[0] == 1


def test_no_mqtt_warnings_or_errors(hass, scenario):
    settle(3)
    assert hass.mqtt_problems(scenario["since"]) == []
