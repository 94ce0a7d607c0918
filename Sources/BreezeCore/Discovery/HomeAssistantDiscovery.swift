//===----------------------------------------------------------------------===//
//
// This source file is part of the breeze-agent open source project
//
// Copyright (c) 2026 the breeze-agent project authors
// Licensed under the Apache License, Version 2.0 (see LICENSE)
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import FoundationEssentials

/// What Home Assistant discovery needs to know about one location (docs/reference.md, Topics).
public struct DiscoveryInput: Sendable, Equatable {
    /// A location as configured: its topic id (`[a-z0-9_-]+`) and display name.
    public struct Location: Sendable, Equatable {
        public var id: String
        public var name: String
        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// One pollen item: a general type or a plant.
    public struct PollenItem: Sendable, Equatable {
        /// The topic id: the code in lower case (`grass`, `japanese_cedar`).
        public var id: String
        /// The display name (localized by the source), e.g. `Grass`.
        public var name: String
        /// Plants are many: those without an index today start disabled in Home Assistant.
        public var isPlant: Bool
        /// The item has an index today (docs/home-assistant.md, Dashboards and automations): a plant that has one when its sensor is
        /// first announced is announced enabled. Home Assistant applies `enabled_by_default`
        /// only at an entity's first registration, so a user's later choice stands.
        public var hasIndex: Bool
        public init(id: String, name: String, isPlant: Bool, hasIndex: Bool = false) {
            self.id = id
            self.name = name
            self.isPlant = isPlant
            self.hasIndex = hasIndex
        }
        /// Whether its sensors are announced enabled: types always, plants with an index today.
        public var enabledByDefault: Bool { !isPlant || hasIndex }
    }

    /// The agent's topics: `<p>` (`mqtt.topic_prefix`), `homeassistant.prefix`, and the shard
    /// index (`shard.index`; availability and diagnostics are then the shard's own
    /// `<p>/status/<i>` and `<p>/diagnostics/<i>`, docs/operations.md, Many locations).
    public var layout: TopicLayout
    /// The agent's version, shown as the device's and origin's `sw_version`.
    public var agentVersion: String
    /// Where users get help, shown by Home Assistant as the origin's link.
    public var supportURL: String
    /// `mqtt.qos`, shared by every component of the device.
    public var qos: Int
    public var location: Location
    /// False when pollen is disabled or the location is unsupported: the pollen components are
    /// left out, so Home Assistant removes them.
    public var pollenAvailable: Bool
    /// The items published for the location, in the order they are announced.
    public var pollenItems: [PollenItem]
    /// `climate.enabled`.
    public var climateEnabled: Bool
    /// The pollen items have a forecast day 1 (`pollen.days` ≥ 2): the types get "tomorrow"
    /// sensors (docs/reference.md, Topics; docs/reference.md, Max, trend and peak).
    public var pollenForecast: Bool
    /// `air.enabled` (docs/reference.md, Air quality bands).
    public var airEnabled = false
    /// The pollen comes from Open-Meteo, with hourly values (docs/reference.md, The hour to air out): the "now" level sensors
    /// and the air-out entities are announced. Google: none of them.
    public var hourlyPollen = false
    /// A risk profile as announced: id (a topic level) and display name.
    public struct Profile: Sendable, Equatable {
        public var id: String
        public var name: String
        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }
    /// The risk profiles shown for this location (docs/reference.md, Personal risk); empty when pollen is unavailable.
    public var profiles: [Profile] = []
    /// A rendered image of the location (docs/images.md): its id (a topic level) and format.
    public struct Image: Sendable, Equatable {
        public var id: String
        public var format: ImageFormat
        public init(id: String, format: ImageFormat) {
            self.id = id
            self.format = format
        }
    }
    /// The location's images, announced as MQTT `image` entities on `<p>/<loc>/image/<id>`.
    public var images: [Image] = []
    /// The items two or more sources carry today (docs/reference.md, "Several sources"): each
    /// gets an "(all sources)" level sensor and a "sources disagree" binary sensor, a plant's
    /// disabled by default.
    public var consensusItems: Set<String> = []
    /// The DWD region whose eight species are announced in the DWD integrations' shape
    /// (docs/home-assistant.md, The DWD card shape); nil when the location has no DWD data.
    public var dwdRegion: Int?
    /// The language of the entity names (the top-level `language`). Only `name` follows it:
    /// `unique_id` and `default_entity_id` stay English, so a new language renames the
    /// entities in Home Assistant without new entity ids (issue 51).
    public var language: Language = .english

