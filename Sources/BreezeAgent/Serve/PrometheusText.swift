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
import BreezeDaemon

/// `/metrics` in the Prometheus text exposition format 0.0.4: a `# HELP` and a `# TYPE` line
/// per family, then its samples; label values escaped (`\\`, `\"`, `\n`). Names carry the
/// `breeze_` prefix; times are Unix seconds (`_timestamp_seconds`).
enum PrometheusText {
    struct Family {
        let name: String
        let type: String
        let help: String
        var samples: [(labels: [(String, String)], value: String)] = []
    }

    static func metrics(of snapshot: ServeSnapshot) -> String {
        var families: [Family] = []

        var info = Family(name: "breeze_info", type: "gauge", help: "The agent's version (always 1).")
        info.samples.append(([("version", snapshot.version)], "1"))
        families.append(info)

        var uptime = Family(name: "breeze_uptime_seconds", type: "gauge", help: "Seconds since the agent started.")
        uptime.samples.append(([], String(snapshot.uptimeSeconds)))
        families.append(uptime)

        var connected = Family(
            name: "breeze_mqtt_connected", type: "gauge", help: "1 while the agent is connected to the MQTT broker.")
        connected.samples.append(([], snapshot.mqttConnected ? "1" : "0"))
        families.append(connected)

        var topics = Family(
            name: "breeze_published_topics", type: "gauge",
            help: "Retained topics the agent has published on the broker and not cleared.")
        topics.samples.append(([], String(snapshot.publishedTopics)))
        families.append(topics)

        var fetches = Family(
            name: "breeze_fetches_total", type: "counter", help: "Fetches finished per source, failed ones included.")
        var failures = Family(
            name: "breeze_fetch_failures_total", type: "counter", help: "Fetches that failed, per source.")
        var stuck = Family(
            name: "breeze_fetches_stuck_total", type: "counter",
            help: "Fetches with no answer long past their timeout, cancelled and retried (also counted as failures).")
        for status in snapshot.fetches {
            fetches.samples.append(([("source", status.source)], String(status.fetchesOK + status.fetchesFailed)))
            failures.samples.append(([("source", status.source)], String(status.fetchesFailed)))
            stuck.samples.append(([("source", status.source)], String(status.fetchesStuck)))
        }
        families += [fetches, failures, stuck]

        var calls = Family(
            name: "breeze_api_calls_today", type: "gauge",
            help:
                "API calls per location and API on the location's local day (google is capped by pollen.max_calls_per_day)."
        )
        var lastSuccess = Family(
            name: "breeze_last_success_timestamp_seconds", type: "gauge",
            help: "When the data shown for a location and source was fetched (Unix time).")
        var stale = Family(
            name: "breeze_source_stale", type: "gauge",
            help: "1 when a location's source is stale (kept data after a failed fetch, or failing without data).")
        for location in snapshot.locations {
            calls.samples.append(([("location", location.id), ("api", "google")], String(location.googleCallsToday)))
            calls.samples.append(
                ([("location", location.id), ("api", "open_meteo")], String(location.openMeteoCallsToday)))
            for source in location.sources {
                let labels = [("location", location.id), ("source", source.kind.rawValue)]
                if let time = source.lastSuccess { lastSuccess.samples.append((labels, String(time.unixSeconds))) }
                stale.samples.append((labels, source.state == .stale ? "1" : "0"))
            }
        }
        families += [calls, lastSuccess, stale]

        var requests = Family(
            name: "breeze_open_meteo_requests_today", type: "gauge",
            help: "Open-Meteo requests per source since the last UTC midnight.")
        var weighted = Family(
            name: "breeze_open_meteo_weighted_calls_today", type: "gauge",
            help: "Open-Meteo weighted calls per source since the last UTC midnight (its free tier counts these).")
        for source in snapshot.openMeteoCallsToday {
            requests.samples.append(([("source", source.source)], String(source.requests)))
            weighted.samples.append(
                ([("source", source.source)], FixedPoint.format(source.weight.hundredths, scale: 2)))
        }
        families += [requests, weighted]

        var text = ""
        for family in families {
            text += "# HELP \(family.name) \(escapeHelp(family.help))\n# TYPE \(family.name) \(family.type)\n"
            for sample in family.samples {
                text += family.name
                if !sample.labels.isEmpty {
                    text += "{" + sample.labels.map { "\($0.0)=\"\(escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
                }
                text += " " + sample.value + "\n"
            }
        }
        return text
    }

    /// A label value: backslash, double quote and line feed escaped.
    static func escapeLabel(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A HELP text: backslash and line feed escaped.
    static func escapeHelp(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
