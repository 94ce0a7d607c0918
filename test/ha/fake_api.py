"""A loopback stand-in for the Google Pollen and Open-Meteo APIs, serving the real fixtures.

Google answers with the real 5-day response (shared fixtures, copied to
Tests/CoreTests/Fixtures) whose dates are moved to today; per location (keyed by latitude) a
scenario may edit today's index values in the response's own format (a zero index is an
`indexInfo` without `value`, as proto3 JSON omits zeros). Open-Meteo air quality answers with
the real Brno response (in Europe) or the real New York one (outside Europe: every pollen value
null), their hours moved to today. Open-Meteo climate answers in the daily format of the real
archive/forecast responses, with chosen years null. A location can be switched to "unsupported"
(Google's and Open-Meteo's real HTTP 400 bodies) or to failing (HTTP 503). An air-quality request
for the indexes (`hourly=european_aqi,…`, SPEC §10.1) gets today's 24 hours (UTC) in the server's
compact format (as Tests/CoreTests/Fixtures/air/), each value a function of the hour
(`air_hour`), so a test knows what the current hour's values are.

The DWD's pollen document (`<base>/dwd/climate_environment/health/alerts/s31fg.json`, SPEC §22)
is the real one (Tests/CoreTests/Fixtures/thorin-eifel-maps__dwd_s31fg.json) issued today at
11:00 Berlin time, next due tomorrow at 11:00, with only the rows of `dwd_regions` (keys as
`dwd_region` takes them: the partregion id, or the region id where the partregion is -1). With
no region asked for it still has one row, of a region no test uses (Schleswig-Holstein's
islands): the agent refuses a document without rows, and a German location of another scenario
must see a valid document that does not cover it. `dwd_edits` changes a row's days in the
document's own strings ("0-1", "-1").
"""

import copy
import datetime
import json
import os
import threading
import zoneinfo
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "Tests/CoreTests/Fixtures")
GOOGLE_FIXTURE = os.path.join(FIXTURES, "eXPerience83-pollenlevels__google_pollen_forecast_5_days.es.json")
AIR_EUROPE_FIXTURE = os.path.join(FIXTURES, "Vybo-reflbo__air_brno_2026-10-01.json")
AIR_OUTSIDE_FIXTURE = os.path.join(FIXTURES, "Vybo-reflbo__air_new_york_2026-10-01.json")
DWD_FIXTURE = os.path.join(FIXTURES, "thorin-eifel-maps__dwd_s31fg.json")
DWD_PATH = "/dwd/climate_environment/health/alerts/s31fg.json"
# The row served when no scenario asks for a region: no test location is in it.
DWD_UNUSED_REGION = 11
BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")

# The real error bodies (shared fixtures: google-pollen/observed-error-bodies.md, POLLEN-KEYFREE.md).
GOOGLE_UNSUPPORTED = (b'{\n  "error": {\n    "code": 400,\n    "message": "Information is unavailable for '
                      b'this location. Please try a different location.",\n    "status": "INVALID_ARGUMENT"\n  }\n}\n')
OPEN_METEO_UNSUPPORTED = b'{"error":true,"reason":"No data is available for this location"}'


def today():
    return datetime.datetime.now(datetime.timezone.utc).date()


def berlin_today():
    return datetime.datetime.now(BERLIN).date()


def dwd_key(row):
    """The key `dwd_region` takes for a row of the DWD document."""
    return row["region_id"] if row["partregion_id"] == -1 else row["partregion_id"]


def climate_celsius(year):
    """A plausible daily maximum per year, in tenths (the API gives one decimal)."""
    return 118 + (year - 1980) * 3 // 10 + (year * 7) % 11 - 5


def air_hour(hour):
    """The served values of one UTC hour: european_aqi, us_aqi (whole numbers), pm2_5, pm10 and
    uv_index in tenths (the API's one decimal). UV is zero at night and peaks at 7.4 at 13:00."""
    return {
        "european_aqi": 12 + hour * 3,
        "us_aqi": 25 + hour * 6,
        "pm2_5": 31 + hour * 7,
        "pm10": 88 + hour * 11,
        "uv_index": max(0, 74 - 6 * (hour - 13) ** 2) if 6 <= hour <= 20 else 0,
    }


