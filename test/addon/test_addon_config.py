# SPDX-License-Identifier: Apache-2.0
"""Checks ha-addon/ against the rules the Home Assistant Supervisor applies to an add-on repository.

Run by scripts/test-addon-config.sh (a venv with the voluptuous and PyYAML versions the Supervisor
pins). The Supervisor itself is not on PyPI and CI cannot reach GitHub, so these checks are written
here from its documentation and source, cited per rule as
  [V]  supervisor/apps/validate.py      (home-assistant/supervisor @ 090ef31ec024, 2026-08-21)
  [O]  supervisor/apps/options.py       (same commit)
  [S]  supervisor/store/validate.py, store/data.py, store/repository.py, supervisor/validate.py
  [D]  developers.home-assistant docs/apps/configuration.md (@ 186ad063987c, 2026-08-19)
  [DP] developers.home-assistant docs/apps/presentation.md (@ 09c8da29b8ed)
docs/home-assistant.md ("Add-on: facts from Home Assistant") lists the same facts. Where the
Supervisor is lenient (it drops unknown keys silently) the checks here are stricter, so a typo in
a key fails here instead of vanishing on the user's machine.
"""

import os
import pathlib
import re
import unittest

import voluptuous as vol
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The add-on repository's root: ha-addon/ of this tree, or (BREEZE_ADDON_REPOSITORY) a clone of
# the published `addon` branch, as the stand-in Supervisor of scripts/test-docs.sh checks it.
REPO = pathlib.Path(os.environ.get("BREEZE_ADDON_REPOSITORY") or ROOT / "ha-addon")
ADDON = REPO / "breeze_agent"


def load(path):
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


# --- The option type grammar ---------------------------------------------------------------------
# [D] "We support: str / str(min,) / str(,max) / str(min,max), bool, int(…), float(…), email, url,
# password, port, match(REGEX), list(val1|val2|...), device / device(filter)"; a trailing "?" makes
# the option optional [D]; password takes the same length bounds as str [O].

_NUMBER = {"int": r"-?\d+", "float": r"-?\d*\.?\d+", "str": r"\d+", "password": r"\d+"}


class TypeSpec:
    def __init__(self, kind, optional, low=None, high=None, pattern=None, choices=None):
        self.kind, self.optional = kind, optional
        self.low, self.high = low, high
        self.pattern, self.choices = pattern, choices


def parse_type(text):
    """One leaf type of a schema, or ValueError naming what is wrong with it."""
    if not isinstance(text, str) or not text:
        raise ValueError(f"{text!r} is not a type string")
    optional = text.endswith("?")
    body = text[:-1] if optional else text
    name, _, rest = body.partition("(")
    if name in ("bool", "email", "url", "port") and not rest:
        return TypeSpec(name, optional)
    if name == "device":
        if rest and not re.fullmatch(r"subsystem=[a-z]+\)", rest):
            raise ValueError(f"{text!r}: device filter must be subsystem=<name>")
        return TypeSpec(name, optional)
    if name in _NUMBER:
        if not rest:
            return TypeSpec(name, optional)
        bounds = re.fullmatch(rf"({_NUMBER[name]})?,({_NUMBER[name]})?\)", rest)
        if not bounds:
            raise ValueError(f"{text!r}: bounds must be ({name} min, {name} max), either may be empty")
        low, high = (float(b) if b is not None else None for b in bounds.groups())
        if low is not None and high is not None and low > high:
            raise ValueError(f"{text!r}: min is greater than max")
        return TypeSpec(name, optional, low, high)
    if name == "match" and rest.endswith(")"):
        try:
            pattern = re.compile(rest[:-1])
        except re.error as err:
            raise ValueError(f"{text!r}: the regular expression does not compile: {err}") from None
        return TypeSpec(name, optional, pattern=pattern)
    if name == "list" and rest.endswith(")") and len(rest) > 1:
        choices = rest[:-1].split("|")
        if "" in choices:
            raise ValueError(f"{text!r}: an empty choice")
        return TypeSpec(name, optional, choices=choices)
    raise ValueError(f"{text!r} is not one of the Supervisor's option types")


