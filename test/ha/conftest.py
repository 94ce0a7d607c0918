"""Session parts of `make test-ha`: one broker, one API stand-in, one Home Assistant with the
MQTT integration set up through the REST config flow. Scenario modules start their own agents.

Environment (set by scripts/test-ha.sh): BREEZE_HA_TREE (the Debian 13 tree Home Assistant runs
in, with its venv at /opt/ha-venv), BREEZE_AGENT_BIN
(the release binary), BREEZE_HA_KEEP=1 keeps the work folder for reading the logs."""

import json
import os
import shutil
import tempfile

import pytest

from fake_api import FakeAPI
from harness import Broker, HomeAssistant

SCENARIO_PROBLEMS = {}


def pytest_terminal_summary(terminalreporter):
    import sys
    google = sys.modules.get("test_1_google")
    if google is not None and google.STATES:
        terminalreporter.write_sep("-", "Google scenario: the home device's entities and states")
        for entity_id, value in google.STATES.items():
            terminalreporter.write_line("%-52s %s" % (entity_id, value))
    if google is not None:
        terminalreporter.write_sep("-", "removals as Home Assistant handled them")
        for case, left in google.LEFT_BEHIND.items():
            terminalreporter.write_line("%s: disabled entities left in the registry: %d" % (case, len(left)))
        for case, count in google.HA_ECHO.items():
            terminalreporter.write_line("%s: Home Assistant's own cleanup warnings: %d" % (case, count))
    air = sys.modules.get("test_6_air")
    if air is not None and air.STATES:
        terminalreporter.write_sep("-", "air scenario: air-quality and risk entities and states")
        for entity_id, value in sorted(air.STATES.items()):
            terminalreporter.write_line("%-52s %s" % (entity_id, value))
    dashboards = sys.modules.get("test_8_dashboards")
    if dashboards is not None and dashboards.ATTRIBUTES:
        terminalreporter.write_sep("-", "dashboards scenario: pollen card attributes as Home Assistant reported them")
        # One type and one plant in full, the card attributes of the others.
        full = ("sensor.breeze_home_pollen_grass", "sensor.breeze_home_pollen_birch", "sensor.breeze_home_pollen_max",
                "sensor.breeze_home_pollen_air_out")
        for entity_id, attributes in dashboards.ATTRIBUTES.items():
            shown = attributes if entity_id in full else {
                k: attributes[k] for k in ("attribution", "icon", "code", "forecast") if k in attributes}
            terminalreporter.write_line("%s %s" % (entity_id, json.dumps(shown, ensure_ascii=False)))
    if dashboards is not None and dashboards.FIRED:
        terminalreporter.write_sep("-", "dashboards scenario: notifications the blueprint's automations created")
        for notification in dashboards.FIRED:
            terminalreporter.write_line(json.dumps(notification, ensure_ascii=False))
    if dashboards is not None and dashboards.SCREENSHOTS:
        terminalreporter.write_sep("-", "dashboards scenario: screenshots")
        for path in dashboards.SCREENSHOTS:
            terminalreporter.write_line(path)
    addon = sys.modules.get("test_9_addon")
    if addon is not None and addon.SHOWN:
        terminalreporter.write_sep("-", "add-on scenario (default options): the home device's entities and states")
        for entity_id, value in sorted(addon.SHOWN.items()):
            terminalreporter.write_line("%-52s %s" % (entity_id, value))
        terminalreporter.write_line("disabled by default, but enabled in an earlier scenario and restored so: %s"
                                    % (", ".join(sorted(addon.RESTORED)) or "none"))
        terminalreporter.write_line("enabled by default, but disabled in an earlier scenario and restored so: %s"
                                    % (", ".join(sorted(addon.RESTORED_DISABLED)) or "none"))
    dwd = sys.modules.get("test_9_dwd")
    if dwd is not None and dwd.CARD:
        terminalreporter.write_sep("-", "dwd scenario: pollenprognos-card's dwd adapter against Home Assistant")
        for (location, language), result in dwd.CARD.items():
            discovery = result["discovery"]
            terminalreporter.write_line("%s, %s: tier %s, regions %s" % (location, language, discovery["tier"], json.dumps(
                {key: value["label"] for key, value in discovery["locations"].items()}, ensure_ascii=False)))
            for sensor in result["sensors"]:
                terminalreporter.write_line("    %-48s %-9s %s" % (sensor["entity_id"], sensor["name"], json.dumps(
                    [[d["day"], d["state"], d["state_text"]] for d in sensor["days"]], ensure_ascii=False)))
    language = sys.modules.get("test_9_language")
    if language is not None and language.NAMES:
        terminalreporter.write_sep("-", "language scenario: the same entities in German, then in French")
        for entity_id, (german, french) in sorted(language.NAMES.items()):
            terminalreporter.write_line("%-52s %-44s %s" % (entity_id, german, french))
    if SCENARIO_PROBLEMS:
        terminalreporter.write_sep("-", "homeassistant.components.mqtt WARNING/ERROR lines per scenario")
        for name, lines in SCENARIO_PROBLEMS.items():
            terminalreporter.write_line("%-12s %d" % (name, len(lines)))
            for line in lines:
                terminalreporter.write_line("    " + line.replace("\n", "\n    "))


@pytest.fixture(scope="session")
def workdir():
    path = tempfile.mkdtemp(prefix="breeze-ha.")
    yield path
    if os.environ.get("BREEZE_HA_KEEP") == "1":
        print("\nwork folder kept: " + path)
    else:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def agent_bin():
    path = os.environ.get("BREEZE_AGENT_BIN", "")
    assert os.access(path, os.X_OK), "BREEZE_AGENT_BIN must name the release agent (got %r)" % path
    return path


@pytest.fixture(scope="session")
def broker(workdir):
    b = Broker(workdir)
    yield b
    b.close()


@pytest.fixture(scope="session")
def api():
    a = FakeAPI()
    yield a
    a.close()


@pytest.fixture(scope="session")
def hass(workdir, broker):
    tree = os.environ.get("BREEZE_HA_TREE", "")
    assert os.path.isfile(tree + HomeAssistant.HASS), "BREEZE_HA_TREE must name the Home Assistant tree (scripts/ha-setup.sh)"
    ha = HomeAssistant(tree, workdir)
    try:
        ha.start()
        ha.setup_mqtt(broker.port)
    except BaseException:
        ha.stop()  # a failed start must not leave Home Assistant running
        raise
    yield ha
    ha.stop()
