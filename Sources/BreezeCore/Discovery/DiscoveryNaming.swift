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

/// Names shared by Home Assistant discovery and the runtime: slugs, the device id and the
/// re-announce rules. Topics are ``TopicLayout``'s.
///
/// Home Assistant only accepts `[a-zA-Z0-9_-]` in the node/object part of a discovery topic and
/// only `[a-z0-9_]` in an entity id, while the topic prefix is a free MQTT topic level
/// (`breeze`, `my-hub`, even `home/breeze`). The helpers here map one to the other.
public enum DiscoveryNaming {
    /// The discovery prefix Home Assistant listens on unless configured otherwise.
    public static let defaultDiscoveryPrefix = "homeassistant"

    /// docs/reference.md, Topics `slug`: maps `-` to `_`. It also lower-cases ASCII letters and maps any other
    /// character outside `[a-z0-9_]` (a `/` in a nested topic prefix, say) to `_`, so that the
    /// result is always usable in a discovery topic and a unique id; for documented inputs
    /// (a `[a-z0-9_-]+` location id, a plain prefix) this is exactly the documented mapping.
    public static func slug(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "a"..."z", "0"..."9", "_": out.append(scalar)
            case "A"..."Z": out.append(Unicode.Scalar(scalar.value + 32)!)
            default: out.append("_")
            }
        }
        return String(out)
    }

    /// An entity object id (the part after `sensor.`) matching `[a-z0-9]+(_[a-z0-9]+)*`:
    /// the slug with repeated underscores collapsed and edge underscores dropped. Home Assistant
    /// would otherwise rewrite the id itself, and the documented ids would not match.
    public static func entityObjectID(_ text: String) -> String {
        var out = ""
        var pendingUnderscore = false
        for character in slug(text) {
            if character == "_" {
                pendingUnderscore = !out.isEmpty
            } else {
                if pendingUnderscore { out.append("_") }
                pendingUnderscore = false
                out.append(character)
            }
        }
        // Only reachable for a name made of separators alone, which config validation refuses.
        return out.isEmpty ? "breeze" : out
    }

    /// `<slug(p)>_<slug(loc)>`: the device identifier, the discovery node id and the first part
    /// of every unique id of that location.
    public static func deviceID(topicPrefix: String, locationID: String) -> String {
        slug(topicPrefix) + "_" + slug(locationID)
    }

    /// The birth payload that triggers a re-announce.
    public static let birthOnlinePayload = "online"

    /// The delay before re-sending discovery after Home Assistant's birth message: 1–10 s in
    /// whole milliseconds. The jitter keeps many agents (and other integrations) from flooding
    /// a Home Assistant that has just started; the generator is a parameter so that tests can
    /// pin it.
    ///
    /// One word, reduced modulo 9 001, instead of `Int.random(in:using:)`: the standard
    /// library's rejection sampling may draw any number of words (forever, from a constant
    /// generator), whereas this maps each word to one delay; the bias (9 001 against 2^64) is
    /// far below anything a retry delay could notice.
    public static func reannounceDelay<Generator: RandomNumberGenerator>(using generator: inout Generator) -> Duration {
        .milliseconds(1_000 + Int(generator.next() % 9_001))
    }
}

/// The agent's availability on `<p>/status`: the MQTT will message publishes ``offline``,
/// the agent publishes ``online`` after connecting and ``offline`` on a clean exit.
public enum Availability {
    public static let online = "online"
    public static let offline = "offline"

    /// The `availability` list of a discovery payload: entities turn unavailable in Home
    /// Assistant when the agent is gone.
    public static func discoveryList(statusTopic: String) -> JSONValue {
        .array([
            .object([
                "topic": .string(statusTopic),
                "payload_available": .string(online),
                "payload_not_available": .string(offline),
            ])
        ])
    }
}