    /// The location's topics.
    public var topics: LocationTopics { layout.location(location.id) }

    public init(
        layout: TopicLayout = TopicLayout(prefix: "breeze"),
        agentVersion: String,
        supportURL: String = HomeAssistantDiscovery.defaultSupportURL,
        qos: Int = 1,
        location: Location,
        pollenAvailable: Bool,
        pollenItems: [PollenItem],
        climateEnabled: Bool,
        pollenForecast: Bool = false
    ) {
        self.layout = layout
        self.agentVersion = agentVersion
        self.supportURL = supportURL
        self.qos = qos
        self.location = location
        self.pollenAvailable = pollenAvailable
        self.pollenItems = pollenItems
        self.climateEnabled = climateEnabled
        self.pollenForecast = pollenForecast
    }
}

/// A retained message for the discovery topic: a device config, or an empty payload that
/// removes the device from Home Assistant.
public struct DiscoveryMessage: Sendable, Equatable {
    public var topic: String
    public var payload: String
    public init(topic: String, payload: String) {
        self.topic = topic
        self.payload = payload
    }
}

/// Home Assistant MQTT device-based discovery (docs/reference.md, Topics), as pure functions: one device per
/// location at `<discovery prefix>/device/<slug(p)>_<slug(loc)>/config`.
///
/// Full option names are used (no abbreviations) so that the payload reads like the Home
/// Assistant documentation. Entity ids are suggested with `default_entity_id` (Home Assistant
/// 2025.10+), never the deprecated `object_id`.
public enum HomeAssistantDiscovery {
    public static let defaultSupportURL = "https://github.com/breeze-agent/breeze-agent"
    public static let manufacturer = "breeze-agent"
    public static let model = "Pollen & climate agent"
    public static let originName = "breeze-agent"

    /// The level options of the `enum` sensors, in severity order. Home Assistant turns the
    /// payload `None` into unknown for every sensor, enums included, before it checks the
    /// options (seen on a real Home Assistant 2026.2), so the level sensors map the topic's
    /// words through ``levelTemplate``: zero pollen is `No pollen`, "no index" is unknown.
    public static let levelOptions = ["No pollen", "Low", "Moderate", "High", "Very High"]

    /// The level sensors' `value_template`: `None` (zero pollen) → `No pollen`, `Unknown` (no
    /// index) → `None` (Home Assistant's unknown), the other levels as they are.
    public static let levelTemplate =
        "{% if value == 'None' %}No pollen{% elif value == 'Unknown' %}None{% else %}{{ value }}{% endif %}"

    /// The options of the "Pollen trend" `enum` sensor; the topic's `unknown` becomes Home
    /// Assistant's unknown through ``trendTemplate``.
    public static let trendOptions = ["rising", "falling", "steady"]

    /// The trend sensor's `value_template`: `unknown` → `None` (Home Assistant's unknown).
    public static let trendTemplate = "{% if value == 'unknown' %}None{% else %}{{ value }}{% endif %}"

    /// The options of the unit select; the agent accepts both on `climate/unit/set`.
    public static let unitOptions = ["°C", "°F"]

    /// The retained config of a location's device.
    public static func deviceConfig(for input: DiscoveryInput) -> DiscoveryMessage {
        DiscoveryMessage(topic: configTopic(for: input), payload: devicePayload(for: input).serialized)
    }

    /// A device config `payload` (from ``deviceConfig(for:)``) that replaces `previous`, the
    /// config published before. Home Assistant 2026.2 does not remove a component that is merely
    /// left out of an updated device config: it must be sent once as `{"platform": …}` alone.
    /// So each real component of `previous` missing from `payload` is added as such a removal
    /// entry; removal entries of `previous` are not carried on, so they live for one publish.
    /// An empty `payload` (the device removed) is returned as it is: Home Assistant removes
    /// every component then.
    public static func addingRemovals(to payload: String, replacing previous: String?) -> String {
        // The same config again (most updates): nothing left out, and no decoding (two JSON
        // decodes per publish were 6–10 % of a 1,000-location cycle).
        guard let previous, previous != payload, !previous.isEmpty, !payload.isEmpty,
            let old = try? JSONDecoder().decode(AnnouncedDevice.self, from: Data(previous.utf8)),
            let new = try? JSONDecoder().decode(AnnouncedDevice.self, from: Data(payload.utf8)),
            payload.hasSuffix("}}")  // `components` is the root's last member (devicePayload)
        else { return payload }
        let removed = old.components.filter { $0.value.uniqueID != nil && new.components[$0.key] == nil }
        guard !removed.isEmpty else { return payload }
        var entries = ""
        for (metric, component) in removed.sorted(by: { $0.key < $1.key }) {
            entries +=
                "," + JSONValue.string(metric).serialized + ":"
                + JSONValue.object([JSONMember("platform", .string(component.platform))]).serialized
        }
        return String(payload.dropLast(2)) + entries + "}}"
    }