def tenths_text(tenths):
    return "%d.%d" % (tenths // 10, tenths % 10)


class FakeAPI:
    def __init__(self):
        with open(GOOGLE_FIXTURE, encoding="utf-8") as f:
            self.google = json.load(f)
        with open(AIR_EUROPE_FIXTURE, encoding="utf-8") as f:
            self.air_europe = json.load(f)
        with open(AIR_OUTSIDE_FIXTURE, encoding="utf-8") as f:
            self.air_outside = json.load(f)
        with open(DWD_FIXTURE, encoding="utf-8") as f:
            self.dwd = json.load(f)
        self.lock = threading.Lock()
        # Per latitude (the fixture's string form, as the agent sends it): what to answer.
        self.google_today = {}      # lat -> {code: value or None (no indexInfo) or 0 (no value)}
        self.unsupported = set()    # lat
        self.failing = set()        # lat: HTTP 503 for every API
        self.null_years = {}        # lat -> set of years whose temperature is null
        self.outside_europe = set()  # lat: air quality answers with the New York body
        self.pollen_hourly = {}     # lat -> 96 grass tenths from today 00:00 UTC (a designed hourly day)
        self.dwd_regions = set()    # DWD region keys whose rows the document has
        self.dwd_edits = {}         # DWD region key -> {species: {"today"|"tomorrow"|"dayafter_to": "0-1"}}
        self.requests = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base = "http://127.0.0.1:%d" % self.port
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def endpoints_yaml(self):
        return [
            "endpoints:",
            "  pollen: %s/google/v1" % self.base,
            "  air_quality: %s/aq/v1" % self.base,
            "  climate_archive: %s/archive/v1" % self.base,
            "  climate_forecast: %s/forecast/v1" % self.base,
            "  dwd: %s/dwd" % self.base,
        ]

    def count(self, kind):
        with self.lock:
            return sum(1 for k in self.requests if k == kind)

    # ------------------------------------------------------------------ bodies

    def _google(self, lat):
        doc = copy.deepcopy(self.google)
        start = today()
        for offset, day in enumerate(doc["dailyInfo"]):
            d = start + datetime.timedelta(days=offset)
            day["date"] = {"year": d.year, "month": d.month, "day": d.day}
        edits = self._lookup(self.google_today, lat) or {}
        day0 = doc["dailyInfo"][0]
        for info in day0["pollenTypeInfo"] + day0.get("plantInfo", []):
            if info["code"] not in edits:
                continue
            value = edits[info["code"]]
            if value is None:
                info.pop("indexInfo", None)
                info.pop("inSeason", None)
                continue
            template = {"code": "UPI", "displayName": "Universal Pollen Index",
                        "category": "Very Low", "indexDescription": "", "color": {"green": 0.6}}
            index = dict(info.get("indexInfo", template))
            if value == 0:
                index.pop("value", None)  # proto3 JSON: a zero is omitted
                index["category"] = "None"
            else:
                index["value"] = value
                index["category"] = {1: "Very Low", 2: "Low", 3: "Moderate", 4: "High", 5: "Very High"}[value]
            info["indexInfo"] = index
            info["inSeason"] = True
        return 200, json.dumps(doc, ensure_ascii=False).encode()

    def dwd_document(self):
        """The document as served now (see the module's docstring), as a dict."""
        doc = copy.deepcopy(self.dwd)
        day = berlin_today()
        doc["last_update"] = "%s 11:00 Uhr" % day.isoformat()
        doc["next_update"] = "%s 11:00 Uhr" % (day + datetime.timedelta(days=1)).isoformat()
        with self.lock:
            wanted, edits = set(self.dwd_regions) or {DWD_UNUSED_REGION}, copy.deepcopy(self.dwd_edits)
        doc["content"] = [row for row in doc["content"] if dwd_key(row) in wanted]
        for row in doc["content"]:
            for species, days in edits.get(dwd_key(row), {}).items():
                row["Pollen"][species].update(days)
        return doc

    def dwd_row(self, key):
        """One region's row of the document as served now."""
        return next(row for row in self.dwd_document()["content"] if dwd_key(row) == key)

    def _air(self, lat, past=0):
        """`past`: the `past_days` asked (SPEC §20, the day's season call). The past days repeat
        the first day's hours, so the season is today's every day: percentile 100 where there is
        pollen, and a season start at the window's first day where today is in season."""
        designed = self._lookup(self.pollen_hourly, lat)
        if designed is not None:
            return 200, self._designed_pollen(designed[:24] * past + designed, past)
        doc = copy.deepcopy(self.air_outside if self._lookup(self.outside_europe, lat) else self.air_europe)
        times = doc["hourly"]["time"]
        offset = doc["utc_offset_seconds"]
        first_local = datetime.datetime.fromtimestamp(times[0] + offset, datetime.timezone.utc).date()
        local_today = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=offset)).date()
        shift = (local_today - first_local).days * 86400
        first = times[0] + shift
        hourly = doc["hourly"]
        hourly["time"] = [first - (past * 24 - h) * 3600 for h in range(past * 24)] + [t + shift for t in times]
        for name, series in hourly.items():
            if name != "time":
                hourly[name] = series[:24] * past + series
        return 200, json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode()

    @staticmethod
    def _designed_pollen(grass, past=0):
        """Hourly pollen from `past` days before today 00:00 UTC as Open-Meteo writes them (ISO
        times, one decimal): grass as given, every other plant 0.0 (SPEC §20 scenarios)."""
        start = datetime.datetime.combine(today(), datetime.time(0), datetime.timezone.utc)
        start -= datetime.timedelta(days=past)
        times = [(start + datetime.timedelta(hours=h)).strftime("%Y-%m-%dT%H:%M") for h in range(len(grass))]
        hourly = {"time": times}
        for name in ("alder", "birch", "grass", "mugwort", "olive", "ragweed"):
            hourly[name + "_pollen"] = ["@%s@" % tenths_text(grass[h] if name == "grass" else 0) for h in range(len(grass))]
        doc = {"latitude": 52.5, "longitude": 13.4, "generationtime_ms": 0.4, "utc_offset_seconds": 0,
               "timezone": "GMT", "timezone_abbreviation": "GMT", "elevation": 38.0, "hourly": hourly}
        text = json.dumps(doc, separators=(",", ":"))
        return text.replace('"@', "").replace('@"', "").encode()

    def _air_indexes(self, lat, lon):
        """The indexes of SPEC §10.1's request for a location in UTC: today's hours 00:00–23:00."""
        day = today().isoformat()
        rows = [air_hour(h) for h in range(24)]
        hourly = {"time": ["%sT%02d:00" % (day, h) for h in range(24)]}
        for name in ("european_aqi", "us_aqi"):
            hourly[name] = [r[name] for r in rows]
        for name in ("pm2_5", "pm10", "uv_index"):
            hourly[name] = ["@%s@" % tenths_text(r[name]) for r in rows]
        doc = {"latitude": float(lat), "longitude": float(lon), "generationtime_ms": 0.4,
               "utc_offset_seconds": 0, "timezone": "GMT", "timezone_abbreviation": "GMT", "elevation": 38.0,
               "hourly_units": {"time": "iso8601", "european_aqi": "EAQI", "us_aqi": "USAQI",
                                "pm2_5": "\u03bcg/m\u00b3", "pm10": "\u03bcg/m\u00b3", "uv_index": ""},
               "hourly": hourly}
        text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
        # One decimal as the server writes it (3.0, not 3): the placeholders become bare numbers.
        return 200, text.replace('"@', "").replace('@"', "").encode()

    def _daily(self, lat, lon, tz, dates):
        nulls = self._lookup(self.null_years, lat) or set()
        objects = []
        for d in dates:
            year = int(d[:4])
            tenths = climate_celsius(year)
            value = "null" if year in nulls else "%d.%d" % (tenths // 10, tenths % 10)
            objects.append(
                '{"latitude":%s,"longitude":%s,"generationtime_ms":0.4,"utc_offset_seconds":0,'
                '"timezone":"%s","timezone_abbreviation":"GMT","elevation":38.0,'
                '"daily_units":{"time":"iso8601","temperature_2m_max":"\u00b0C"},'
                '"daily":{"time":["%s"],"temperature_2m_max":[%s]}}' % (lat, lon, tz, d, value))
        text = objects[0] if len(objects) == 1 else "[" + ",".join(objects) + "]"
        return 200, text.encode()

    @staticmethod
    def _lookup(table, lat):
        """Tables are keyed by the latitude as the tests write it; the agent may print it
        differently (51 for 51.0), so keys compare as numbers."""
        for key in table:
            if float(key) == float(lat):
                return table[key] if isinstance(table, dict) else True
        return None

    def answer(self, path, query):
        def q(name, default=""):
            return query.get(name, [default])[0]

        if path == DWD_PATH:
            with self.lock:
                self.requests.append("dwd")
            return "dwd", 200, json.dumps(self.dwd_document(), ensure_ascii=False).encode()
        if path.endswith("/forecast:lookup"):
            kind, lat = "google", q("location.latitude")
        elif path.endswith("/air-quality"):
            kind, lat = ("air_indexes" if "european_aqi" in q("hourly") else "air_quality"), q("latitude")
        elif path.endswith("/archive") or path.endswith("/forecast"):
            kind, lat = "climate", q("latitude")
        else:
            return None, 404, b'{"error":true,"reason":"Not found"}'
        with self.lock:
            self.requests.append(kind)
            failing = bool(self._lookup(self.failing, lat))
            unsupported = bool(self._lookup(self.unsupported, lat))
        if failing:
            return kind, 503, b'{"error":true,"reason":"Service unavailable"}'
        if kind == "google":
            if unsupported:
                return kind, 400, GOOGLE_UNSUPPORTED
            return (kind,) + self._google(lat)
        if kind in ("air_quality", "air_indexes"):
            if unsupported:
                return kind, 400, OPEN_METEO_UNSUPPORTED
            if kind == "air_indexes":
                return (kind,) + self._air_indexes(lat, q("longitude", "0"))
            return (kind,) + self._air(lat, int(q("past_days", "0") or 0))
        dates = [d for d in q("start_date").split(",") if d]
        return (kind,) + self._daily(lat, q("longitude", "0"), q("timezone", "GMT"), dates)

    def _handler(self):
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                parts = urlsplit(self.path)
                _, status, body = api.answer(parts.path, parse_qs(parts.query))
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        return Handler
