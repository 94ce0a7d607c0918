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

import BreezeCore

/// The effective configuration as YAML for `check-config`: every default filled in, every
/// secret shown only as `********` (with where it came from) or `(not set)`.
///
/// The output is valid YAML that `ConfigLoader` would accept again, except that masked
/// secrets are placeholders.
public func renderEffective(_ c: AgentConfig) -> String {
    var out: [String] = ["# effective configuration from \(c.sourceFile); secrets masked"]
    func line(_ indent: Int, _ key: String, _ value: String, comment: String? = nil) {
        let pad = String(repeating: " ", count: indent)
        out.append(pad + key + ":" + (value.isEmpty ? "" : " " + value) + (comment.map { "  # " + $0 } ?? ""))
    }
    func secret(_ indent: Int, _ key: String, _ s: Secret?) {
        if let s {
            line(indent, key, quoted(s.description), comment: "from \(s.origin)")
        } else {
            line(indent, key, "", comment: "(not set)")
        }
    }
    func optional(_ indent: Int, _ key: String, _ value: String?, unset: String) {
        if let value { line(indent, key, quoted(value)) } else { line(indent, key, "", comment: unset) }
    }

    let m = c.mqtt
    line(0, "mqtt", "")
    line(2, "host", quoted(m.host))
    line(2, "port", String(m.port))
    optional(2, "username", m.username, unset: "(not set)")
    secret(2, "password", m.password)
    line(2, "client_id", quoted(m.clientID))
    line(2, "topic_prefix", quoted(m.topicPrefix))
    line(2, "qos", String(m.qos))
    line(2, "keepalive", String(m.keepalive))
    line(
        2, "protocol", quoted(m.protocolVersion.description),
        comment: m.protocolExplicit ? nil : "default; falls back to 3.1.1 once if the broker refuses MQTT 5")
    if let size = m.maxPacketSize {
        line(2, "max_packet_size", String(size))
    } else {
        line(2, "max_packet_size", "", comment: "(not set: only an MQTT 5 broker's own limit applies)")
    }
    if let tls = m.tls {
        line(2, "tls", "")
        optional(4, "ca_file", tls.caFile, unset: "system CAs")
        optional(4, "cert_file", tls.certFile, unset: "(not set)")
        optional(4, "key_file", tls.keyFile, unset: "(not set)")
        line(4, "insecure", String(tls.insecure))
    } else {
        out.append("  # tls: off")
    }

    line(0, "homeassistant", "")
    line(2, "discovery", String(c.homeAssistant.discovery))
    line(2, "prefix", quoted(c.homeAssistant.prefix))

    line(0, "locations", "")
    for location in c.locations {
        out.append("  - id: " + quoted(location.id))
        line(4, "name", quoted(location.name))
        line(4, "latitude", String(location.latitude))
        line(4, "longitude", String(location.longitude))
        line(
            4, "timezone", quoted(location.timezone),
            comment: "climate in \(location.unit.symbol)" + (c.climate.unit == nil ? " (climate.unit auto)" : ""))
        // A region chosen from the coordinates is a comment: the rendering loads back the same.
        if let key = location.dwdRegion, let region = DWDRegions.region(key: key) {
            if location.dwdRegionGiven {
                line(4, "dwd_region", String(key), comment: region.name)
            } else {
                out.append("    # dwd_region: \(key)  \(region.name) (nearest to the coordinates)")
            }
        } else if c.pollen.enabled && c.pollen.dwd {
            out.append("    # dwd_region: none (outside Germany: no DWD pollen)")
        }
    }

    line(0, "language", quoted(c.languageTag), comment: "names in Home Assistant, the status page, images")

    let p = c.pollen
    line(0, "pollen", "")
    line(2, "enabled", String(p.enabled))
    // `source: X` where one word says it (`auto` includes the DWD), else the ordered list.
    if p.source == .auto || !p.dwd || p.source == .dwd {
        let comment =
            p.source == .auto
            ? (p.dwd ? "Google with a key, else Open-Meteo; plus dwd where a location has a DWD region" : nil)
            : nil
        line(2, "source", p.source.rawValue, comment: comment)
    } else {
        line(2, "sources", "[" + p.sourceList.joined(separator: ", ") + "]")
    }
    secret(2, "api_key", p.apiKey)
    line(2, "days", String(p.days))
    line(2, "language", quoted(p.language))
    line(2, "interval", durationText(p.interval))
    line(2, "refresh_cooldown", durationText(p.refreshCooldown))
    line(2, "max_calls_per_day", String(p.maxCallsPerDay))
    line(2, "colors", "")
    let colors: [(String, HexColor)] = [
        ("none", p.colors.none), ("low", p.colors.low), ("moderate", p.colors.moderate), ("high", p.colors.high),
        ("very_high", p.colors.veryHigh), ("unknown", p.colors.unknown),
    ]
    for (key, value) in colors { line(4, key, quoted(value.description)) }

    let cl = c.climate
    line(0, "climate", "")
    line(2, "enabled", String(cl.enabled))
    line(2, "unit", cl.unitSetting)
    line(2, "years", "[" + cl.years.map(String.init).joined(separator: ", ") + "]")
    line(2, "refresh_cooldown", durationText(cl.refreshCooldown))
    line(2, "stripes", "")
    line(4, "first_year", String(cl.stripesFirstYear))

    line(0, "air", "")
    line(2, "enabled", String(c.air.enabled))
    line(2, "interval", durationText(c.air.interval))

    line(0, "air_out", "")
    line(2, "window", String(c.airOut.window))
    line(2, "hours", quoted(c.airOut.hours.description))

    if c.profiles.isEmpty {
        out.append("# profiles: none")
    } else {
        line(0, "profiles", "")
        for profile in c.profiles {
            out.append("  - id: " + quoted(profile.id))
            line(4, "name", quoted(profile.name))
            line(4, "allergens", "[" + profile.allergens.joined(separator: ", ") + "]")
            line(4, "alert_level", quoted(profile.alertLevel.label))
        }
    }

    line(0, "endpoints", "")
    line(2, "pollen", quoted(EndpointURL.maskingUserinfo(c.endpoints.pollen)))
    line(2, "air_quality", quoted(EndpointURL.maskingUserinfo(c.endpoints.airQuality)))
    line(2, "climate_archive", quoted(EndpointURL.maskingUserinfo(c.endpoints.climateArchive)))
    line(2, "climate_forecast", quoted(EndpointURL.maskingUserinfo(c.endpoints.climateForecast)))
    line(2, "dwd", quoted(EndpointURL.maskingUserinfo(c.endpoints.dwd)))
    if let perMinute = c.endpointsMaxCallsPerMinute { line(2, "max_calls_per_minute", String(perMinute)) }

    if let shard = c.shard {
        let owned = c.ownedLocations.map(\.id)
        line(0, "shard", "", comment: "owns \(owned.isEmpty ? "no locations" : owned.joined(separator: ", "))")
        line(2, "index", String(shard.index))
        line(2, "count", String(shard.count))
    }
    if let http = c.http {
        line(0, "http", "", comment: http.allowExplicit ? nil : "allow: the default, loopback only")
        line(2, "listen", quoted(http.listenText))
        line(2, "allow", "[" + http.allow.map { quoted($0.description) }.joined(separator: ", ") + "]")
        line(2, "max_per_ip", String(http.maxPerIP))
        if !http.hosts.isEmpty { line(2, "hosts", "[" + http.hosts.map { quoted($0) }.joined(separator: ", ") + "]") }
    } else {
        // max_concurrent alone (the API client's bound) starts no server.
        line(0, "http", "", comment: "server off: no listen")
    }
    line(2, "max_concurrent", String(c.httpMaxConcurrent))
    line(0, "state_dir", quoted(c.stateDir))
    line(0, "log_level", c.logLevel.rawValue)
    out += renderImages(c.images)
    out += renderOutputs(c.outputs)
    out += renderOpenEPaperLink(c.openEPaperLink, header: c.outputs.isEmpty)
    return out.joined(separator: "\n") + "\n"
}

/// A YAML double-quoted string (always quoted: `#`, `:` and `yes` then need no thought).
private func quoted(_ text: String) -> String { doubleQuoted(text, controls: .yaml) }

/// The largest whole unit: 6h, 90s, 1d.
///
/// Written out, not as a loop over `[("d", 86_400), ("h", 3600), ("m", 60)]`, for byte-identical
/// builds (issue 49): the SIL loop unroller of Swift 6.2 and 6.3 (LoopUnroll) unrolled that loop fully and
/// gave the block after its `return` one argument per value the loop hands out (the unit, the
/// size) in an order that follows the addresses of those values in the compiler's memory (it
/// walks a map keyed by them), so this function's machine code came in one of two instruction
/// orders depending on the clone's path and the environment. Without a loop there is nothing
/// for the unroller to order.
func durationText(_ d: Duration) -> String {
    let seconds = Int(d.components.seconds)
    guard seconds > 0 else { return "\(seconds)s" }
    if seconds % 86_400 == 0 { return "\(seconds / 86_400)d" }
    if seconds % 3600 == 0 { return "\(seconds / 3600)h" }
    if seconds % 60 == 0 { return "\(seconds / 60)m" }
    return "\(seconds)s"
}