    /// What ``addingRemovals(to:replacing:)`` reads back from a config.
    private struct AnnouncedDevice: Decodable {
        struct Component: Decodable {
            var platform: String
            /// Nil in a removal entry.
            var uniqueID: String?
            enum CodingKeys: String, CodingKey {
                case platform
                case uniqueID = "unique_id"
            }
        }
        var components: [String: Component]
    }

    /// The config topic of the input's device.
    public static func configTopic(for input: DiscoveryInput) -> String { input.topics.deviceConfig.name }

    /// The device config document.
    public static func devicePayload(for input: DiscoveryInput) -> JSONValue {
        let deviceID = DiscoveryNaming.deviceID(topicPrefix: input.layout.prefix, locationID: input.location.id)
        var components = ComponentList(deviceID: deviceID, qos: input.qos)
        let topics = input.topics
        let language = input.language

        if input.pollenAvailable { addPollen(input, topics: topics, to: &components) }
        if input.pollenAvailable && input.hourlyPollen { addHourly(input, topics: topics, to: &components) }
        if input.climateEnabled { addClimate(topics: topics, language: language, to: &components) }
        if input.airEnabled { addAir(topics, language: language, to: &components) }
        addRisk(input.profiles, topics, language: language, to: &components)
        if input.pollenAvailable && input.hourlyPollen {
            for profile in input.profiles {
                addAirOut(
                    "risk_" + DiscoveryNaming.slug(profile.id), name: profile.name,
                    topic: topics.riskAirOut(profile.id), language: language,
                    to: &components)
            }
        }
        for image in input.images {
            // Raw bytes on the topic (no `image_encoding`): Home Assistant serves them as they are.
            components.add(
                "image_" + DiscoveryNaming.slug(image.id), platform: "image",
                name: language.text(.haImage, ["image": image.id]),
                [
                    "image_topic": .string(topics.image(image.id).name),
                    "content_type": .string(image.format.contentType),
                    "icon": .string("mdi:image"),
                ])
        }
        components.add(
            "refresh", platform: "button", name: language.text(.haRefresh),
            [
                "command_topic": .string(topics.refresh.name),
                "payload_press": .string("PRESS"),
                "icon": .string("mdi:refresh"),
            ])
        if input.climateEnabled {
            components.add(
                "climate_unit", platform: "select", name: language.text(.haTemperatureUnit),
                [
                    "state_topic": .string(topics.climateUnit.name),
                    "command_topic": .string(topics.climateUnitSet.name),
                    "options": .array(unitOptions.map(JSONValue.string)),
                    "entity_category": .string("config"),
                    "icon": .string("mdi:thermometer"),
                ])
        }
        addDiagnostics(input, topics: topics, to: &components)

        return .object([
            "device": .object([
                "identifiers": .array([.string(deviceID)]),
                "name": .string("Breeze " + input.location.name),
                "manufacturer": .string(manufacturer),
                "model": .string(model),
                "sw_version": .string(input.agentVersion),
            ]),
            "origin": .object([
                "name": .string(originName),
                "sw_version": .string(input.agentVersion),
                "support_url": .string(input.supportURL),
            ]),
            "availability": Availability.discoveryList(statusTopic: input.layout.status.name),
            // Last: ``addingRemovals(to:replacing:)`` appends to it.
            "components": .object(components.members),
        ])
    }

    // MARK: - Components

