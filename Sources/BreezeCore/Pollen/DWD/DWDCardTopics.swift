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

/// `<p>/<loc>/pollen/<id>/dwd`: one DWD species as the DWD's own numbers, in the shape the
/// German DWD integrations give their sensors (docs/home-assistant.md, "The DWD card shape"):
///
/// ```
/// {"species":"Hasel","region_id":50,"region_name":"Brandenburg und Berlin",
///  "state_today":0.5,"state_tomorrow":1,"state_in_2_days":null,
///  "state_today_desc":"keine bis geringe Belastung",…,
///  "last_update":"2026-12-06T11:00:00+01:00","next_update":"2026-12-07T11:00:00+01:00","stale":false,…}
/// ```
///
/// The states are the DWD number (0–3 in half steps, whole numbers without a fraction), null
/// for no data; the days are the location's Berlin days as the item topics show them (a
/// document not yet replaced shifts at midnight, and says nothing after 48 hours).
public enum DWDCardTopics {
    /// The eight species' topics for region `key`; empty when the document has no such row.
    public static func tree(
        topics: LocationTopics, document: DWDPollen.Document, key: Int, now: Int64, berlin: ZoneRules
    ) -> TopicTree {
        var tree = TopicTree()
        guard let row = document.row(key: key),
            let report = DWDPollen.report(document, key: key, now: now, berlin: berlin)
        else { return tree }
        let stale = now - document.lastUpdate > DWDPollen.freshSeconds
        for species in DWDPollen.species {
            let id = species.code.lowercased()
            let days = (0..<3).map { offset in
                DWDPollen.Index(
                    offset < report.days.count
                        ? report.days[offset].items.first { $0.topicID == id }?.indexCategory : nil)
            }
            let names = ["state_today", "state_tomorrow", "state_in_2_days"]
            var members: [JSONMember] = [
                JSONMember("species", .string(species.key)),
                JSONMember("region_id", .integer(key)),
                JSONMember("region_name", .string(row.name)),
            ]
            for (name, index) in zip(names, days) {
                members.append(JSONMember(name, index.dwdValueText.map(JSONValue.number) ?? .null))
            }
            for (name, index) in zip(names, days) {
                members.append(JSONMember(name + "_desc", .optional(index.description)))
            }
            members += [
                JSONMember("last_update", .string(localTimestamp(document.lastUpdate, berlin: berlin))),
                JSONMember("next_update", .optional(document.nextUpdate.map { localTimestamp($0, berlin: berlin) })),
                JSONMember("stale", .bool(stale)),
                JSONMember("attribution", .string(DWDPollen.attribution)),
            ]
            tree.set(topics.pollenDWD(id), json: .object(members))
        }
        return tree
    }

    /// ISO 8601 with Berlin's offset at that instant, `2026-12-06T11:00:00+01:00` (what the DWD
    /// integrations show as `last_update`).
    static func localTimestamp(_ instant: Int64, berlin: ZoneRules) -> String {
        let offset = berlin.utcOffset(atUnixTime: instant)
        let utc = UTCTimestamp.rfc3339(unixSeconds: instant + Int64(offset)).dropLast()
        let magnitude = abs(offset)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        return utc + (offset < 0 ? "-" : "+") + two(magnitude / 3600) + ":" + two(magnitude % 3600 / 60)
    }
}
