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

/// Every topic the agent publishes or subscribes to, spelled in one place (docs/reference.md, Topics).
///
/// The topic builders, Home Assistant discovery, the daemon's subscriptions and its command
/// parser all ask this type for the agent's own topics; the devices' topics, under the base
/// topic each device was given, are ``DeviceTopics``'. A consumer-facing name changes here or
/// nowhere.
///
/// ```
/// <p>/status                         availability (the will)
/// <p>/diagnostics                    not retained, periodic
/// <p>/status/<i>, <p>/diagnostics/<i>   the same for shard <i> (`shard:`; <p>/status unused)
/// <p>/<loc>/pollen…                  ``LocationTopics/pollen`` and below
/// <p>/<loc>/climate…                 ``LocationTopics/climate`` and below
/// <p>/<loc>/climate/stripes…         ``LocationTopics/climateStripes`` (its own scope)
/// <p>/<loc>/air…                     ``LocationTopics/air`` and below (docs/reference.md, Air quality bands)
/// <p>/<loc>/risk/<profile>…          ``LocationTopics/risk`` and below (docs/reference.md, Personal risk)
/// <p>/<loc>/display                  compact JSON for microcontrollers (docs/displays.md)
/// <p>/<loc>/refresh                  command in
/// <p>/<loc>/climate/unit/set         command in
/// <dp>/device/<slug(p)>_<slug(loc)>/config   Home Assistant device discovery
/// <dp>/status                        Home Assistant's birth message
/// ```
public struct TopicLayout: Sendable, Equatable {
    /// `<p>`, `mqtt.topic_prefix`.
    public let prefix: String
    /// `<dp>`, `homeassistant.prefix`.
    public let discoveryPrefix: String
    /// The shard index when the agent is one shard of a fleet (docs/operations.md, Many locations), else nil.
    public let shardIndex: Int?

    public init(
        prefix: String, discoveryPrefix: String = DiscoveryNaming.defaultDiscoveryPrefix, shardIndex: Int? = nil
    ) {
        self.prefix = prefix
        self.discoveryPrefix = discoveryPrefix
        self.shardIndex = shardIndex
    }

    /// `<p>`: the root every topic of the agent lies under.
    public var root: Topic { Topic(unchecked: prefix) }
    /// `<p>/status`, or `<p>/status/<index>` for a shard: `online` / `offline`.
    public var status: Topic { sharded(root.appending("status")) }
    /// `<p>/agent/-`, or `<p>/agent/<index>` for a shard: the running instance announces itself
    /// there (retained, docs/operations.md, Limits), so a second agent with the same identity is seen.
    public var agent: Topic { root.appending("agent").appending(shardIndex.map { String($0) } ?? "-") }
    /// `<p>/diagnostics`, or `<p>/diagnostics/<index>` for a shard.
    public var diagnostics: Topic { sharded(root.appending("diagnostics")) }
    private func sharded(_ topic: Topic) -> Topic { shardIndex.map { topic.appending(String($0)) } ?? topic }
    /// `<dp>/status`: Home Assistant publishes `online` there when it (re)starts.
    public var homeAssistantBirth: Topic { Topic(unchecked: discoveryPrefix).appending("status") }

    /// The topics of one location.
    public func location(_ id: String) -> LocationTopics {
        LocationTopics(
            id: id, base: root.appending(id),
            deviceConfig: Topic(unchecked: discoveryPrefix).appending("device")
                .appending(DiscoveryNaming.deviceID(topicPrefix: prefix, locationID: id)).appending("config"))
    }

    // MARK: parsing topics (the one place that knows the levels)

    /// `<p>/`: every location's topics start here.
    public var locationPrefix: String { prefix + "/" }
    /// `<dp>/device/`: where Home Assistant device configs live.
    public var deviceConfigs: String { discoveryPrefix + "/device/" }
    /// `<dp>/device/<slug(p)>_`: the start of every device config of this prefix's locations.
    public var agentDeviceConfigs: String { deviceConfigs + DiscoveryNaming.slug(prefix) + "_" }