    private static func addPollen(_ input: DiscoveryInput, topics: LocationTopics, to components: inout ComponentList) {
        let language = input.language
        // The summary first: an item whose code happens to be `max` then loses the clash
        // (its topics collide with the summary's anyway), and ids stay unique.
        // The max carries what the pollen cards' overall-risk row reads (docs/home-assistant.md, Dashboards and automations).
        components.addGroup([
            pollenValue(
                "pollen_max", name: language.text(.haPollenMax), base: topics.pollenMax, enabled: true,
                attributes: .overallRisk(summary: topics.pollen.name)),
            pollenLevel(
                "pollen_max_level", name: language.text(.haPollenMaxLevel), base: topics.pollenMax, enabled: true),
        ])
        // docs/reference.md, Max, trend and peak: tomorrow's `max` against today's, and the expected peak (date as an attribute).
        components.add(
            "pollen_trend", platform: "sensor", name: language.text(.haPollenTrend),
            [
                "state_topic": .string(ScalarTopics.trend(topics.pollenMax).name),
                "value_template": .string(trendTemplate),
                "device_class": .string("enum"),
                "options": .array(trendOptions.map(JSONValue.string)),
                "icon": .string("mdi:chart-line"),
            ])
        components.add(
            "pollen_peak", platform: "sensor", name: language.text(.haPollenPeak),
            [
                "state_topic": .string(ScalarTopics.level(topics.pollenPeak).name),
                "value_template": .string(levelTemplate),
                "device_class": .string("enum"),
                "options": .array(levelOptions.map(JSONValue.string)),
                "json_attributes_topic": .string(topics.pollenPeak.name),
                "icon": .string("mdi:calendar-alert"),
            ])
        for item in input.pollenItems {
            let metric = "pollen_" + DiscoveryNaming.slug(item.id)
            let topic = topics.pollenItem(item.id)
            var group = [
                pollenValue(
                    metric, name: language.text(.haItem, ["item": item.name]), base: topic,
                    enabled: item.enabledByDefault,
                    attributes: .card(summary: topics.pollen.name, item: item)),
                pollenLevel(
                    metric + "_level", name: language.text(.haItemLevel, ["item": item.name]), base: topic,
                    enabled: item.enabledByDefault),
            ]
            // A numeric "tomorrow" sensor per type (the `d1` value), for automations.
            if !item.isPlant && input.pollenForecast {
                group.append(
                    pollenValue(
                        metric + "_tomorrow", name: language.text(.haItemTomorrow, ["item": item.name]),
                        base: topics.pollenItem(item.id, day: 1), enabled: true, attributes: .none))
            }
            components.addGroup(group)
            if input.consensusItems.contains(item.id) {
                components.addGroup(consensus(item, metric: metric, topics: topics, language: language))
            }
        }
        if let region = input.dwdRegion {
            for species in DWDPollen.species {
                components.add(
                    "pollenflug_\(species.cardKey)_\(region)", platform: "sensor",
                    name: "Pollenflug \(species.germanName)",
                    [
                        "state_topic": .string(topics.pollenDWD(species.code.lowercased()).name),
                        "value_template": .string(dwdStateTemplate),
                        "json_attributes_topic": .string(topics.pollenDWD(species.code.lowercased()).name),
                        "state_class": .string("measurement"),
                        "suggested_display_precision": .integer(1),
                        "icon": .string("mdi:flower-pollen"),
                    ])
            }
        }
    }

    /// The DWD card sensors' state: today's DWD number; null renders `None` (unknown).
    public static let dwdStateTemplate = "{{ value_json.state_today }}"

    /// The binary sensor's state from the consensus JSON: on when the known levels differ.
    public static let disagreeTemplate = "{{ 'OFF' if value_json.agree else 'ON' }}"

    /// An item's "(all sources)" level and "sources disagree" sensors (docs/reference.md,
    /// "Several sources"): types enabled, plants disabled by default.
    private static func consensus(
        _ item: DiscoveryInput.PollenItem, metric: String, topics: LocationTopics, language: Language
    ) -> [Component] {
        let topic = topics.pollenConsensus(item.id)
        var level: [JSONMember] = [
            JSONMember("state_topic", .string(ScalarTopics.level(topic).name)),
            JSONMember("value_template", .string(levelTemplate)),
            JSONMember("device_class", .string("enum")),
            JSONMember("options", .array(levelOptions.map(JSONValue.string))),
            JSONMember("json_attributes_topic", .string(topic.name)),
            JSONMember("icon", .string("mdi:flower-pollen-outline")),
        ]
        var disagree: [JSONMember] = [
            JSONMember("state_topic", .string(topic.name)),
            JSONMember("value_template", .string(disagreeTemplate)),
            JSONMember("icon", .string("mdi:call-split")),
        ]
        if item.isPlant {
            level.append(JSONMember("enabled_by_default", .bool(false)))
            disagree.append(JSONMember("enabled_by_default", .bool(false)))
        }
        return [
            Component(
                metric: metric + "_consensus", platform: "sensor",
                name: language.text(.haItemConsensus, ["item": item.name]), options: level),
            Component(
                metric: metric + "_disagree", platform: "binary_sensor",
                name: language.text(.haItemDisagree, ["item": item.name]), options: disagree),
        ]
    }

