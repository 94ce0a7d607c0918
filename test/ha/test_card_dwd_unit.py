"""The card harness without Home Assistant (issue 48, point 5; SPEC §22 "The card's shape"):
pollenprognos-card's own `dwd` adapter (test/ha/card_harness.py) against states shaped as
mampfes/hacs_dwd_pollenflug gives them (state = DWD number 0-3 in half steps, attributes
state_tomorrow, state_in_2_days, state_*_desc, last_update, next_update) under this agent's entity
ids `sensor.<prefix>_<location>_pollenflug_<species>_<region>`, next to unrelated breeze entities.

No Home Assistant is started (no fixture of conftest.py is used); the module skips, naming what is
missing, when the card's source or the harness is not available (test/ha/card/README.md)."""

import pytest

from card_harness import card_days, card_dwd, card_unavailable

pytestmark = pytest.mark.skipif(card_unavailable() is not None, reason=str(card_unavailable()))

SPECIES = ["hasel", "erle", "esche", "birke", "graeser", "roggen", "beifuss", "ambrosia"]
# DWD's legend (s31fg.json "legend"), keyed by mampfes' number for the index ("1-2" -> 1.5).
LEGEND = {0: "keine Belastung", 0.5: "keine bis geringe Belastung", 1: "geringe Belastung",
          1.5: "geringe bis mittlere Belastung", 2: "mittlere Belastung", 2.5: "mittlere bis hohe Belastung",
          3: "hohe Belastung"}
# The card's English level names (card.levels.0..6) and day labels (card.days.0..2); the adapter
# doubles the DWD number onto these seven names.
LEVELS_EN = ["No pollen", "Low levels", "Low–moderate levels", "Moderate levels", "Moderate–high levels",
             "High levels", "Very high levels"]
DAYS = {"en": ["Today", "Tomorrow", "Day after tomorrow"], "de": ["Heute", "Morgen", "Übermorgen"]}
NAMES_DE = {"hasel": "Hasel", "erle": "Erle", "esche": "Esche", "birke": "Birke", "graeser": "Gräser",
            "roggen": "Roggen", "beifuss": "Beifuß", "ambrosia": "Ambrosia"}
UNAVAILABLE = "unavailable"

# Today, tomorrow, the day after; None = no data for that day (the state is then "unknown" today,
# the attribute null later). UNAVAILABLE: the entity is unavailable (no attributes at all).
BERLIN = {"hasel": (2.5, 3, 2), "erle": (1, 1.5, None), "esche": (0, 0.5, 1), "birke": (0, 0, 0),
          "graeser": (None, 0.5, None), "roggen": UNAVAILABLE, "beifuss": (0.5, 0, None),
          "ambrosia": (3, 2.5, 1.5)}
MUNICH = {"hasel": (1, 1, 0.5), "erle": (0.5, 0, 0), "esche": (0, 0, 0), "birke": (0, 0, 0),
          "graeser": (0, 0, 0), "roggen": (0, 0, 0), "beifuss": (0, 0, 0), "ambrosia": (0, 0, 0)}


def number(value):
    """How Home Assistant shows the number as a state: 2 -> "2", 2.5 -> "2.5"."""
    return str(int(value)) if value == int(value) else str(value)


def dwd_states(prefix, location, region, values):
    """The eight DWD-shaped sensors of one location, as GET /api/states items."""
    out = []
    for species in SPECIES:
        entity_id = "sensor.%s_%s_pollenflug_%s_%s" % (prefix, location, species, region)
        base = {"friendly_name": "%s Pollenflug %s %s" % (location.title(), species, region),
                "icon": "mdi:flower-pollen"}
        v = values[species]
        if v == UNAVAILABLE:
            out.append({"entity_id": entity_id, "state": "unavailable", "attributes": base})
            continue
        today, tomorrow, dayafter = v
        attributes = dict(base, state_class="measurement",
                          state_tomorrow=tomorrow, state_in_2_days=dayafter,
                          state_today_desc=LEGEND.get(today), state_tomorrow_desc=LEGEND.get(tomorrow),
                          state_in_2_days_desc=LEGEND.get(dayafter),
                          last_update="2026-03-02T11:00:00+01:00", next_update="2026-03-03T11:00:00+01:00")
        out.append({"entity_id": entity_id, "state": "unknown" if today is None else number(today),
                    "attributes": attributes})
    return out