    /// Whether `topic` is Home Assistant's (`<dp>/…`: device configs, its birth topic).
    public func isDiscoveryTopic(_ topic: String) -> Bool { Topic.isDescendant(topic, of: discoveryPrefix) }

    /// Whether `topic` lies under `<p>/` (a location's topic or the agent's own, not `<p>` itself).
    public func isUnderPrefix(_ topic: String) -> Bool { topic.hasPrefix(locationPrefix) }

    /// The `<loc>` level of a `<p>/<loc>/…` topic: the location that owns it by its place in the
    /// tree, whether or not such a location is configured (also `status`, `diagnostics`). Nil
    /// for a topic outside `<p>/`.
    public func locationLevel(of topic: String) -> Substring? { Self.level(after: locationPrefix, in: topic) }

    /// The level a device config of this prefix's locations is named by, after
    /// `<dp>/device/<slug(p)>_` (the location's slug in `…/breeze_home/config`); nil for any
    /// topic that does not start so. It may be empty or not a slug: the caller judges it.
    public func agentDeviceLevel(of topic: String) -> Substring? { Self.level(after: agentDeviceConfigs, in: topic) }

    /// What follows `start` in `topic` up to the next `/` (or the end); nil when `topic` does not
    /// begin with `start`. Levels are split at the byte `/`, as MQTT does.
    private static func level(after start: String, in topic: String) -> Substring? {
        guard topic.hasPrefix(start) else { return nil }
        let rest = topic.utf8.dropFirst(start.utf8.count)
        return Substring(rest.prefix { $0 != UInt8(ascii: "/") })
    }

    /// The levels under `<p>/` that are the agent's own topics, never a location's
    /// (``status``, ``diagnostics``, ``agent``).
    public static let reservedLevels: Set<Substring> = ["status", "diagnostics", "agent"]

    /// The location a `<p>/<loc>/…` topic lies under: its `<loc>` level when that is not empty
    /// and a level follows it (so not `<p>/<loc>` itself, and not `<p>/status`). It may be a
    /// reserved level (``reservedLevels``) or a location that is not configured.
    public func locationID(of topic: String) -> String? {
        guard let level = locationLevel(of: topic), !level.isEmpty, level.endIndex < topic.endIndex else { return nil }
        return String(level)
    }

    /// Whether `topic` is a Home Assistant device config (`<dp>/device/…/config`), any agent's.
    public func isDeviceConfig(_ topic: String) -> Bool {
        topic.hasPrefix(deviceConfigs) && topic.hasSuffix("/config")
    }

    /// Whether `topic` is a device config of this prefix's locations (`<dp>/device/<slug(p)>_…/config`).
    public func isAgentDeviceConfig(_ topic: String) -> Bool {
        topic.hasPrefix(agentDeviceConfigs) && topic.hasSuffix("/config")
    }

    /// The command a message on `topic` carries, with the location it addresses; nil for any
    /// topic that is not one of ``LocationTopics/commandTopics``.
    public func command(on topic: String) -> (locationID: String, command: LocationCommand)? {
        guard let id = locationID(of: topic) else { return nil }
        let topics = location(id)
        for command in LocationCommand.allCases where topics.topic(of: command).name == topic {
            return (id, command)
        }
        return nil
    }
}

/// A command the agent accepts on a location's topics.
public enum LocationCommand: Sendable, Equatable, CaseIterable {
    /// `<p>/<loc>/refresh`: fetch now (within the cooldowns).
    case refresh
    /// `<p>/<loc>/climate/unit/set`: the display unit.
    case setUnit
}

/// The topics of one location, `<p>/<loc>/…`.
public struct LocationTopics: Sendable, Equatable {
    /// The location id (`[a-z0-9_-]+`).
    public let id: String
    /// `<p>/<loc>`.
    public let base: Topic
    /// `<dp>/device/<slug(p)>_<slug(loc)>/config`: this location's Home Assistant device.
    public let deviceConfig: Topic