def leaf_validator(spec):
    """What the Supervisor does with a value of this type [O: _single_validate], in voluptuous."""
    bounds = {k: v for k, v in (("min", spec.low), ("max", spec.high)) if v is not None}
    if spec.kind in ("str", "password"):
        return vol.All(str, vol.Length(**bounds))
    if spec.kind == "int":
        return vol.All(vol.Coerce(int), vol.Range(**bounds))
    if spec.kind == "float":
        return vol.All(vol.Coerce(float), vol.Range(**bounds))
    if spec.kind == "bool":
        return vol.Boolean()
    if spec.kind == "email":
        return vol.Email()
    if spec.kind == "url":
        return vol.Url()
    if spec.kind == "port":
        return vol.All(vol.Coerce(int), vol.Range(min=1, max=65535))
    if spec.kind == "match":
        return vol.All(str, vol.Match(spec.pattern))
    if spec.kind == "list":
        return vol.All(str, vol.In(spec.choices))
    raise AssertionError(f"no validator for {spec.kind} (device options are not used here)")


def walk_schema(schema, path="", depth=0):
    """Yields (path, leaf type string) and fails on shapes the Supervisor does not accept."""
    if isinstance(schema, dict):
        if depth > 2:
            # [D] "Nested arrays and dictionaries are supported with a maximum depth of two."
            raise ValueError(f"{path}: nested deeper than two levels")
        for key, value in schema.items():
            if not isinstance(key, str):
                raise ValueError(f"{path}: key {key!r} is not a string")
            yield from walk_schema(value, f"{path}.{key}" if path else key, depth + 1)
    elif isinstance(schema, list):
        # [V] SCHEMA_ELEMENT: a list holds a type or a dict, never another list; [O] reads typ[0].
        if len(schema) != 1:
            raise ValueError(f"{path}: a list schema has exactly one element")
        if isinstance(schema[0], list):
            raise ValueError(f"{path}: a list may not directly contain a list")
        yield from walk_schema(schema[0], f"{path}[]", depth)
    else:
        yield path, schema


def missing_is_allowed(schema_value):
    # [O] _check_missing_options: an absent key is fine only when its type (or, for a list, the
    # list's element) is a string ending in "?"; an absent list of dicts is an error.
    element = schema_value[0] if isinstance(schema_value, list) and schema_value else schema_value
    return isinstance(element, str) and element.endswith("?")


class OptionsValidator:
    """Validates options the way the Supervisor does before it writes /data/options.json [O]."""

    def __init__(self, schema):
        self.schema = schema

    def __call__(self, options):
        return self._dict(self.schema, options, "root")

    def _element(self, typ, value, key):
        if isinstance(typ, list):
            if not isinstance(value, list):
                raise vol.Invalid(f"Invalid list for option '{key}'")
            return [self._element(typ[0], item, key) for item in value]
        if isinstance(typ, dict):
            if not isinstance(value, dict):
                raise vol.Invalid(f"Invalid dict for option '{key}'")
            return self._dict(typ, value, key)
        if value is None:
            raise vol.Invalid(f"Missing required option '{key}'")
        try:
            return leaf_validator(parse_type(typ))(value)
        except vol.Invalid as err:
            raise vol.Invalid(f"option '{key}': {err}") from None

    def _dict(self, schema, data, where):
        result = {}
        for key, value in data.items():
            if key in schema:  # unknown keys are dropped with a warning [O]
                result[key] = self._element(schema[key], value, key)
        for key in set(schema) - set(result):
            if not missing_is_allowed(schema[key]):
                raise vol.Invalid(f"Missing option '{key}' in {where}")
        return result


# --- config.yaml ----------------------------------------------------------------------------------
# [D] "Required configuration options" and "Optional configuration options"; [V] _SCHEMA_APP_CONFIG.
KNOWN_KEYS = {
    "name", "version", "slug", "description", "arch", "machine", "url", "startup", "webui", "boot",
    "ports", "ports_description", "host_network", "host_ipc", "host_dbus", "host_pid", "host_uts",
    "devices", "homeassistant", "hassio_role", "hassio_api", "homeassistant_api", "docker_api",
    "privileged", "full_access", "apparmor", "map", "environment", "audio", "video", "gpio", "usb",
    "uart", "udev", "devicetree", "kernel_modules", "stdin", "legacy", "options", "schema", "image",
    "timeout", "tmpfs", "discovery", "services", "auth_api", "ingress", "ingress_port",
    "ingress_entry", "ingress_stream", "panel_icon", "panel_title", "panel_admin", "backup",
    "backup_pre", "backup_post", "backup_exclude", "stage", "init", "watchdog", "realtime",
    "journald", "breaking_versions", "ulimits",
}
ARCHES = ["aarch64", "amd64"]  # [V] ARCH_ALL (armhf, armv7, i386 are deprecated: ARCH_DEPRECATED)


