"""pollenprognos-card's own `dwd` adapter, run in node against Home Assistant states (issue 48,
SPEC §22 "The card's shape"): what the card would show for the DWD-shaped sensors.

The card's source and the harness that bundles it are not in this repository (test/ha/card/README.md
says where they come from and why). `card_dwd` returns None when either is missing, and
`card_unavailable()` names what is missing, for `pytest.skip`.

Environment: BREEZE_CARD_SRC, the card's source tree (a folder with src/adapters/dwd.ts or .js;
default /work/notes/dwd/card when present); BREEZE_CARD_HARNESS, the harness program (default
/work/notes/card-harness/card-dwd when present). The harness needs node and esbuild on PATH."""

import json
import os
import shutil
import subprocess

DEFAULT_SRC = "/work/notes/dwd/card"
DEFAULT_HARNESS = "/work/notes/card-harness/card-dwd"


def card_source():
    return os.environ.get("BREEZE_CARD_SRC") or DEFAULT_SRC


def card_harness():
    return os.environ.get("BREEZE_CARD_HARNESS") or DEFAULT_HARNESS


def card_unavailable():
    """None when the card can be run, else why not (a skip reason)."""
    src, harness = card_source(), card_harness()
    if not any(os.path.isfile(os.path.join(src, "src", "adapters", "dwd." + ext)) for ext in ("ts", "js")):
        return ("pollenprognos-card source not found at %s (set BREEZE_CARD_SRC; test/ha/card/README.md)"
                % src)
    if not os.access(harness, os.X_OK):
        return "card harness not found at %s (set BREEZE_CARD_HARNESS; test/ha/card/README.md)" % harness
    for tool in ("node", "esbuild"):
        if shutil.which(tool) is None:
            return "%s is not installed (the card harness needs node and Debian's esbuild)" % tool
    return None


def card_dwd(states, config=None, language="en", entities=None, devices=None):
    """What the card's `dwd` adapter returns for these states, or None when the card is unavailable.

    `states`: Home Assistant's states, the list of GET /api/states or a dict entity id -> state.
    `config`: card options over the adapter's stub config; pollen_threshold defaults to 0 here (the
    card's default 0.5 hides a sensor whose days are all below 0.5, i.e. most of the winter).
    `entities`/`devices`: hass.entities / hass.devices (empty by default: discovery then matches
    entity ids, the card's tier 3). Each call is a fresh `hass` (the card memoizes per object).

    Returns {"discovery": {"tier", "locations": {key: {"label", "entities": {allergen: entity id}}}},
    "sensors": [{"entity_id", "allergen", "name", "days": [{"day", "state", "display_state",
    "state_text"}]}], "card_config": {...}} in the card's order (sort value_descending by default)."""
    if card_unavailable() is not None:
        return None
    if isinstance(states, dict):
        states = list(states.values())
    request = {"states": states, "config": dict({"pollen_threshold": 0}, **(config or {})),
               "language": language, "entities": entities or {}, "devices": devices or {}}
    env = dict(os.environ, BREEZE_CARD_SRC=card_source(), TZ="Europe/Berlin")
    run = subprocess.run([card_harness()], input=json.dumps(request).encode(), env=env,
                         capture_output=True, timeout=120)
    if run.returncode != 0:
        raise AssertionError("card harness failed (%d): %s" % (run.returncode, run.stderr.decode(errors="replace")))
    return json.loads(run.stdout)


def card_days(result):
    """entity id -> [(day, state, display_state, state_text), ...] of a `card_dwd` result."""
    return {s["entity_id"]: [(d["day"], d["state"], d["display_state"], d["state_text"]) for d in s["days"]]
            for s in result["sensors"]}