def other_breeze_states(prefix, location):
    """Entities of the same agent the card must not take for DWD sensors."""
    ids = ["sensor.%s_%s_pollen_hazel", "sensor.%s_%s_pollen_tree", "sensor.%s_%s_pollen_tree_all_sources",
           "binary_sensor.%s_%s_pollen_tree_sources_disagree", "sensor.%s_%s_temperature",
           "sensor.%s_%s_pollenflug_hasel",             # no region
           "binary_sensor.%s_%s_pollenflug_hasel_50",   # not a sensor
           "sensor.%s_%s_pollen_hazel_dwd_50"]          # no "pollenflug"
    return [{"entity_id": i % (prefix, location), "state": "Low", "attributes": {}} for i in ids]


def expected_days(values, language="en"):
    """entity days as the card must read them: one entry per day with data, the number, twice it,
    and the level name of twice it."""
    if values == UNAVAILABLE:
        return []
    out = []
    for offset, v in enumerate(values):
        if v is None:
            continue
        text = LEVELS_EN[int(v * 2)] if language == "en" else LEGEND[v]
        out.append((DAYS[language][offset], v, v * 2, text))
    return out


def ids(prefix, location, region):
    return {s: "sensor.%s_%s_pollenflug_%s_%s" % (prefix, location, s, region) for s in SPECIES}


def test_one_location_all_eight_species_read_exactly():
    states = other_breeze_states("breeze", "berlin") + dwd_states("breeze", "berlin", 50, BERLIN)
    result = card_dwd(states)
    assert result["discovery"] == {"tier": 3, "locations": {
        "50": {"label": "Brandenburg und Berlin", "entities": ids("breeze", "berlin", 50)}}}
    days = card_days(result)
    assert set(days) == set(ids("breeze", "berlin", 50).values())
    for species, eid in ids("breeze", "berlin", 50).items():
        assert days[eid] == expected_days(BERLIN[species]), eid


def test_german_level_names_are_dwd_descriptions():
    states = dwd_states("breeze", "berlin", 50, BERLIN)
    result = card_dwd(states, language="de")
    names = {s["allergen"]: s["name"] for s in result["sensors"]}
    assert names == NAMES_DE
    days = card_days(result)
    for species, eid in ids("breeze", "berlin", 50).items():
        assert days[eid] == expected_days(BERLIN[species], "de"), eid


@pytest.mark.parametrize("region_id, location, region", [("50", "berlin", 50), ("121", "munich", 121),
                                                          ("", "berlin", 50)])
def test_two_locations_region_id_chooses(region_id, location, region):
    """Two locations in different regions; region_id "" takes the lowest region number."""
    states = (other_breeze_states("breeze", "munich") + dwd_states("breeze", "munich", 121, MUNICH)
              + dwd_states("breeze", "berlin", 50, BERLIN) + other_breeze_states("breeze", "berlin"))
    result = card_dwd(states, {"region_id": region_id})
    locations = result["discovery"]["locations"]
    assert {k: v["label"] for k, v in locations.items()} == {"50": "Brandenburg und Berlin", "121": "Bayern"}
    values = BERLIN if location == "berlin" else MUNICH
    days = card_days(result)
    assert set(days) == set(ids("breeze", location, region).values())
    for species, eid in ids("breeze", location, region).items():
        assert days[eid] == expected_days(values[species]), eid


def test_two_locations_in_one_region_show_the_first_listed():
    """The card keys DWD sensors by region: of two locations in region 50 it shows the sensors of
    the one whose states come first (the same DWD numbers, since the region is the same)."""
    states = dwd_states("breeze", "potsdam", 50, BERLIN) + dwd_states("breeze", "berlin", 50, BERLIN)
    result = card_dwd(states, {"region_id": "50"})
    assert result["discovery"]["locations"]["50"]["entities"] == ids("breeze", "potsdam", 50)
    assert set(card_days(result)) == set(ids("breeze", "potsdam", 50).values())
