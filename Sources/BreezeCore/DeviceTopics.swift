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

/// The topics of the displays the agent drives on their own topics (docs/displays.md), spelled in one
/// place like ``TopicLayout`` and as ``Topic`` values too. Each firmware fixes these names; the agent only chooses the
/// device topic (`outputs[].topic`) the user gave the device.
public enum DeviceTopics {
    /// WLED's JSON state API over MQTT: `<topic>/api` (wled00/mqtt.cpp, `onMqttMessage`).
    public static func wledAPI(_ topic: String) -> Topic { Topic(unchecked: topic).appending("api") }
    /// WLED's availability: `online` (retained, after every state change) / `offline` (its will).
    public static func wledStatus(_ topic: String) -> Topic { Topic(unchecked: topic).appending("status") }

    /// An Awtrix 3 custom app: `<prefix>/custom/<app>` (retained by the agent; empty deletes it).
    public static func awtrixApp(_ prefix: String, _ app: String) -> Topic {
        Topic(unchecked: prefix).appending("custom").appending(app)
    }
    /// An Awtrix 3 corner indicator: `<prefix>/indicator<N>`, N 1…3.
    public static func awtrixIndicator(_ prefix: String, _ number: Int) -> Topic {
        Topic(unchecked: prefix).appending("indicator" + String(number))
    }

    /// Tasmota's default command prefix `cmnd/<topic>` (FullTopic `%prefix%/%topic%/`).
    public static func tasmotaCommandPrefix(_ topic: String) -> Topic { Topic(unchecked: "cmnd/" + topic) }
    /// Tasmota's default will `tele/<topic>/LWT` (`Online` / `Offline`).
    public static func tasmotaLWT(_ topic: String) -> Topic { Topic(unchecked: "tele/" + topic).appending("LWT") }
    /// One Tasmota command under a command prefix: `cmnd/<topic>/Color`.
    public static func tasmotaCommand(_ commandPrefix: String, _ command: String) -> Topic {
        Topic(unchecked: commandPrefix).appending(command)
    }

    /// Where Tasmota answers the commands sent under `commandPrefix`: `stat/<topic>/RESULT`
    /// (every command's answer) and `stat/<topic>/POWER` (power changes), the command prefix
    /// with its `cmnd` level read as `stat`. Empty for a custom FullTopic without a `cmnd` level.
    public static func tasmotaAnswers(_ commandPrefix: String) -> [Topic] {
        var levels = Topic(unchecked: commandPrefix).levels
        guard let index = levels.firstIndex(of: "cmnd") else { return [] }
        levels[index] = "stat"
        let stat = Topic(unchecked: levels.joined(separator: "/"))
        return [stat.appending("RESULT"), stat.appending("POWER")]
    }
}
