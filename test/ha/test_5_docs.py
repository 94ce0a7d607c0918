"""docs/home-assistant.md against the entities Home Assistant showed in this run (expected.py,
which the scenarios above check against a real Home Assistant): the entity table lists exactly
the entities of a location, with the right kind; the automations are valid for Home Assistant."""

import os
import re

import pytest

from expected import PARTICULATE_UNIT, air_entities, location_entities
from harness import ROOT

DOC = os.path.join(ROOT, "docs", "home-assistant.md")
TYPES = ["grass", "tree", "weed"]


def doc_text():
    with open(DOC, encoding="utf-8") as f:
        return f.read()


def documented_entities():
    """One location's entities as the docs table shows them: the plant row names birch as its
    example (one plant stands for all), the profile rows name `anna`; with key-free pollen
    (the hourly rows, SPEC §20) in Germany (SPEC §22: the DWD's sensors for region 50, and the
    consensus of the items both sources carry, again with birch for the plants)."""
    return (location_entities("breeze", "home", TYPES, ["birch"], hourly=True, dwd_region=50,
                              consensus=TYPES + ["birch"])
            + air_entities("breeze", "home", ["anna"], hourly=True))


def resolve_short(first, short, known):
    """`…_us_aqi` after `sensor.breeze_home_air_european_aqi`: the ellipsis stands for a prefix of
    the row's first id up to an underscore (examples in parentheses, like the other plants, are
    not rows of their own); the longest such prefix naming a real entity wins.
    An id no prefix makes real stays as written (and fails the table check)."""
    cuts = [i for i, c in enumerate(first) if c == "_"]
    for cut in reversed(cuts):
        if first[:cut] + short in known:
            return first[:cut] + short
    return "…" + short


def repeated(entity_id, word):
    """The row's entity id for another type (`…_grass…`) or DWD species (`…_pollenflug_hasel_…`);
    the id itself when it names neither."""
    if "_pollenflug_hasel_" in entity_id:
        return entity_id.replace("_pollenflug_hasel_", "_pollenflug_%s_" % word)
    return entity_id.replace("_grass", "_" + word)


def table_rows():
    """(entity ids, kind, notes) of the table under "## Entities"."""
    known = {e.entity_id for e in documented_entities()}
    section = doc_text().split("## Entities", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        ids = re.findall(r"`((?:sensor|binary_sensor|button|select)\.[a-z0-9_]+)`", cells[0])
        ids += [resolve_short(ids[0], short, known) for short in re.findall(r"`…(_[a-z0-9_]+)`", re.sub(r"\(.*?\)", "", cells[0]))]
        # "(also `tree`, `weed`)" repeats the row for the other types, "(also `erle`, …)" a DWD
        # species' row for the other species.
        for other in re.findall(r"also ((?:`[a-z]+`,? ?)+)", cells[0]):
            for word in re.findall(r"`([a-z]+)`", other):
                ids += [repeated(i, word) for i in ids if repeated(i, word) != i]
        rows.append((ids, cells[1], cells[-1]))
    return rows


def test_entity_table_matches_the_entities():
    rows = table_rows()
    documented = {i for ids, _, _ in rows for i in ids}
    actual = {e.entity_id for e in documented_entities()}
    assert documented == actual, "docs: missing %s, not real %s" % (sorted(actual - documented),
                                                                    sorted(documented - actual))


def test_entity_table_kinds():
    kinds = {}
    for ids, kind, notes in table_rows():
        for i in ids:
            kinds[i] = (kind, notes)
    for e in documented_entities():
        kind, notes = kinds[e.entity_id]
        if e.device_class == "enum":
            assert "enum" in kind, e.entity_id
        if e.device_class == "temperature":
            assert "temperature (°C)" in kind, e.entity_id
        if e.device_class == "temperature_delta":
            assert "temperature delta" in kind, e.entity_id
        if e.device_class in ("aqi", "pm25", "pm10"):
            assert "`%s`" % e.device_class in kind, e.entity_id
        if e.unit == PARTICULATE_UNIT:
            assert "`%s`" % PARTICULATE_UNIT in kind, e.entity_id
        if e.unit == "UV index":
            assert "no device class" in kind and "UV index" in kind, e.entity_id
        if e.entity_id.startswith("binary_sensor.") and e.device_class is None:
            assert "no device class" in kind, e.entity_id
        if not e.enabled:
            assert "disabled by default" in notes, e.entity_id
        if e.category == "diagnostic":
            assert "diagnostic" in notes, e.entity_id


def automations():
    blocks = re.findall(r"```yaml\n(automation:\n.*?)```", doc_text(), re.S)
    assert blocks, "no automation examples in the docs"
    import yaml
    return [yaml.safe_load(b)["automation"][0] for b in blocks]


def test_automations_are_valid_home_assistant_config(hass):
    """The running Home Assistant validates each example's triggers, conditions and actions."""
    for automation in automations():
        result = hass.ws({"type": "validate_config", "triggers": automation["triggers"],
                          "conditions": automation.get("conditions", []), "actions": automation["actions"]})[0]
        assert all(part["valid"] for part in result.values()), (automation["alias"], result)


def test_pollen_warning_does_not_refire_after_restarts():
    warning = next(a for a in automations() if a["alias"] == "Pollen warning")
    trigger = warning["triggers"][0]
    assert set(trigger["not_from"]) >= {"unavailable", "unknown"}


def test_window_automation_fires_at_a_time():
    """A numeric_state trigger fires only when the value crosses the threshold, so with a
    time condition it misses a morning rise; the example must trigger on the time."""
    window = next(a for a in automations() if "window" in a["alias"])
    assert [t["trigger"] for t in window["triggers"]] == ["time"]
    assert any(c["condition"] == "numeric_state" for c in window["conditions"])
