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

public import BreezeCore

/// The whole validated configuration (docs/reference.md, Configuration): every default applied, every secret read,
/// every location's time zone resolved to an IANA name. Built only by `ConfigLoader.load`.
public struct AgentConfig: Sendable {
    public var mqtt: MQTTSettings { didSet { topicLayout = Self.layout(mqtt, homeAssistant, shard) } }
    public var homeAssistant: HomeAssistantSettings { didSet { topicLayout = Self.layout(mqtt, homeAssistant, shard) } }
    /// The topics of this configuration (`mqtt.topic_prefix`, `homeassistant.prefix`,
    /// `shard.index`): built when the configuration is, and again only when one of those
    /// changes (`--demo`'s prefix). Every part of the agent reads this one value.
    public private(set) var topicLayout: TopicLayout
    /// One or more, ids unique, in file order.
    public var locations: [LocationConfig]
    public var pollen: PollenSettings
    public var climate: ClimateSettings
    /// `language` (issue 51): the language of Home Assistant's entity names, the key-free
    /// sources' plant names, the status page and the images; English by default.
    public var language: Language = .english
    /// `language` as written (a BCP 47 tag, `pt-BR`): what `pollen.language` defaults to, so
    /// Google gets the region too.
    public var languageTag = "en"
    /// `air:` (docs/reference.md, Air quality bands), off by default.
    public var air = AirSettings()
    /// `profiles:` (docs/reference.md, Personal risk), in file order.
    public var profiles: [RiskProfile] = []
    /// `air_out:` (docs/reference.md, The hour to air out): the window to air out (Open-Meteo pollen only).
    public var airOut = AirOutSettings()
    public var endpoints: Endpoints
    /// As written (may be relative to the working directory); an unwritable one is the runtime's warning.
    public var stateDir: String
    public var logLevel: LogLevel
    /// The file this configuration came from, for messages.
    public var sourceFile: String
    /// `outputs:` (docs/displays.md), in file order; validated by `OutputsParser`.
    public var outputs: [OutputConfig] = []
    /// `images:` (docs/images.md), in file order; validated by `ImagesParser`.
    public var images: [ImageConfig] = []
    /// The `type: openepaperlink` entries of `outputs:` (docs/images.md), in file order.
    public var openEPaperLink: [OpenEPaperLinkOutput] = []
    /// `shard:` — this agent serves only the locations this shard owns (docs/operations.md, Many locations); nil: all.
    public var shard: Shard? = nil { didSet { topicLayout = Self.layout(mqtt, homeAssistant, shard) } }
    /// `http:` (docs/images.md): the read-only HTTP server; nil (the default) runs none.
    public var http: HTTPSettings? = nil
    /// `http.max_concurrent`: HTTP requests in flight at once (docs/operations.md, Many locations).
    public var httpMaxConcurrent = 4
    /// `endpoints.max_calls_per_minute`: paces Open-Meteo requests even to custom endpoints.
    public var endpointsMaxCallsPerMinute: Int? = nil
    /// What the loader decided for the user that they should hear about once (logged at start,
    /// printed by `check-config`): a location without a time zone on a system that names none
    /// runs on UTC, say.
    public var notices: [String] = []

    public init(
        mqtt: MQTTSettings, homeAssistant: HomeAssistantSettings, locations: [LocationConfig], pollen: PollenSettings,
        climate: ClimateSettings, endpoints: Endpoints, stateDir: String, logLevel: LogLevel, sourceFile: String
    ) {
        self.mqtt = mqtt
        self.homeAssistant = homeAssistant
        self.locations = locations
        self.pollen = pollen
        self.climate = climate
        self.endpoints = endpoints
        self.stateDir = stateDir
        self.logLevel = logLevel
        self.sourceFile = sourceFile
        topicLayout = Self.layout(mqtt, homeAssistant, nil)
    }

    private static func layout(_ mqtt: MQTTSettings, _ homeAssistant: HomeAssistantSettings, _ shard: Shard?)
        -> TopicLayout
    {
        TopicLayout(prefix: mqtt.topicPrefix, discoveryPrefix: homeAssistant.prefix, shardIndex: shard?.index)
    }
}

/// A password or API key. Its `description` is masked so that string interpolation into a log
/// line, an error or `check-config` output can never leak it; read `value` deliberately.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret itself. Only the HTTP header / MQTT login should ever read this.
    public let value: String
    /// Where it came from, safe to show: `inline`, `file /run/keys/x`, `environment BREEZE_MQTT_PASSWORD`.
    public let origin: String
    /// The file it was read from (`*_file`), for the permission check.
    public let file: String?

    public init(_ value: String, origin: String, file: String? = nil) {
        self.value = value
        self.origin = origin
        self.file = file
    }

    public var description: String { "********" }
    public var debugDescription: String { "Secret(********, from \(origin))" }
}