def docker_image_errors(image):
    """[S] supervisor/validate.py docker_image: no tag, lower-case registry domain, path parts."""
    first, slash, rest = image.partition("/")
    if slash and ("." in first or ":" in first or first == "localhost"):
        registry, path = first, rest
        if registry != registry.lower() or not re.fullmatch(r"([a-z0-9]+(-[a-z0-9]+)*\.)+[a-z]{2,}", registry):
            return f"registry {registry!r} is not a lower-case domain"
    else:
        path = image
    if not path or ":" in path:
        return "the image name must not carry a tag (the tag is `version`)"
    for part in path.split("/"):
        if not re.fullmatch(r"[a-z0-9{][a-z0-9.\-_{}]*", part):
            return f"path component {part!r} is not lower-case letters, digits, . - _ or {{arch}}"
    return None


class RepositoryTests(unittest.TestCase):
    def test_repository_yaml(self):
        # [S] store/repository.py: repository.(yaml|yml|json) at the repository's root;
        # store/validate.py SCHEMA_REPOSITORY_CONFIG: name (required), url (a URL), maintainer.
        data = load(REPO / "repository.yaml")
        vol.Schema({vol.Required("name"): str, "url": vol.Url(), "maintainer": str})(data)

    def test_one_addon_found_as_the_store_finds_them(self):
        # [S] store/data.py: every config.(yaml|yml|json) below the root, outside dot-folders and
        # rootfs/, is an add-on; a stray config.yaml would become a broken add-on.
        found = [
            p.relative_to(REPO).as_posix()
            for p in REPO.glob("**/config.*")
            if p.suffix in (".yaml", ".yml", ".json")
            and not any(part.startswith(".") or part == "rootfs" for part in p.relative_to(REPO).parts)
        ]
        self.assertEqual(found, ["breeze_agent/config.yaml"])


class ConfigTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.config = load(ADDON / "config.yaml")

    def test_only_known_keys(self):
        unknown = set(self.config) - KNOWN_KEYS
        self.assertEqual(unknown, set(), "the Supervisor drops unknown keys silently (REMOVE_EXTRA)")
        # [V] _warn_app_config: the top-level `advanced` flag is deprecated and ignored since
        # Supervisor 2026.03.0 (our `advanced` is an option, inside options/schema).
        self.assertNotIn("advanced", self.config)

    def test_required_keys_and_their_rules(self):
        c = self.config
        for key in ("name", "version", "slug", "description", "arch"):
            self.assertIn(key, c, f"{key} is required [V]")
        self.assertIsInstance(c["name"], str)
        self.assertIsInstance(c["description"], str)
        self.assertIsInstance(c["version"], str, "quote the version: YAML reads 0.10 as a float")
        self.assertRegex(c["slug"], r"^[-_.A-Za-z0-9]+$")  # [V] RE_SLUG_FIELD
        self.assertEqual(c["version"], (ROOT / "VERSION").read_text().strip())

    def test_what_spec_15_requires(self):
        c = self.config
        self.assertEqual(c["arch"], ARCHES)
        for service in c["services"]:
            self.assertRegex(service, r"^(mqtt|mysql):(provide|want|need)$")  # [V] RE_SERVICE
        self.assertIn("mqtt:need", c["services"])
        self.assertIs(c["homeassistant_api"], True)
        self.assertIs(c["ingress"], True)
        # [V] ingress_port: a network port (1-65535) or 0 (dynamic, for host-network add-ons).
        self.assertIsInstance(c["ingress_port"], int)
        self.assertTrue(1 <= c["ingress_port"] <= 65535)
        self.assertRegex(c["panel_icon"], r"^mdi:[a-z0-9]+(-[a-z0-9]+)*$")  # [D] an MDI icon
        self.assertIsInstance(c["panel_title"], str)
        self.assertEqual(c.get("startup", "application"), "application")

    def test_image_name(self):
        image = self.config["image"]
        self.assertIsNone(docker_image_errors(image))
        # [S] apps/model.py _image replaces `{arch}` by the machine's architecture, and
        # docker/interface.py install pulls `image:version` with platform=MAP_ARCH[arch]: one
        # multi-arch name (SPEC §18; DEV docs/apps/publishing.md prefers it) needs no `{arch}`,
        # and the release publishes exactly that name (scripts/publish.sh).
        self.assertNotIn("{arch}", image)
        self.assertEqual(image, "ghcr.io/breeze-agent/breeze-agent-addon")

    def test_schema_types_are_the_supervisors(self):
        leaves = list(walk_schema(self.config["schema"]))
        self.assertGreater(len(leaves), 0)
        for path, typ in leaves:
            with self.subTest(option=path):
                parse_type(typ)

    def test_spec_options_present(self):
        # SPEC §15 / issue 28: extra locations, Google key (a password), unit, pollen source, air,
        # profiles, images, outputs, log level, advanced (free-form YAML text).
        s = self.config["schema"]
        for key in ("locations", "google_api_key", "unit", "pollen_source", "air", "profiles",
                    "images", "outputs", "log_level", "advanced"):
            self.assertIn(key, s)
        self.assertEqual(parse_type(s["google_api_key"]).kind, "password")
        self.assertEqual(parse_type(s["unit"]).choices, ["auto", "celsius", "fahrenheit"])
        self.assertEqual(parse_type(s["advanced"]).kind, "str")
        # An OpenEPaperLink output names its image by id, and takes at most 32 characters.
        image_id = parse_type(s["images"][0]["id"])
        self.assertEqual(image_id.kind, "match")
        self.assertTrue(re.fullmatch(image_id.pattern, "a" * 32))
        self.assertFalse(re.fullmatch(image_id.pattern, "a" * 33))
        self.assertEqual(parse_type(s["air_out_window"]).kind, "int")
        self.assertTrue(re.fullmatch(parse_type(s["air_out_hours"]).pattern, "22-06"))
        self.assertFalse(re.fullmatch(parse_type(s["air_out_hours"]).pattern, "6-22"))
        self.assertEqual(parse_type(s["forget"]).kind, "bool")

    def test_minimum_home_assistant(self):
        # [V] `homeassistant`: the oldest Core version the add-on installs on (a version string);
        # DOCS.md says the same.
        self.assertRegex(self.config["homeassistant"], r"^\d{4}\.\d{1,2}\.\d+$")
        year, month, _ = self.config["homeassistant"].split(".")
        docs = (ADDON / "DOCS.md").read_text(encoding="utf-8")
        self.assertIn(f"Home Assistant **{year}.{month}** or newer", docs)

    def test_defaults_and_schema_agree(self):
        options, schema = self.config["options"], self.config["schema"]
        self.assertEqual(set(options) - set(schema), set(), "options without a schema are dropped [O]")
        for key in set(schema) - set(options):
            with self.subTest(option=key):
                # [D] an option with a default is required; one meant to be empty needs `?`
                self.assertTrue(missing_is_allowed(schema[key]), f"{key} has no default and no `?`")
        validated = OptionsValidator(schema)(options)
        self.assertEqual(validated, options)


class OptionsTests(unittest.TestCase):
    """User options as the Supervisor would accept or refuse them before starting the add-on."""

    @classmethod
    def setUpClass(cls):
        config = load(ADDON / "config.yaml")
        cls.defaults = config["options"]
        cls.validate = OptionsValidator(config["schema"])

    def options(self, **changes):
        return {**self.defaults, **changes}

    def test_everything_set(self):
        full = self.options(
            home_location=False,
            locations=[{"id": "cabin", "name": "Cabin", "latitude": 61.5, "longitude": 23.76,
                        "timezone": "Europe/Helsinki"}],
            google_api_key="AIzaSyExample",
            unit="fahrenheit",
            pollen_source="google",
            air=True,
            profiles=[{"id": "anna", "allergens": "birch, grass", "alert_level": "Very High"}],
            images=[{"id": "hall", "location": "cabin", "kind": "summary", "width": 296,
                     "height": 128, "palette": "bwr", "format": "jpeg"}],
            outputs=[
                {"type": "wled", "topic": "wled/strip1", "show": "pollen_types", "leds": 60,
                 "brightness": 128, "power": "leave"},
                {"type": "awtrix", "topic": "awtrix_4f2a10", "app": "breeze", "indicator": 1},
                {"type": "openepaperlink", "ap": "http://192.168.1.50", "mac": "0000021CBA123456",
                 "image": "hall"},
            ],
            log_level="debug",
            advanced="mqtt:\n  topic_prefix: pollen\npollen:\n  days: 3\n",
        )
        self.assertEqual(self.validate(full)["outputs"][0]["leds"], 60)

    def test_every_pollen_source_is_accepted(self):
        # The DWD alone is a choice of its own; auto adds it for a home in Germany.
        for source in ("auto", "google", "open-meteo", "dwd"):
            with self.subTest(source=source):
                self.assertEqual(self.validate(self.options(pollen_source=source))["pollen_source"], source)

    def test_refused(self):
        cases = {
            "latitude out of range": {"locations": [{"id": "a", "latitude": 95, "longitude": 0}]},
            "latitude missing": {"locations": [{"id": "a", "longitude": 0}]},
            "id with capitals": {"locations": [{"id": "Home", "latitude": 1, "longitude": 2}]},
            "unit kelvin": {"unit": "kelvin"},
            "unknown pollen source": {"pollen_source": "bing"},
            "unknown output type": {"outputs": [{"type": "hue"}]},
            "zero leds": {"outputs": [{"type": "wled", "leds": 0}]},
            "short mac": {"outputs": [{"type": "openepaperlink", "mac": "1234"}]},
            "image too wide": {"images": [{"id": "i", "location": "home", "kind": "pollen",
                                           "width": 4000, "height": 128}]},
            "alert level lower-case": {"profiles": [{"id": "a", "allergens": "birch",
                                                     "alert_level": "high"}]},
            "locations not a list": {"locations": {"id": "a"}},
            "log level verbose": {"log_level": "verbose"},
        }
        for name, change in cases.items():
            with self.subTest(case=name):
                with self.assertRaises(vol.Invalid):
                    self.validate(self.options(**change))

    def test_empty_optional_fields_may_be_left_out(self):
        # The UI leaves an untouched optional field out of the options [O: _check_missing_options].
        self.validate(self.options(locations=[{"id": "a", "latitude": 1, "longitude": 2}]))


class TranslationTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.schema = load(ADDON / "config.yaml")["schema"]
        cls.translations = load(ADDON / "translations" / "en.yaml")

    def test_shape(self):
        # [V] SCHEMA_APP_TRANSLATIONS / SCHEMA_TRANSLATION_CONFIGURATION: configuration: {key: {name
        # (required), description (str or null), fields: {same}}}, network: {port: text}.
        entry = vol.Schema({vol.Required("name"): str, "description": vol.Maybe(str),
                            "fields": {str: vol.Self}})
        vol.Schema({"configuration": {str: entry}, "network": {str: str}})(self.translations)

    def test_every_option_named_and_described(self):
        configuration = self.translations["configuration"]

        def check(schema, entries, where):
            self.assertEqual(set(entries), set(schema), f"translated keys of {where} != schema keys")
            for key, typ in schema.items():
                entry = entries[key]
                self.assertTrue(entry.get("name"), f"{where}.{key}: no name")
                self.assertTrue(entry.get("description"), f"{where}.{key}: no description")
                inner = typ[0] if isinstance(typ, list) else typ
                if isinstance(inner, dict):
                    check(inner, entry.get("fields", {}), f"{where}.{key}")
                else:
                    self.assertNotIn("fields", entry, f"{where}.{key} has no fields")

        check(self.schema, configuration, "configuration")

    def test_docs_use_the_same_names(self):
        docs = (ADDON / "DOCS.md").read_text(encoding="utf-8")
        for key, entry in self.translations["configuration"].items():
            with self.subTest(option=key):
                self.assertTrue(entry["name"] in docs, f"DOCS.md does not name {entry['name']!r} (the UI's name)")


