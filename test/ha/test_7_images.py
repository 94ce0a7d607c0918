"""Scenario "images": a climate-only location with two rendered images (SPEC §9.2), a PNG and a
JPEG, against a real Home Assistant: each is an MQTT `image` entity of the location's device, and
the picture Home Assistant serves is byte for byte the one on `<p>/<loc>/image/<id>`, with the
image's content type. Needs the render helper next to the release agent (`swift build -c release`
builds it)."""

import subprocess
import urllib.request

import pytest

from checks import agent_scenario, assert_device, assert_entities, settle, state, wait_for_entities
from expected import Entity, location_entities
from harness import Agent, wait_for

PREFIX = "breezeimg"
LAT, LON = "47.37", "8.54"
DEVICE = "breezeimg_zurich"
IMAGES = {"wall": ("png", "image/png"), "tag": ("jpeg", "image/jpeg")}


def config(broker, api):
    return ["mqtt:", "  host: 127.0.0.1", "  port: %d" % broker.port, "  client_id: ha-test-images",
            "  topic_prefix: " + PREFIX, "  qos: 1", "locations:",
            "  - id: zurich", "    name: Zurich", "    latitude: " + LAT, "    longitude: " + LON,
            "    timezone: UTC",
            "pollen:", "  enabled: false", "climate:", "  unit: celsius",
            "images:",
            "  - {id: wall, kind: climate, width: 400, height: 300, palette: color, format: png}",
            "  - {id: tag, kind: climate, width: 296, height: 128, palette: bwr, format: jpeg}",
            ] + api.endpoints_yaml()


def entities():
    device = DEVICE
    images = [Entity("image.%s_image_%s" % (device, name), "%s_image_%s" % (device, name)) for name in IMAGES]
    return location_entities(PREFIX, "zurich", climate=True) + images


def retained_bytes(broker, topic):
    """The retained payload of `topic` as bytes (mosquitto_sub -N: no newline added)."""
    out = subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-t", topic, "-C", "1",
                          "-W", "3", "-N", "--retained-only"], capture_output=True)
    assert out.returncode == 0 and out.stdout, (topic, out.returncode, out.stderr)
    return out.stdout


def image_proxy(hass, entity_id):
    """What Home Assistant serves for an image entity: (content type, bytes)."""
    req = urllib.request.Request(hass.base + "/api/image_proxy/" + entity_id)
    req.add_header("Authorization", "Bearer " + hass.token)
    with urllib.request.urlopen(req, timeout=30) as response:
        return response.headers.get("Content-Type"), response.read()


@pytest.fixture(scope="module")
def scenario(hass, broker, api, agent_bin, workdir):
    since = hass.log_offset()
    agent = Agent(agent_bin, workdir, "images", config(broker, api))
    def setup():
        wait_for_entities(hass, DEVICE, entities(), ready=[
            "sensor.breezeimg_zurich_climate_current"] + ["image.%s_image_%s" % (DEVICE, n) for n in IMAGES],
            timeout=90)
    yield from agent_scenario("images", hass, agent, since, setup, settle_for=3)


def test_device_and_entities(hass, scenario):
    assert_device(hass, DEVICE, "Breeze Zurich")
    assert_entities(hass, DEVICE, entities())


def test_discovery_payload_of_the_image_entities(hass, scenario):
    device = assert_device(hass, DEVICE, "Breeze Zurich")
    info = {e["entity_id"]: e for e in hass.ws({"type": "mqtt/device/debug_info", "device_id": device["id"]})[0]["entities"]}
    for name, (_, content_type) in IMAGES.items():
        payload = info["image.%s_image_%s" % (DEVICE, name)]["discovery_data"]["payload"]
        # Home Assistant takes `platform` out of the component (the entity id's `image.` shows it).
        assert payload["image_topic"] == "%s/zurich/image/%s" % (PREFIX, name), payload
        assert payload["content_type"] == content_type, payload
        assert "image_encoding" not in payload and "url_topic" not in payload, payload


def test_home_assistant_serves_the_published_image(hass, scenario, broker):
    for name, (fmt, content_type) in IMAGES.items():
        entity_id = "image.%s_image_%s" % (DEVICE, name)
        published = retained_bytes(broker, "%s/zurich/image/%s" % (PREFIX, name))
        if fmt == "png":
            assert published.startswith(b"\x89PNG\r\n\x1a\n")
        else:
            assert published.startswith(b"\xff\xd8\xff")
        assert len(published) <= 256 * 1024
        served = wait_for("%s served" % entity_id, lambda: image_proxy(hass, entity_id), timeout=30)
        assert served[0] == content_type, served[0]
        assert served[1] == published, (entity_id, len(served[1]), len(published))
        assert state(hass, entity_id) not in (None, "unknown", "unavailable")


def test_no_mqtt_warnings_or_errors(hass, scenario):
    settle(3)
    assert hass.mqtt_problems(scenario["since"]) == []