/// `mqtt:` — broker connection and topic layout.
public struct MQTTSettings: Sendable {
    public var host: String
    /// 1883 by default, 8883 when `tls` is set.
    public var port: Int
    public var username: String?
    public var password: Secret?
    /// `breeze-agent-<hostname>` by default.
    public var clientID: String
    /// Valid as a topic prefix: no wildcards, no empty levels, no leading or trailing `/`.
    public var topicPrefix: String
    /// 0, 1 or 2.
    public var qos: Int
    /// Seconds.
    public var keepalive: Int
    public var protocolVersion: MQTTProtocolVersion
    /// `protocol` was set in the file; when not, the agent falls back from MQTT 5 to 3.1.1 once
    /// if the broker refuses MQTT 5 (docs/operations.md, Many locations).
    public var protocolExplicit: Bool
    /// `max_packet_size`: bytes; publishes over it are refused locally (docs/operations.md, Limits). `nil`: none.
    public var maxPacketSize: Int?
    /// Non-nil means TLS on (`tls: {}` is enough).
    public var tls: MQTTTLSOptions?

    public init(
        host: String = "localhost", port: Int = 1883, username: String? = nil, password: Secret? = nil,
        clientID: String, topicPrefix: String = "breeze", qos: Int = 1, keepalive: Int = 60,
        protocolVersion: MQTTProtocolVersion = .v5, tls: MQTTTLSOptions? = nil, protocolExplicit: Bool = false,
        maxPacketSize: Int? = nil
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.clientID = clientID
        self.topicPrefix = topicPrefix
        self.qos = qos
        self.keepalive = keepalive
        self.protocolVersion = protocolVersion
        self.protocolExplicit = protocolExplicit
        self.maxPacketSize = maxPacketSize
        self.tls = tls
    }
}

/// `homeassistant:` — MQTT discovery.
public struct HomeAssistantSettings: Sendable, Equatable {
    public var discovery: Bool
    public var prefix: String

    public init(discovery: Bool = true, prefix: String = "homeassistant") {
        self.discovery = discovery
        self.prefix = prefix
    }
}

/// One entry of `locations:`.
public struct LocationConfig: Sendable, Equatable {
    /// `[a-z0-9_-]+`, unique; becomes a topic level.
    public var id: String
    /// Defaults to the id.
    public var name: String
    /// −90…90.
    public var latitude: Double
    /// −180…180.
    public var longitude: Double
    /// An IANA name, from the config or the system; ``zone`` holds its rules.
    public var timezone: String
    /// The rules of ``timezone``, read from the zoneinfo tree while the configuration was loaded
    /// (``TimeZoneResolver/load(_:)``), so nothing reads zone files at run time.
    public var zone: ZoneRules
    /// The display unit the configuration gives this location: `climate.unit`, or for `auto` the
    /// one its time zone's country uses (``FahrenheitZones``). A `climate/unit/set` choice
    /// overrides it at run time until the configured value changes.
    public var unit: TemperatureUnit
    /// The DWD region of the location (docs/reference.md, "DWD"): `dwd_region` when set, else
    /// the region whose point is nearest inside Germany; nil outside Germany.
    public var dwdRegion: Int?
    /// `dwd_region` was set (not chosen from the coordinates).
    public var dwdRegionGiven = false

    /// `unit` nil: the `auto` choice for `timezone`.
    public init(
        id: String, name: String, latitude: Double, longitude: Double, timezone: String, zone: ZoneRules,
        unit: TemperatureUnit? = nil
    ) {
        self.id = id
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
        self.timezone = timezone
        self.zone = zone
        self.unit = unit ?? FahrenheitZones.unit(forZone: timezone)
    }
}

/// Where pollen comes from (docs/reference.md, Key-free pollen thresholds).
public enum PollenSourceChoice: String, Sendable, Hashable {
    /// Google when an API key is configured, else Open-Meteo.
    case auto
    case google
    case openMeteo = "open-meteo"
    /// The DWD alone (`sources: [dwd]`): no daily-forecast source besides it.
    case dwd
}

