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
import Foundation
import Testing

/// SPEC §9.2: each image of a location is an MQTT `image` entity of its device, reading the raw
/// bytes on `<p>/<loc>/image/<id>` with the image's content type.
@Suite("Home Assistant discovery: images")
struct DiscoveryImageTests {
    func payload(images: [DiscoveryInput.Image], qos: Int = 1) throws -> [String: Any] {
        var input = DiscoveryInput(
            layout: TopicLayout(prefix: "home/breeze"), agentVersion: "1.2.3", qos: qos,
            location: .init(id: "my-home", name: "Home"),
            pollenAvailable: false, pollenItems: [], climateEnabled: true)
        input.images = images
        return try decodeDiscovery(HomeAssistantDiscovery.deviceConfig(for: input))
    }

    @Test func oneImageEntityPerImage() throws {
        let root = try payload(
            images: [.init(id: "hall-way", format: .png), .init(id: "tag", format: .jpeg)], qos: 2)
        let all = try discoveryComponents(root)
        let png = try #require(all["image_hall_way"])
        #expect(png["platform"] as? String == "image")
        #expect(png["image_topic"] as? String == "home/breeze/my-home/image/hall-way")
        #expect(png["content_type"] as? String == "image/png")
        #expect(png["unique_id"] as? String == "home_breeze_my_home_image_hall_way")
        #expect(png["default_entity_id"] as? String == "image.home_breeze_my_home_image_hall_way")
        #expect(png["qos"] as? Int == 2)
        // Raw bytes: no base64 `image_encoding`, and no `url_topic`.
        #expect(png["image_encoding"] == nil && png["url_topic"] == nil)
        let jpeg = try #require(all["image_tag"])
        #expect(jpeg["content_type"] as? String == "image/jpeg")
        #expect(jpeg["image_topic"] as? String == "home/breeze/my-home/image/tag")
        // Availability is the device's, like every other entity.
        let availability = try #require(root["availability"] as? [[String: Any]])
        #expect(availability.first?["topic"] as? String == "home/breeze/status")
    }

    @Test func noImagesNoImageEntities() throws {
        let all = try discoveryComponents(try payload(images: []))
        #expect(!all.keys.contains { $0.hasPrefix("image_") })
        #expect(!all.values.contains { $0["platform"] as? String == "image" })
    }
}