    /// Where a numeric pollen sensor's attributes come from.
    private enum ValueAttributes {
        /// None: a forecast day's value topic has no JSON of its own beside it.
        case none
        /// The JSON beside the value topic (the max).
        case base
        /// An item: the location's summary JSON through the pollen cards' template (docs/home-assistant.md, Dashboards and automations).
        case card(summary: String, item: DiscoveryInput.PollenItem)
        /// The max: the summary JSON through the overall-risk template (docs/home-assistant.md, Dashboards and automations).
        case overallRisk(summary: String)
    }

    /// A numeric 0–5 sensor. The `None` scalar (no index) needs no template: Home Assistant
    /// reads the text `None` as "unknown" on a sensor with a `state_class`.
    private static func pollenValue(
        _ metric: String, name: String, base: Topic, enabled: Bool, attributes: ValueAttributes = .base
    ) -> Component {
        var options: [JSONMember] = [
            JSONMember("state_topic", .string(ScalarTopics.value(base).name)),
            JSONMember("state_class", .string("measurement")),
            JSONMember("suggested_display_precision", .integer(0)),
        ]
        var icon = "mdi:flower-pollen"
        switch attributes {
        case .none: break
        case .base: options.append(JSONMember("json_attributes_topic", .string(base.name)))
        case .card(let summary, let item):
            options.append(JSONMember("json_attributes_topic", .string(summary)))
            options.append(
                JSONMember(
                    "json_attributes_template",
                    .string(PollenCardAttributes.template(itemID: item.id, isPlant: item.isPlant))))
            if !item.isPlant, let typeIcon = PollenCardAttributes.typeIcon(item.id) { icon = typeIcon }
        case .overallRisk(let summary):
            options.append(JSONMember("json_attributes_topic", .string(summary)))
            options.append(JSONMember("json_attributes_template", .string(PollenCardAttributes.overallRiskTemplate)))
        }
        options.append(JSONMember("icon", .string(icon)))
        if !enabled { options.append(JSONMember("enabled_by_default", .bool(false))) }
        return Component(metric: metric, platform: "sensor", name: name, options: options)
    }

    /// An `enum` sensor on the level text: no `state_class`, no unit (Home Assistant refuses both
    /// on `enum`).
    private static func pollenLevel(_ metric: String, name: String, base: Topic, enabled: Bool) -> Component {
        var options: [JSONMember] = [
            JSONMember("state_topic", .string(ScalarTopics.level(base).name)),
            JSONMember("value_template", .string(levelTemplate)),
            JSONMember("device_class", .string("enum")),
            JSONMember("options", .array(levelOptions.map(JSONValue.string))),
            JSONMember("icon", .string("mdi:flower-pollen-outline")),
        ]
        if !enabled { options.append(JSONMember("enabled_by_default", .bool(false))) }
        return Component(metric: metric, platform: "sensor", name: name, options: options)
    }

    /// A percentile payload as a number for Home Assistant: `off_season`, `insufficient` and
    /// an empty payload render `None` (unknown; the topic itself says which).
    public static let percentileTemplate = "{{ value if value | regex_match('^[0-9]+$') else None }}"

    /// A date payload, or `None` (unknown) when it is empty (no season start today).
    public static let dateTemplate = "{{ value if value else None }}"

    /// docs/reference.md, The hour to air out, Open-Meteo only: per type a "now" level sensor (the current local hour), the
    /// type against the season (`percentile`, `season_start`), and the location's air-out
    /// entities.
    private static func addHourly(_ input: DiscoveryInput, topics: LocationTopics, to components: inout ComponentList) {
        let language = input.language
        for item in input.pollenItems where !item.isPlant && PollenHourly.carries(item.id) {
            let metric = "pollen_" + DiscoveryNaming.slug(item.id)
            components.addGroup([
                pollenLevel(
                    metric + "_now", name: language.text(.haItemNow, ["item": item.name]),
                    base: topics.pollenNow(item.id), enabled: true),
                Component(
                    metric: metric + "_percentile", platform: "sensor",
                    name: language.text(.haItemPercentile, ["item": item.name]),
                    options: [
                        JSONMember("state_topic", .string(topics.pollenPercentile(item.id).name)),
                        JSONMember("value_template", .string(percentileTemplate)),
                        JSONMember("unit_of_measurement", .string("%")),
                        JSONMember("state_class", .string("measurement")),
                        JSONMember("icon", .string("mdi:chart-bell-curve-cumulative")),
                    ]),
                Component(
                    metric: metric + "_season_start", platform: "sensor",
                    name: language.text(.haItemSeasonStart, ["item": item.name]),
                    options: [
                        JSONMember("state_topic", .string(topics.pollenSeasonStart(item.id).name)),
                        JSONMember("value_template", .string(dateTemplate)),
                        JSONMember("device_class", .string("date")),
                        JSONMember("icon", .string("mdi:calendar-start")),
                    ]),
            ])
        }
        addAirOut("pollen", name: nil, topic: topics.pollenAirOut, language: language, to: &components)
    }