/// `pollen:`.
public struct PollenSettings: Sendable {
    public var enabled: Bool
    public var source: PollenSourceChoice
    public var apiKey: Secret?
    /// 1…5.
    public var days: Int
    /// BCP 47 language code for Google's localized texts; the top-level `language` unless set.
    public var language: String
    /// The language of the type and plant names the agent gives itself (Open-Meteo's, DWD's):
    /// the top-level `language`, not a key of `pollen:`.
    public var names: Language = .english
    /// At least 15 minutes.
    public var interval: Duration
    /// At least 1 minute.
    public var refreshCooldown: Duration
    /// Google calls per location and local day.
    public var maxCallsPerDay: Int
    /// The level colors: docs/reference.md, Pollen levels and colors's table with `pollen.colors` applied.
    public var colors: PollenPalette
    /// `pollen.sources` names `dwd`, or `auto` (the default): the DWD for every location that
    /// has a DWD region (docs/reference.md, "DWD").
    public var dwd = true
    /// `dwd` comes before the other source in `pollen.sources`: its items give the main topics.
    public var dwdFirst = false
    /// Europe/Berlin's rules, read with the configuration: the DWD document's times are local.
    public var berlin: ZoneRules = .utc

    /// The sources in their configured order, as `check-config` prints them.
    public var sourceList: [String] {
        let primary = source == .dwd ? [] : [source.rawValue]
        guard dwd else { return primary }
        return dwdFirst ? ["dwd"] + primary : primary + ["dwd"]
    }

    public init(
        enabled: Bool = true, source: PollenSourceChoice = .auto, apiKey: Secret? = nil, days: Int = 5,
        language: String = "en", interval: Duration = .seconds(6 * 3600), refreshCooldown: Duration = .seconds(15 * 60),
        maxCallsPerDay: Int = 24, colors: PollenPalette = .standard
    ) {
        self.enabled = enabled
        self.source = source
        self.apiKey = apiKey
        self.days = days
        self.language = language
        self.interval = interval
        self.refreshCooldown = refreshCooldown
        self.maxCallsPerDay = maxCallsPerDay
        self.colors = colors
    }
}

/// `climate:`.
public struct ClimateSettings: Sendable, Equatable {
    public var enabled: Bool
    /// `climate.unit`: nil is `auto` (each location's ``LocationConfig/unit`` by its time zone).
    public var unit: TemperatureUnit?
    /// Sorted, without duplicates, each 1940 ≤ year < the current year.
    public var years: [Int]
    /// At least 1 minute.
    public var refreshCooldown: Duration
    /// `climate.stripes.first_year`: the first warming stripe (docs/reference.md, Warming stripes), 1940 ≤ year < the current year.
    public var stripesFirstYear: Int
    /// Last year as the loader saw it (the current year − 1): the stripes range `check-config`'s
    /// budget shows. The daemon decides the range it fetches each day (`StripesRequest`).
    public var stripesLastYear: Int?

    public init(
        enabled: Bool = true, unit: TemperatureUnit? = nil, years: [Int] = [1980, 1990, 2000, 2010, 2020],
        refreshCooldown: Duration = .seconds(3600), stripesFirstYear: Int = StripesRequest.defaultFirstYear,
        stripesLastYear: Int? = nil
    ) {
        self.enabled = enabled
        self.unit = unit
        self.years = years
        self.refreshCooldown = refreshCooldown
        self.stripesFirstYear = stripesFirstYear
        self.stripesLastYear = stripesLastYear
    }

    /// `climate.unit` as written: `auto`, `celsius` or `fahrenheit`. Stored beside a unit chosen
    /// with `climate/unit/set`, so that a later edit of the configured value wins over the choice.
    public var unitSetting: String { unit?.rawValue ?? "auto" }
}

/// `endpoints:` — API base URLs without a trailing `/` (tests and proxies point these elsewhere).
public struct Endpoints: Sendable, Equatable {
    public var pollen: String
    public var airQuality: String
    public var climateArchive: String
    public var climateForecast: String
    /// The Deutscher Wetterdienst's open data server (`s31fg.json` below it).
    public var dwd = "https://opendata.dwd.de"

    public init(
        pollen: String = "https://pollen.googleapis.com/v1",
        airQuality: String = "https://air-quality-api.open-meteo.com/v1",
        climateArchive: String = "https://archive-api.open-meteo.com/v1",
        climateForecast: String = "https://api.open-meteo.com/v1"
    ) {
        self.pollen = pollen
        self.airQuality = airQuality
        self.climateArchive = climateArchive
        self.climateForecast = climateForecast
    }
}

/// `log_level:`; ordered so that `level >= .warning` reads naturally.
public enum LogLevel: String, Sendable, Hashable, Comparable, CaseIterable {
    case debug
    case info
    case warning
    case error

    private var rank: Int {
        switch self {
        case .debug: 0
        case .info: 1
        case .warning: 2
        case .error: 3
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }
}