    // MARK: pollen

    /// `<p>/<loc>/pollen`: the summary JSON, and the scope of every pollen topic.
    public var pollen: Topic { base.appending("pollen") }
    /// `<p>/<loc>/pollen/<item>`: one item's JSON; its scalars are ``ScalarTopics``.
    public func pollenItem(_ itemID: String) -> Topic { pollen.appending(itemID) }
    /// `<p>/<loc>/pollen/<item>/d<N>`: forecast day N (1…4) of an item.
    public func pollenItem(_ itemID: String, day: Int) -> Topic { pollenItem(itemID).appending("d" + String(day)) }
    /// `<p>/<loc>/pollen/<item>/now` (+ `/value`, `/level`, `/color`): the current local hour
    /// (docs/reference.md, The hour to air out, Open-Meteo only).
    public func pollenNow(_ itemID: String) -> Topic { ScalarTopics.now(pollenItem(itemID)) }
    /// `<p>/<loc>/pollen/<item>/peak_at`: today's highest hour, ISO 8601 local time (docs/reference.md, The hour to air out).
    public func pollenPeakAt(_ itemID: String) -> Topic { pollenItem(itemID).appending("peak_at") }
    /// `<p>/<loc>/pollen/<item>/sources`: every source's reading of the item (docs/reference.md, "Several sources").
    public func pollenSources(_ itemID: String) -> Topic { pollenItem(itemID).appending("sources") }
    /// `<p>/<loc>/pollen/<item>/dwd`: a DWD species in the DWD integrations' shape (``DWDCardTopics``).
    public func pollenDWD(_ itemID: String) -> Topic { pollenItem(itemID).appending("dwd") }
    /// `<p>/<loc>/pollen/<item>/consensus` (+ `/level`): the careful reading of the sources.
    public func pollenConsensus(_ itemID: String) -> Topic { pollenItem(itemID).appending("consensus") }
    /// `<p>/<loc>/pollen/<item>/percentile`: today's mean among the last 92 days' (docs/reference.md, The hour to air out).
    public func pollenPercentile(_ itemID: String) -> Topic { pollenItem(itemID).appending("percentile") }
    /// `<p>/<loc>/pollen/<item>/season_start`: the current run's first day (docs/reference.md, The hour to air out).
    public func pollenSeasonStart(_ itemID: String) -> Topic { pollenItem(itemID).appending("season_start") }
    /// `<p>/<loc>/pollen/air_out` (+ `/now`): the best hours to air out (docs/reference.md, The hour to air out).
    public var pollenAirOut: Topic { pollen.appending("air_out") }
    /// `<p>/<loc>/pollen/max`.
    public var pollenMax: Topic { pollen.appending("max") }
    /// `<p>/<loc>/pollen/peak` (+ `/date`, `/level`, `/color`): the expected peak (docs/reference.md, Max, trend and peak).
    public var pollenPeak: Topic { pollen.appending("peak") }
    /// `<p>/<loc>/pollen/updated_at`.
    public var pollenUpdatedAt: Topic { pollen.appending("updated_at") }
    /// `<p>/<loc>/pollen/stale`.
    public var pollenStale: Topic { pollen.appending("stale") }

    // MARK: climate

    /// `<p>/<loc>/climate`: the climate JSON, and the scope of every climate topic.
    public var climate: Topic { base.appending("climate") }
    /// `<p>/<loc>/climate/change` (+ `/text`, `/color`).
    public var climateChange: Topic { climate.appending("change") }
    /// `<p>/<loc>/climate/<year>` (+ `/text`, `/color`).
    public func climateYear(_ year: Int) -> Topic { climate.appending(String(year)) }
    /// `<p>/<loc>/climate/current` (+ `/text`, `/color`).
    public var climateCurrent: Topic { climate.appending("current") }
    /// `<p>/<loc>/climate/unit`.
    public var climateUnit: Topic { climate.appending("unit") }
    /// `<p>/<loc>/climate/stripes`: the warming-stripes JSON (docs/reference.md, Warming stripes), and the scope of the
    /// stripes topics (fetched once a year, so they have a scope of their own inside climate's).
    public var climateStripes: Topic { climate.appending("stripes") }
    /// `<p>/<loc>/climate/stripes/colors`: the stripe colors, comma-separated, oldest first.
    public var climateStripesColors: Topic { climateStripes.appending("colors") }