class LanguageTranslationTests(unittest.TestCase):
    """One translations/<lang>.yaml per language the agent speaks (issue 51), each with exactly
    en.yaml's keys at every level and a name and a description for each: an option added to
    en.yaml and not to a language fails here, naming both."""

    # The agent's languages (Sources/BreezeCore/Localization/Language.swift).
    LANGUAGES = {"en", "de", "fr", "it", "es", "nl", "pl", "sv", "da", "nb", "fi", "pt", "cs"}

    @classmethod
    def setUpClass(cls):
        cls.english = load(ADDON / "translations" / "en.yaml")["configuration"]
        cls.files = {path.stem: load(path) for path in sorted((ADDON / "translations").glob("*.yaml"))}

    def test_one_file_per_language(self):
        self.assertEqual(set(self.files), self.LANGUAGES)
        language_swift = ROOT / "Sources/BreezeCore/Localization/Language.swift"
        if not language_swift.is_file():
            self.skipTest("not in a source tree (the published add-on repository has no Sources/)")
        source = language_swift.read_text(encoding="utf-8")
        cases = re.search(r"^\s*case ([a-z, ]+)$", source, re.M)
        self.assertIsNotNone(cases, "no `case en, de, …` in Language.swift")
        self.assertEqual({c.strip() for c in cases.group(1).split(",")}, self.LANGUAGES)

    def test_same_keys_and_shape_as_english(self):
        entry = vol.Schema({vol.Required("name"): str, "description": vol.Maybe(str),
                            "fields": {str: vol.Self}})
        for language, document in self.files.items():
            with self.subTest(language=language):
                vol.Schema({"configuration": {str: entry}, "network": {str: str}})(document)

                def check(english, entries, where):
                    self.assertEqual(set(entries), set(english), f"{language}: keys of {where} != en.yaml's")
                    for key, reference in english.items():
                        translated = entries[key]
                        self.assertTrue(translated.get("name"), f"{language}: {where}.{key}: no name")
                        self.assertTrue(translated.get("description"), f"{language}: {where}.{key}: no description")
                        self.assertEqual("fields" in translated, "fields" in reference, f"{language}: {where}.{key}")
                        if "fields" in reference:
                            check(reference["fields"], translated["fields"], f"{where}.{key}")

                check(self.english, document["configuration"], "configuration")

    def test_option_values_stay_as_the_schema_spells_them(self):
        # Values a user types (auto, open-meteo, summary, …) are not translated: where English
        # names one in a description, every language names it too.
        for key in ("unit", "pollen_source", "log_level"):
            values = re.findall(r'"?\b(auto|celsius|fahrenheit|google|open-meteo|debug|info|warning|error)\b"?',
                                self.english[key]["description"])
            for language, document in self.files.items():
                with self.subTest(language=language, option=key):
                    for value in set(values):
                        self.assertIn(value, document["configuration"][key]["description"])


class FilesTests(unittest.TestCase):
    def test_present(self):
        for name in ("config.yaml", "DOCS.md", "CHANGELOG.md", "Dockerfile", "translations/en.yaml"):
            self.assertTrue((ADDON / name).is_file(), name)
        version = load(ADDON / "config.yaml")["version"]
        self.assertIn(f"## {version}", (ADDON / "CHANGELOG.md").read_text(encoding="utf-8"))

    def test_no_build_yaml(self):
        # [V]/apps/build.py: build.yaml is deprecated (a warning on every local build since
        # Supervisor 2026.04.0); with `image:` set the add-on is pulled and never built anyway.
        self.assertFalse(any((ADDON / f"build{s}").exists() for s in (".yaml", ".yml", ".json")))

    def test_dockerfile(self):
        text = (ADDON / "Dockerfile").read_text(encoding="utf-8")
        expected = [rf"^FROM \S+ AS base-{arch}$" for arch in ARCHES] + [
            r"^FROM base-\$\{BUILD_ARCH\}$",
            r"^ARG BUILD_ARCH=",  # [D] the build args are BUILD_ARCH and BUILD_VERSION
            r"^ARG BUILD_VERSION=",
            r'^ENTRYPOINT \["/usr/bin/breeze-agent", "addon"\]$',
            r"^USER root$",  # /data/options.json is root's, mode 0600
        ]
        for pattern in expected:
            self.assertIsNotNone(re.search(pattern, text, re.M), f"Dockerfile: no line matching {pattern}")
        self.assertNotIn("BUILD_FROM", text)  # no longer passed since Supervisor 2026.04.0 [D]

    def test_icon_and_logo(self):
        # [DP] presentation.md "App icon & logo": icon.png is a PNG, its aspect ratio must be 1x1,
        # 128x128 recommended; logo.png is a PNG, "around 250x100" recommended. The Supervisor only
        # asks whether each file exists (apps/model.py `with_icon`, `with_logo`) and the store
        # shows them. scripts/addon-art.sh draws both at exactly the recommended sizes.
        for name, size in (("icon.png", (128, 128)), ("logo.png", (250, 100))):
            path = ADDON / name
            self.assertTrue(path.is_file(), f"{name} missing (scripts/addon-art.sh draws it)")
            data = path.read_bytes()
            # PNG: the 8-byte signature, then the IHDR chunk (length 13) with width and height.
            self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n", f"{name} is not a PNG")
            self.assertEqual(data[8:16], b"\x00\x00\x00\x0dIHDR", f"{name}: no IHDR chunk first")
            width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
            self.assertEqual((width, height), size, f"{name} is {width}x{height}")
            self.assertTrue(data.endswith(b"IEND\xaeB`\x82"), f"{name}: not a whole PNG (no IEND)")

if __name__ == "__main__":
    unittest.main()
