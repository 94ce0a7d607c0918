"""Assertions shared by the scenarios: what Home Assistant shows for a device."""

import time

from conftest import SCENARIO_PROBLEMS
from harness import wait_for

VERSION = open(__import__("os").path.join(__import__("harness").ROOT, "VERSION")).read().strip()


def device_of(hass, device_id):
    for device in hass.device_registry():
        if ["mqtt", device_id] in device["identifiers"]:
            return device
    return None


def registry_of_device(hass, device):
    return {e["entity_id"]: e for e in hass.ws({"type": "config/entity_registry/list"})[0]
            if e["device_id"] == device["id"]}


UNSET = ("unknown", "unavailable", None)


def wait_for_entities(hass, device_id, expected, ready=(), timeout=60):
    """Waits until the device has exactly the expected entity ids, each enabled one is
    available, and the `ready` entities have a state (the agent's first publish arrived)."""
    want = {e.entity_id for e in expected}

    def complete():
        device = device_of(hass, device_id)
        if device is None:
            return False
        have = set(registry_of_device(hass, device))
        if have != want:
            return False
        states = hass.states()
        if any(states.get(e.entity_id, {}).get("state") in ("unavailable", None) for e in expected if e.enabled):
            return False
        return all(states.get(r, {}).get("state") not in UNSET for r in ready)

    try:
        wait_for("entities of %s" % device_id, complete, timeout=timeout, interval=1.0)
    except AssertionError as error:
        device = device_of(hass, device_id)
        have = set(registry_of_device(hass, device)) if device else set()
        states = hass.states()
        waiting = {e: states.get(e, {}).get("state") for e in list(ready) + [x.entity_id for x in expected if x.enabled]
                   if states.get(e, {}).get("state") in UNSET}
        raise AssertionError("%s; entities of %s: missing %s, unexpected %s, without state %s"
                             % (error, device_id, sorted(want - have), sorted(have - want), waiting))


def assert_entities(hass, device_id, expected):
    """Every expected entity exists with its unique id, device class, unit, state class,
    enabled default and category; nothing else belongs to the device."""
    device = device_of(hass, device_id)
    assert device is not None, "no device %s" % device_id
    registry = registry_of_device(hass, device)
    assert set(registry) == {e.entity_id for e in expected}
    extended = {e["entity_id"]: e for e in hass.ws(
        {"type": "config/entity_registry/get_entries", "entity_ids": sorted(registry)})[0].values()}
    states = hass.states()
    for e in expected:
        entry, ext = registry[e.entity_id], extended[e.entity_id]
        assert entry["platform"] == "mqtt", e.entity_id
        assert ext["unique_id"] == e.unique_id, e.entity_id
        assert entry["entity_category"] == e.category, e.entity_id
        assert entry["disabled_by"] == (None if e.enabled else "integration"), e.entity_id
        assert ext["original_device_class"] == e.device_class, e.entity_id
        capabilities = ext.get("capabilities") or {}
        assert capabilities.get("state_class") == e.state_class, e.entity_id
        if e.enabled:
            attributes = states[e.entity_id]["attributes"]
            assert attributes.get("device_class") == e.device_class, e.entity_id
            assert attributes.get("unit_of_measurement") == e.unit, e.entity_id
            assert attributes.get("state_class") == e.state_class, e.entity_id
    return device


def assert_device(hass, device_id, name):
    device = device_of(hass, device_id)
    assert device is not None, "no device %s" % device_id
    shown = {k: device[k] for k in ("name", "manufacturer", "model", "sw_version")}
    assert shown == {"name": name, "manufacturer": "breeze-agent", "model": "Pollen & climate agent",
                     "sw_version": VERSION}, "device %s: %r" % (device_id, shown)
    info = hass.ws({"type": "mqtt/device/debug_info", "device_id": device["id"]})[0]
    payloads = [entity["discovery_data"]["payload"] for entity in info["entities"]]
    assert payloads, "no discovery data for %s" % device_id
    for payload in payloads:
        origin = payload["origin"] if isinstance(payload, dict) else None
        assert origin is not None, payload
        assert origin["name"] == "breeze-agent" and origin["sw_version"] == VERSION, origin
        assert origin["support_url"].startswith("https://"), origin
    return device


def state(hass, entity_id):
    s = hass.state(entity_id)
    return None if s is None else s["state"]


def wait_state(hass, entity_id, want, timeout=30):
    return wait_for("%s == %r" % (entity_id, want), lambda: state(hass, entity_id) == want, timeout=timeout)


def wait_gone(hass, device_id, entities, timeout=30):
    """Waits until the enabled `entities` are gone from the states and the entity registry.

    Entities disabled by default (the plants) are never loaded, so Home Assistant 2026.2 does
    not act on a discovery removal for them: their registry entries stay until the device goes
    (or the user deletes them). Returns the entity ids of those left behind."""
    enabled = [e.entity_id for e in entities if e.enabled]

    def gone():
        device = device_of(hass, device_id)
        registry = registry_of_device(hass, device) if device else {}
        states = hass.states()
        return not any(e in registry or e in states for e in enabled)
    wait_for("entities of %s removed" % device_id, gone, timeout=timeout, interval=0.5)
    device = device_of(hass, device_id)
    registry = registry_of_device(hass, device) if device else {}
    return sorted(e.entity_id for e in entities if not e.enabled and e.entity_id in registry)


def record_problems(name, hass, since):
    """The scenario's WARNING/ERROR lines since its start, kept for the closing summary."""
    problems = hass.mqtt_problems(since)
    SCENARIO_PROBLEMS[name] = problems
    return problems


def agent_scenario(name, hass, agent, since, setup, settle_for=0):
    """A module's scenario fixture body (use with `yield from`): `setup()` waits until Home
    Assistant has what the tests need (a failure stops the agent: a failed setup must not leave
    it running), the tests get `{"agent", "since"}`, then the agent stops, after `settle_for`
    seconds for late messages, and its WARNING/ERROR lines since `since` are kept under `name`."""
    try:
        setup()
    except BaseException:
        agent.stop()
        raise
    yield {"agent": agent, "since": since}
    if settle_for:
        settle(settle_for)
    agent.stop()
    record_problems(name, hass, since)


def settle(seconds):
    """Lets late messages (state clears after a removal) reach Home Assistant before the log is read."""
    time.sleep(seconds)


def press_refresh(hass, api, button, kind, timeout=15):
    """Presses a refresh button until the agent fetches (`kind` requests reach the API stand-in):
    a press inside the agent's refresh cool-down (1 s in these tests) is skipped by design."""
    before = api.count(kind)

    def fetched():
        if api.count(kind) > before:
            return True
        hass.call("button", "press", {"entity_id": button})
        time.sleep(1.5)
        return api.count(kind) > before

    wait_for("%s to fetch %s" % (button, kind), fetched, timeout=timeout, interval=0.1)
