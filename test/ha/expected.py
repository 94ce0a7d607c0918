"""What Home Assistant must show for one location: the entity table of docs/home-assistant.md,
as data (test_docs.py checks that the docs table says the same)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Entity:
    entity_id: str
    unique_id: str
    device_class: object = None   # None: no device class
    unit: object = None
    state_class: object = None
    enabled: bool = True
    category: object = None       # entity_category: None, "config", "diagnostic"


LEVEL_OPTIONS = ["No pollen", "Low", "Moderate", "High", "Very High"]


def slug(text):
    return text.replace("-", "_")


TREND_OPTIONS = ["rising", "falling", "steady"]


# The plants of the Google fixture with an index on its first day: announced enabled (SPEC §17.1).
GOOGLE_INDEXED = ("pine", "birch", "olive", "graminales", "alder")


# The DWD's eight species (its Pollenflug-Gefahrenindex): our item id -> the species key of the
# card-shaped sensor `…_pollenflug_<key>_<region>` (the document's key in lower case) and its
# name, "Pollenflug <name>" in every language.
DWD_SPECIES = {"hazel": ("hasel", "Hasel"), "alder": ("erle", "Erle"), "ash": ("esche", "Esche"),
               "birch": ("birke", "Birke"), "graminales": ("graeser", "Gräser"), "rye": ("roggen", "Roggen"),
               "mugwort": ("beifuss", "Beifuß"), "ragweed": ("ambrosia", "Ambrosia")}
# What each key-free source carries: the types, and the plants of its response.
OPEN_METEO_ITEMS = ("grass", "tree", "weed", "alder", "birch", "olive", "graminales", "mugwort", "ragweed")
DWD_ITEMS = ("grass", "tree", "weed") + tuple(DWD_SPECIES)


def consensus_items(*sources):
    """The items two or more of the sources (tuples of item ids) carry: those with a consensus."""
    items = [i for source in sources for i in source]
    return [i for i in dict.fromkeys(items) if items.count(i) >= 2]


def location_entities(prefix, location, pollen_types=(), plants=(), climate=True, forecast=True, indexed=(),
                      hourly=False, dwd_region=None, consensus=()):
    """Entities of one location's device. `pollen_types`/`plants`: the lower-case item ids;
    none at all means pollen is off for the location. `forecast`: the items have a day 1.
    `indexed`: the plants with an index when first announced, so enabled (SPEC §17.1).
    `hourly`: the pollen is Open-Meteo's, with the "now" and air-out entities (SPEC §20).
    `dwd_region`: the location's DWD region (the `dwd_region` key), with the eight card-shaped
    DWD sensors. `consensus`: the items two or more sources carry, each with a consensus level and
    a "sources disagree" binary sensor (a plant's disabled by default)."""
    device = slug(prefix) + "_" + slug(location)
    out = []

    def add(platform, metric, **kwargs):
        out.append(Entity("%s.%s_%s" % (platform, device, metric), "%s_%s" % (device, metric), **kwargs))

    pollen = bool(pollen_types or plants)
    if pollen:
        add("sensor", "pollen_max", state_class="measurement")
        add("sensor", "pollen_max_level", device_class="enum")
        add("sensor", "pollen_trend", device_class="enum")
        add("sensor", "pollen_peak", device_class="enum")
        for item in list(pollen_types) + list(plants):
            enabled = item in pollen_types or item in indexed
            add("sensor", "pollen_" + item, state_class="measurement", enabled=enabled)
            add("sensor", "pollen_%s_level" % item, device_class="enum", enabled=enabled)
            if item in pollen_types and forecast:
                add("sensor", "pollen_%s_tomorrow" % item, state_class="measurement")
        if hourly:
            for item in pollen_types:
                add("sensor", "pollen_%s_now" % item, device_class="enum")
                add("sensor", "pollen_%s_percentile" % item, unit="%", state_class="measurement")
                add("sensor", "pollen_%s_season_start" % item, device_class="date")
            add("sensor", "pollen_air_out", device_class="timestamp")
            add("binary_sensor", "pollen_air_out_now")
        for item in consensus:
            add("sensor", "pollen_%s_consensus" % item, device_class="enum", enabled=item in pollen_types)
            add("binary_sensor", "pollen_%s_disagree" % item, enabled=item in pollen_types)
        if dwd_region is not None:
            for key, _ in DWD_SPECIES.values():
                add("sensor", "pollenflug_%s_%s" % (key, dwd_region), state_class="measurement")
    if climate:
        add("sensor", "climate_current", device_class="temperature", unit="°C", state_class="measurement")
        add("sensor", "climate_baseline", device_class="temperature", unit="°C", state_class="measurement")
        add("sensor", "climate_change", device_class="temperature_delta", unit="°C", state_class="measurement")
    add("button", "refresh")
    if climate:
        add("select", "climate_unit", category="config")
    if pollen:
        add("sensor", "pollen_updated_at", device_class="timestamp", category="diagnostic")
        add("binary_sensor", "pollen_stale", device_class="problem", category="diagnostic")
    if climate:
        add("binary_sensor", "climate_stale", device_class="problem", category="diagnostic")
    add("sensor", "api_calls_today", state_class="total_increasing", category="diagnostic")
    return out


# Home Assistant's unit for the pm25/pm10 device classes (CONCENTRATION_MICROGRAMS_PER_CUBIC_METER,
# GREEK SMALL LETTER MU). Home Assistant 2026.2.3, tried: `ug/m3` makes it drop the PM components;
# MICRO SIGN is accepted and shown as GREEK MU (test_6_air checks the payload as sent).
PARTICULATE_UNIT = "\u03bcg/m\u00b3"
RISK_OPTIONS = LEVEL_OPTIONS
EUROPEAN_AQI_OPTIONS = ["Good", "Fair", "Moderate", "Poor", "Very poor", "Extremely poor"]
US_AQI_OPTIONS = ["Good", "Moderate", "Unhealthy for sensitive groups", "Unhealthy", "Very unhealthy", "Hazardous"]
UV_OPTIONS = ["Low", "Moderate", "High", "Very high", "Extreme"]


def air_entities(prefix, location, profiles=(), hourly=False, air=True):
    """Entities `air.enabled` (SPEC §10.1) and `profiles:` (§10.2) add to a location's device;
    `hourly`: each profile's air-out pair too (SPEC §20, Open-Meteo pollen)."""
    device = slug(prefix) + "_" + slug(location)
    out = []

    def add(platform, metric, **kwargs):
        out.append(Entity("%s.%s_%s" % (platform, device, metric), "%s_%s" % (device, metric), **kwargs))

    for index in ("european_aqi", "us_aqi") if air else ():
        add("sensor", "air_" + index, device_class="aqi", state_class="measurement")
        add("sensor", "air_%s_level" % index, device_class="enum")
    if air:
        add("sensor", "air_pm2_5", device_class="pm25", unit=PARTICULATE_UNIT, state_class="measurement")
        add("sensor", "air_pm10", device_class="pm10", unit=PARTICULATE_UNIT, state_class="measurement")
        for uv in ("uv_index", "uv_index_max"):
            add("sensor", "air_" + uv, unit="UV index", state_class="measurement")
            add("sensor", "air_%s_level" % uv, device_class="enum")
        add("sensor", "air_updated_at", device_class="timestamp", category="diagnostic")
        add("binary_sensor", "air_stale", device_class="problem", category="diagnostic")
    for profile in profiles:
        add("sensor", "risk_" + slug(profile), device_class="enum")
        add("binary_sensor", "risk_%s_alert" % slug(profile))
        if hourly:
            add("sensor", "risk_%s_air_out" % slug(profile), device_class="timestamp")
            add("binary_sensor", "risk_%s_air_out_now" % slug(profile))
    return out
