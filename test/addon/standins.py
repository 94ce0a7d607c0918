# SPDX-License-Identifier: Apache-2.0
"""Stand-ins for the add-on image test (scripts/test-addon-image.sh): a Home Assistant Supervisor
and the pollen/climate APIs, on loopback, in one process until SIGTERM.

The Supervisor is written from its documented API, as cited in docs/home-assistant.md ("Facts from
Home Assistant": [SV] home-assistant/supervisor 090ef31ec024, [DEV] developers.home-assistant
186ad063987c):
- every request must carry `Authorization: Bearer $SUPERVISOR_TOKEN` [DEV docs/apps/communication.md];
  an unknown token gets 401 [SV supervisor/api/proxy.py `_check_access`];
- `GET /services/mqtt` answers in the Supervisor's envelope `{"result": "ok", "data": {…}}`
  [SV supervisor/api/utils.py `api_return_ok`] with `host`, `port` (an integer, `network_port`),
  `ssl`, `protocol`, `username`, `password`, `addon` [SV supervisor/services/modules/mqtt.py];
- `GET /core/api/config` is Home Assistant's own `/api/config` passed through without the
  envelope [SV supervisor/api/proxy.py `api`; DEV docs/api/rest.md];
- the Supervisor writes the add-on's options, its defaults merged with what the user set, to
  `/data/options.json` as root with mode 0600 [SV supervisor/apps/app.py `write_options`].
The pollen and climate APIs are test/ha/fake_api.py's (the real fixtures, dates moved to today);
this machine has no Internet, so `advanced` always carries their `endpoints:`, as in
Tests/AgentIntegrationTests/AddonSupervisorTests.swift.

Environment: BREEZE_STANDIN_TOKEN (the token to require), BREEZE_STANDIN_MQTT_PASSWORD (the password
the Supervisor announces). Writes --state (JSON: the Supervisor's URL, its answers with the password
masked) once both servers listen, and one JSON line per Supervisor request to --requests.
"""

import argparse
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "ha"))
from fake_api import FakeAPI  # noqa: E402

# Home Assistant's /api/config as DEV docs/api/rest.md shows it; Berlin, named as a user would.
CORE_CONFIG = {
    "latitude": 52.52,
    "longitude": 13.405,
    "elevation": 34,
    "unit_system": {"length": "km", "mass": "g", "temperature": "°C", "volume": "L"},
    "location_name": "Zuhause",
    "time_zone": "Europe/Berlin",
    "components": ["hassio", "mqtt"],
    "version": "2026.11.3",
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--addon-config", required=True, help="ha-addon/breeze_agent/config.yaml")
    parser.add_argument("--data", required=True, help="the folder mounted as /data")
    parser.add_argument("--advanced", default="", help="YAML appended to `advanced` after the endpoints")
    parser.add_argument("--options", default="{}", help="JSON: options the user set (images, locations, …)")
    parser.add_argument("--mqtt-port", type=int, required=True)
    parser.add_argument("--state", required=True)
    parser.add_argument("--requests", required=True)
    args = parser.parse_args()
    token = os.environ["BREEZE_STANDIN_TOKEN"]
    password = os.environ["BREEZE_STANDIN_MQTT_PASSWORD"]

    api = FakeAPI()
    mqtt = {
        "addon": "core_mosquitto",
        "host": "127.0.0.1",
        "port": args.mqtt_port,
        "ssl": False,
        "protocol": "3.1.1",
        "username": "addons",
        "password": password,
    }
    answers = {
        "/services/mqtt": json.dumps({"result": "ok", "data": mqtt}).encode(),
        "/core/api/config": json.dumps(CORE_CONFIG, ensure_ascii=False).encode(),
    }
    log_lock = threading.Lock()
    requests_log = open(args.requests, "a", encoding="utf-8")

    class Supervisor(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            authorized = self.headers.get("Authorization") == f"Bearer {token}"
            if not authorized:
                status, body = 401, b"401: Unauthorized"
            elif self.path in answers:
                status, body = 200, answers[self.path]
            else:
                status, body = 404, b'{"result": "error", "message": "not found"}'
            self.send_response(status)
            self.send_header("Content-Type", "application/json" if status != 401 else "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            with log_lock:
                requests_log.write(json.dumps({"path": self.path, "authorized": authorized, "status": status}) + "\n")
                requests_log.flush()

        def log_message(self, *_):
            pass

    supervisor = ThreadingHTTPServer(("127.0.0.1", 0), Supervisor)
    supervisor.daemon_threads = True
    threading.Thread(target=supervisor.serve_forever, daemon=True).start()

    # options.json as the Supervisor writes it: config.yaml's defaults, then the user's options.
    with open(args.addon_config, encoding="utf-8") as f:
        options = dict(yaml.safe_load(f)["options"])
    options.update(json.loads(args.options))
    options["advanced"] = "\n".join(api.endpoints_yaml()) + "\n" + args.advanced
    path = os.path.join(args.data, "options.json")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(options, f)
    os.chmod(path, 0o600)

    masked = json.dumps({"result": "ok", "data": {**mqtt, "password": "***"}})
    state = {
        "supervisor_url": "http://127.0.0.1:%d" % supervisor.server_address[1],
        "api_base": api.base,
        "answers": {"/services/mqtt": masked, "/core/api/config": answers["/core/api/config"].decode()},
    }
    with open(args.state + ".tmp", "w", encoding="utf-8") as f:
        json.dump(state, f, ensure_ascii=False)
    os.replace(args.state + ".tmp", args.state)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    while not stop.wait(1):
        pass
    supervisor.shutdown()
    api.close()


if __name__ == "__main__":
    main()