    // MARK: air and risk (docs/reference.md, Air quality bands)

    /// `<p>/<loc>/air`: the air JSON, and the scope of every air topic.
    public var air: Topic { base.appending("air") }
    /// `<p>/<loc>/air/<metric>`: its scalars are ``ScalarTopics`` (`/value`, `/level`, `/color`).
    public func airMetric(_ metric: AirMetric) -> Topic { air.appending(metric.rawValue) }
    /// `<p>/<loc>/air/updated_at`.
    public var airUpdatedAt: Topic { air.appending("updated_at") }
    /// `<p>/<loc>/air/stale`.
    public var airStale: Topic { air.appending("stale") }

    /// `<p>/<loc>/risk`: the scope of every profile's topics.
    public var risk: Topic { base.appending("risk") }
    /// `<p>/<loc>/risk/<profile>`: the profile's JSON (+ `/level`, `/color`, `/alert`).
    public func riskProfile(_ profileID: String) -> Topic { risk.appending(profileID) }
    /// `<p>/<loc>/risk/<profile>/alert`.
    public func riskAlert(_ profileID: String) -> Topic { riskProfile(profileID).appending("alert") }
    /// `<p>/<loc>/risk/<profile>/air_out` (+ `/now`): the profile's hours to air out (docs/reference.md, The hour to air out).
    public func riskAirOut(_ profileID: String) -> Topic { riskProfile(profileID).appending("air_out") }

    // MARK: displays

    /// `<p>/<loc>/display`: the compact JSON for microcontrollers (docs/displays.md).
    public var display: Topic { base.appending("display") }

    // MARK: images (docs/images.md)

    /// `<p>/<loc>/image`: the parent of the location's images.
    public var images: Topic { base.appending("image") }
    /// `<p>/<loc>/image/<id>`: one image's raw PNG or JPEG bytes, retained.
    public func image(_ imageID: String) -> Topic { images.appending(imageID) }

    // MARK: commands

    /// `<p>/<loc>/refresh`.
    public var refresh: Topic { topic(of: .refresh) }
    /// `<p>/<loc>/climate/unit/set`.
    public var climateUnitSet: Topic { topic(of: .setUnit) }

    /// The topic a command arrives on.
    public func topic(of command: LocationCommand) -> Topic {
        switch command {
        case .refresh: return base.appending("refresh")
        case .setUnit: return climateUnit.appending("set")
        }
    }

    /// Every command topic of the location, for the subscriptions.
    public var commandTopics: [Topic] { LocationCommand.allCases.map(topic(of:)) }
}

/// The three scalars under a value topic: `<t>/value` (or `<t>` itself for climate), `/level`,
/// `/color`, `/text`.
public enum ScalarTopics {
    public static func value(_ topic: Topic) -> Topic { topic.appending("value") }
    public static func level(_ topic: Topic) -> Topic { topic.appending("level") }
    public static func color(_ topic: Topic) -> Topic { topic.appending("color") }
    public static func text(_ topic: Topic) -> Topic { topic.appending("text") }
    /// `<t>/trend`: `rising` | `falling` | `steady` | `unknown` (docs/reference.md, Max, trend and peak).
    public static func trend(_ topic: Topic) -> Topic { topic.appending("trend") }
    /// `<t>/date` (the peak's day).
    public static func date(_ topic: Topic) -> Topic { topic.appending("date") }
    /// `<t>/now`: an item's current hour, or whether now is a good time to air out (docs/reference.md, The hour to air out).
    public static func now(_ topic: Topic) -> Topic { topic.appending("now") }
}