    /// "Best time to air out" (a timestamp sensor on the window's start, the air-out JSON as
    /// attributes) and "Good time to air out" (a binary sensor on `air_out/now`), for a location
    /// (`name` nil) or a profile (its name in front).
    private static func addAirOut(
        _ metricPrefix: String, name: String?, topic: Topic, language: Language, to components: inout ComponentList
    ) {
        let best = name.map { language.text(.haProfileAirOut, ["profile": $0]) } ?? language.text(.haAirOut)
        let good = name.map { language.text(.haProfileAirOutNow, ["profile": $0]) } ?? language.text(.haAirOutNow)
        components.addGroup([
            Component(
                metric: metricPrefix + "_air_out", platform: "sensor", name: best,
                options: [
                    JSONMember("state_topic", .string(topic.name)),
                    // A JSON null renders `None`: Home Assistant's unknown (no window).
                    JSONMember("value_template", .string("{{ value_json.start }}")),
                    JSONMember("device_class", .string("timestamp")),
                    JSONMember("json_attributes_topic", .string(topic.name)),
                    JSONMember("icon", .string("mdi:window-open-variant")),
                ]),
            Component(
                metric: metricPrefix + "_air_out_now", platform: "binary_sensor", name: good,
                options: [
                    JSONMember("state_topic", .string(ScalarTopics.now(topic).name)),
                    JSONMember("payload_on", .string("ON")),
                    JSONMember("payload_off", .string("OFF")),
                    JSONMember("icon", .string("mdi:window-open-variant")),
                ]),
        ])
    }

    /// Temperatures read `celsius` from the climate JSON: the scalar topics carry the display
    /// unit, which the user can switch at run time, while Home Assistant wants one fixed unit
    /// and converts to the user's preference itself. A JSON `null` renders as `None`, which
    /// Home Assistant reads as unknown.
    private static func addClimate(topics: LocationTopics, language: Language, to components: inout ComponentList) {
        let climateTopic = topics.climate
        func temperature(_ metric: String, name: String, deviceClass: String, template: String) {
            components.add(
                metric, platform: "sensor", name: name,
                [
                    "state_topic": .string(climateTopic.name),
                    "value_template": .string(template),
                    "device_class": .string(deviceClass),
                    "unit_of_measurement": .string("°C"),
                    "state_class": .string("measurement"),
                    "suggested_display_precision": .integer(1),
                ])
        }
        // The current year is the point with `source: forecast` (the same point `climate/current`
        // mirrors, stable across New Year); `last` on an empty selection is undefined → None.
        temperature(
            "climate_current", name: language.text(.haTemperatureCurrent), deviceClass: "temperature",
            template:
                "{{ (value_json.points | selectattr('source', 'eq', 'forecast') | map(attribute='celsius') | list | last) | default(none) }}"
        )
        temperature(
            "climate_baseline", name: language.text(.haTemperatureBaseline), deviceClass: "temperature",
            template:
                "{{ (value_json.points | selectattr('year', 'eq', value_json.baseline_year) | map(attribute='celsius') | list | first) | default(none) }}"
        )
        temperature(
            "climate_change", name: language.text(.haTemperatureChange), deviceClass: "temperature_delta",
            template: "{{ value_json.change.celsius if value_json.change else none }}")
    }

    /// The unit Home Assistant lists for `pm25`/`pm10` (`CONCENTRATION_MICROGRAMS_PER_CUBIC_METER`):
    /// GREEK SMALL LETTER MU since Home Assistant 2025.9 (core PR #144853); since 2025.7 a unit not
    /// in the device class's list makes Home Assistant reject the whole discovery message.
    public static let particulateUnit = "\u{03BC}g/m\u{00B3}"

    /// Level options of an air metric's enum sensor: the band words; `Unknown` is not an option,
    /// the template turns it into Home Assistant's unknown (docs/reference.md, Topics's rule for level sensors).
    static func airLevelOptions(_ metric: AirMetric) -> [String] {
        AirBand.levels(of: metric).filter { $0 != AirBand.unknown.level }
    }

