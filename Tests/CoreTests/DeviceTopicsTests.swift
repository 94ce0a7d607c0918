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
import Testing

/// The device firmwares' topics, spelled and derived in one place (SPEC §8).
@Suite("DeviceTopics: the displays' own topics")
struct DeviceTopicsTests {
    @Test func tasmotaAnswersOnTheCommandPrefixWithItsCmndLevelReadAsStat() {
        #expect(DeviceTopics.tasmotaCommandPrefix("bulb") == "cmnd/bulb")
        #expect(DeviceTopics.tasmotaAnswers("cmnd/bulb") == ["stat/bulb/RESULT", "stat/bulb/POWER"])
        // A custom FullTopic (`%topic%/%prefix%/`): the `cmnd` level is found where it is.
        #expect(
            DeviceTopics.tasmotaAnswers("kitchen/bulb/cmnd") == ["kitchen/bulb/stat/RESULT", "kitchen/bulb/stat/POWER"])
        // No `cmnd` level: no answers to watch (no power check).
        #expect(DeviceTopics.tasmotaAnswers("lights/bulb").isEmpty)
        #expect(DeviceTopics.tasmotaCommand("cmnd/bulb", "Color") == "cmnd/bulb/Color")
        #expect(DeviceTopics.tasmotaLWT("bulb") == "tele/bulb/LWT")
    }

    @Test func wledAndAwtrixTopicsHangUnderTheDeviceTopic() {
        #expect(DeviceTopics.wledAPI("wled/desk") == "wled/desk/api")
        #expect(DeviceTopics.wledStatus("wled/desk") == "wled/desk/status")
        #expect(DeviceTopics.awtrixApp("awtrix", "pollen") == "awtrix/custom/pollen")
        #expect(DeviceTopics.awtrixIndicator("awtrix", 2) == "awtrix/indicator2")
    }
}