    /// `Unknown` → None (Home Assistant's unknown), every other word as it is.
    static let unknownToNoneTemplate = "{{ None if value == 'Unknown' else value }}"

    /// The level words a risk sensor shows: docs/reference.md, Topics's mapping of the pollen levels.
    public static let riskLevelOptions = ["No pollen", "Low", "Moderate", "High", "Very High"]
    static let riskLevelTemplate =
        "{{ 'No pollen' if value == 'None' else (None if value == 'Unknown' else value) }}"

    /// Air quality (docs/reference.md, Air quality bands): the two indexes with `device_class: aqi`, PM with `pm25`/`pm10`
    /// and Home Assistant's exact unit string, UV without a device class; level enums for the
    /// banded metrics; staleness as a diagnostic.
    private static func addAir(_ topics: LocationTopics, language: Language, to components: inout ComponentList) {
        for metric in AirMetric.allCases {
            let topic = topics.airMetric(metric)
            var options: [JSONMember] = [
                JSONMember("state_topic", .string(ScalarTopics.value(topic).name)),
                JSONMember("state_class", .string("measurement")),
                JSONMember("suggested_display_precision", .integer(metric.isWholeNumber ? 0 : 1)),
            ]
            switch metric {
            case .europeanAQI, .usAQI:
                options.append(JSONMember("device_class", .string("aqi")))
            case .pm2_5:
                options.append(JSONMember("device_class", .string("pm25")))
                options.append(JSONMember("unit_of_measurement", .string(particulateUnit)))
            case .pm10:
                options.append(JSONMember("device_class", .string("pm10")))
                options.append(JSONMember("unit_of_measurement", .string(particulateUnit)))
            case .uvIndex, .uvIndexMax:
                options.append(JSONMember("unit_of_measurement", .string("UV index")))
                options.append(JSONMember("icon", .string("mdi:sun-wireless")))
            }
            let metricID = "air_" + metric.rawValue
            let name = metric.displayName(in: language)
            var group = [Component(metric: metricID, platform: "sensor", name: name, options: options)]
            if metric.isBanded {
                group.append(
                    Component(
                        metric: metricID + "_level", platform: "sensor",
                        name: language.text(.haAirMetricLevel, ["metric": name]),
                        options: [
                            JSONMember("state_topic", .string(ScalarTopics.level(topic).name)),
                            JSONMember("value_template", .string(unknownToNoneTemplate)),
                            JSONMember("device_class", .string("enum")),
                            JSONMember("options", .array(airLevelOptions(metric).map(JSONValue.string))),
                        ]))
            }
            components.addGroup(group)
        }
        components.add(
            "air_updated_at", platform: "sensor", name: language.text(.haAirUpdatedAt),
            [
                "state_topic": .string(topics.airUpdatedAt.name),
                "device_class": .string("timestamp"),
                "entity_category": .string("diagnostic"),
            ])
        components.add(
            "air_stale", platform: "binary_sensor", name: language.text(.haAirStale),
            [
                "state_topic": .string(topics.airStale.name),
                "payload_on": .string("true"),
                "payload_off": .string("false"),
                "device_class": .string("problem"),
                "entity_category": .string("diagnostic"),
            ])
    }

    /// Per risk profile (docs/reference.md, Personal risk): an enum sensor on the level (mapped like the pollen level
    /// sensors) with the profile JSON as attributes, and a binary sensor for `alert` (no device class).
    private static func addRisk(
        _ profiles: [DiscoveryInput.Profile], _ topics: LocationTopics, language: Language,
        to components: inout ComponentList
    ) {
        for profile in profiles {
            let topic = topics.riskProfile(profile.id)
            let metric = "risk_" + DiscoveryNaming.slug(profile.id)
            components.addGroup([
                Component(
                    metric: metric, platform: "sensor", name: language.text(.haRisk, ["profile": profile.name]),
                    options: [
                        JSONMember("state_topic", .string(ScalarTopics.level(topic).name)),
                        JSONMember("value_template", .string(riskLevelTemplate)),
                        JSONMember("device_class", .string("enum")),
                        JSONMember("options", .array(riskLevelOptions.map(JSONValue.string))),
                        JSONMember("json_attributes_topic", .string(topic.name)),
                        JSONMember("icon", .string("mdi:account-alert")),
                    ]),
                Component(
                    metric: metric + "_alert", platform: "binary_sensor",
                    name: language.text(.haRiskAlert, ["profile": profile.name]),
                    options: [
                        JSONMember("state_topic", .string(topics.riskAlert(profile.id).name)),
                        JSONMember("payload_on", .string("true")),
                        JSONMember("payload_off", .string("false")),
                    ]),
            ])
        }
    }

    private static func addDiagnostics(
        _ input: DiscoveryInput, topics: LocationTopics, to components: inout ComponentList
    ) {
        let language = input.language
        if input.pollenAvailable {
            components.add(
                "pollen_updated_at", platform: "sensor", name: language.text(.haPollenUpdatedAt),
                [
                    "state_topic": .string(topics.pollenUpdatedAt.name),
                    "device_class": .string("timestamp"),
                    "entity_category": .string("diagnostic"),
                ])
            components.add(
                "pollen_stale", platform: "binary_sensor", name: language.text(.haPollenStale),
                [
                    "state_topic": .string(topics.pollenStale.name),
                    "payload_on": .string("true"),
                    "payload_off": .string("false"),
                    "device_class": .string("problem"),
                    "entity_category": .string("diagnostic"),
                ])
        }
        if input.climateEnabled {
            components.add(
                "climate_stale", platform: "binary_sensor", name: language.text(.haClimateStale),
                [
                    "state_topic": .string(topics.climate.name),
                    "value_template": .string("{{ 'true' if value_json.stale else 'false' }}"),
                    "payload_on": .string("true"),
                    "payload_off": .string("false"),
                    "device_class": .string("problem"),
                    "entity_category": .string("diagnostic"),
                ])
        }
        // `<p>/diagnostics` is global: the templates pick this location's counts. The state is
        // the total; the split per source comes as attributes.
        let diagnosticsTopic = input.layout.diagnostics
        let key = jinjaString(input.location.id)
        components.add(
            "api_calls_today", platform: "sensor", name: language.text(.haAPICallsToday),
            [
                "state_topic": .string(diagnosticsTopic.name),
                "value_template": .string(
                    "{% set c = value_json.api_calls_today[\(key)] if \(key) in value_json.api_calls_today else none %}"
                        + "{{ (c.google + c.open_meteo) if c else none }}"),
                "json_attributes_topic": .string(diagnosticsTopic.name),
                "json_attributes_template": .string(
                    "{{ (value_json.api_calls_today[\(key)] if \(key) in value_json.api_calls_today else {}) | tojson }}"
                ),
                "state_class": .string("total_increasing"),
                "suggested_display_precision": .integer(0),
                "entity_category": .string("diagnostic"),
                "icon": .string("mdi:counter"),
            ])
    }

    /// A single-quoted Jinja string literal.
    static func jinjaString(_ text: String) -> String {
        var out = "'"
        for character in text {
            if character == "'" || character == "\\" { out.append("\\") }
            out.append(character)
        }
        return out + "'"
    }
}

/// One component before its ids are derived.
private struct Component {
    var metric: String
    var platform: String
    var name: String
    var options: [JSONMember]
}

/// The components of one device, keyed by metric; derives `unique_id` and `default_entity_id`
/// and keeps metrics unique.
private struct ComponentList {
    let deviceID: String
    /// `mqtt.qos`, set in every component: Home Assistant does not pass a root `qos` on.
    let qos: Int
    var members: [JSONMember] = []
    var used: Set<String> = []

    init(deviceID: String, qos: Int) {
        self.deviceID = deviceID
        self.qos = qos
    }

    mutating func add(_ metric: String, platform: String, name: String, _ options: KeyValuePairs<String, JSONValue>) {
        addGroup([
            Component(
                metric: metric, platform: platform, name: name,
                options: options.map { JSONMember($0.key, $0.value) })
        ])
    }

    /// Adds all of a group or, when any of its metrics is taken, none of it: an item's value and
    /// level sensors come and go together.
    mutating func addGroup(_ group: [Component]) {
        let metrics = group.map(\.metric)
        guard Set(metrics).count == metrics.count, used.isDisjoint(with: metrics) else { return }
        for component in group {
            used.insert(component.metric)
            let uniqueID = deviceID + "_" + component.metric
            let config: [JSONMember] =
                [
                    JSONMember("platform", .string(component.platform)),
                    JSONMember("name", .string(component.name)),
                    JSONMember("unique_id", .string(uniqueID)),
                    JSONMember(
                        "default_entity_id",
                        .string(component.platform + "." + DiscoveryNaming.entityObjectID(uniqueID))),
                ] + component.options + [JSONMember("qos", .integer(qos))]
            members.append(JSONMember(component.metric, .object(config)))
        }
    }
}
