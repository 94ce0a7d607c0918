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

@testable import BreezeAgent
@testable import BreezeDaemon
@testable import BreezeConfig
import BreezeCore
import Foundation
import Testing

/// `images:` and `type: openepaperlink` outputs (SPEC §9.2): every config error with its file,
/// line and key.
@Suite("Configuration: images and OpenEPaperLink")
struct ImagesConfigTests {
    static let twoLocations = """
        locations:
          - {id: home, latitude: 52.52, longitude: 13.405, timezone: Europe/Berlin}
          - {id: office, latitude: 48.1, longitude: 11.6, timezone: Europe/Berlin}
        """

    @Test func imagesWithDefaultsAndEveryKey() throws {
        let config = try ConfigSandbox().load(
            Self.twoLocations + """

                images:
                  - {id: hallway, kind: summary, width: 296, height: 128}
                  - id: desk-2
                    location: office
                    kind: stripes
                    width: 1600
                    height: 1200
                    palette: bwr
                    format: jpeg
                outputs:
                  - {type: openepaperlink, ap: "http://192.168.1.50/", mac: 0000021cba123456, image: desk-2}
                  - {type: wled, topic: wled/strip1}
                """)
        #expect(
            config.images == [
                ImageConfig(
                    id: "hallway", location: "home", kind: .summary, width: 296, height: 128, palette: .color,
                    format: .png),
                ImageConfig(
                    id: "desk-2", location: "office", kind: .stripes, width: 1600, height: 1200, palette: .bwr,
                    format: .jpeg),
            ])
        #expect(
            config.openEPaperLink == [
                OpenEPaperLinkOutput(
                    accessPoint: "http://192.168.1.50", mac: "0000021CBA123456", image: "desk-2", location: "office")
            ])
        #expect(config.outputs.map(\.typeName) == ["wled"])
        // check-config prints both, and what it prints loads back to the same.
        let sandbox = try ConfigSandbox()
        let again = try sandbox.load(renderEffective(config))
        #expect(again.images == config.images)
        #expect(again.openEPaperLink == config.openEPaperLink)
        #expect(again.outputs == config.outputs)
    }

    @Test func noImagesByDefault() throws {
        let config = try ConfigSandbox().load(oneLocation)
        #expect(config.images.isEmpty)
        #expect(config.openEPaperLink.isEmpty)
    }

    /// (block under `images:`, line, key, message part); the location line follows the block.
    static let badImages: [(String, Int, String, String)] = [
        ("  - {id: Hall, kind: pollen, width: 296, height: 128}", 2, "images[0].id", "lower-case letters"),
        (
            "  - {id: a, kind: pollen, width: 296, height: 128}\n  - {id: a, kind: pollen, width: 64, height: 64}", 3,
            "images[1].id", "duplicate image id \"a\" (first used at line 2)"
        ),
        (
            "  - {id: a, location: attic, kind: pollen, width: 296, height: 128}", 2, "images[0].location",
            "no location \"attic\" in locations (known: home)"
        ),
        ("  - {id: a, kind: weather, width: 296, height: 128}", 2, "images[0].kind", "expected one of \"pollen\""),
        ("  - {id: a, width: 296, height: 128}", 2, "images[0].kind", "required:"),
        ("  - {id: a, kind: pollen, width: 63, height: 128}", 2, "images[0].width", "an integer 64–1600"),
        ("  - {id: a, kind: pollen, width: 1601, height: 128}", 2, "images[0].width", "an integer 64–1600"),
        ("  - {id: a, kind: pollen, height: 128}", 2, "images[0].width", "required:"),
        ("  - {id: a, kind: pollen, width: 296, height: 63}", 2, "images[0].height", "an integer 64–1200"),
        ("  - {id: a, kind: pollen, width: 296, height: 1201}", 2, "images[0].height", "an integer 64–1200"),
        ("  - {id: a, kind: pollen, width: 296}", 2, "images[0].height", "required:"),
        (
            "  - {id: a, kind: pollen, width: 296, height: 128, palette: bwg}", 2, "images[0].palette",
            "expected one of \"color\", \"bw\", \"bwr\", \"bwy\""
        ),
        (
            "  - {id: a, kind: pollen, width: 296, height: 128, format: gif}", 2, "images[0].format",
            "expected one of \"png\", \"jpeg\""
        ),
        ("  - {id: a, kind: pollen, width: 296, height: 128, size: 3}", 2, "images[0].size", "unknown key \"size\""),
        ("  - hallway", 2, "images[0]", "expected a mapping with id, kind, width and height"),
        ("  hallway: {}", 2, "images", "expected a list of images"),
    ]

    @Test(arguments: badImages)
    func refusedImage(_ bad: (String, Int, String, String)) throws {
        let (block, line, key, message) = bad
        let error = try #require(ConfigSandbox().failure("images:\n" + block + "\n" + oneLocation))
        #expect(error.line == line, "\(error)")
        #expect(error.keyPath == key, "\(error)")
        #expect(error.message.contains(message), "\(error)")
        #expect(error.description.contains("config.yaml:\(line): \(key): "), "\(error)")
    }

    @Test(arguments: ["climate", "stripes", "summary"])
    func climateKindsNeedClimate(_ kind: String) throws {
        let error = try #require(
            ConfigSandbox().failure(
                "climate: {enabled: false}\nimages:\n  - {id: a, kind: \(kind), width: 296, height: 128}\n"
                    + oneLocation))
        #expect(error.line == 3)
        #expect(error.keyPath == "images[0].kind")
        #expect(error.message == "kind \(kind) draws climate data, but climate.enabled is false")
        // A pollen image does not need climate.
        #expect(
            try ConfigSandbox().load(
                "climate: {enabled: false}\nimages:\n  - {id: a, kind: pollen, width: 296, height: 128}\n"
                    + oneLocation
            ).images.count == 1)
    }

    @Test func atMostSixteenImages() throws {
        let block = (0..<17).map { "  - {id: i\($0), kind: pollen, width: 64, height: 64}" }.joined(separator: "\n")
        let error = try #require(ConfigSandbox().failure("images:\n" + block + "\n" + oneLocation))
        #expect(error.keyPath == "images")
        #expect(error.message == "at most 16 images, got 17")
    }

    static let images = """
        images:
          - {id: tag, kind: pollen, width: 296, height: 128, palette: bwr, format: jpeg}
          - {id: web, kind: pollen, width: 296, height: 128}
        """

    /// (the output's flow mapping, key, message part); the output is on line 5.
    static let badTags: [(String, String, String)] = [
        (
            "{type: openepaperlink, ap: \"http://ap\", mac: 0000021CBA123456, image: hall}", "outputs[0].image",
            "no image \"hall\" (images: tag, web)"
        ),
        (
            "{type: openepaperlink, ap: \"http://ap\", mac: 0000021CBA123456, image: web}", "outputs[0].image",
            "image \"web\" is format: png; OpenEPaperLink access points take JPEG only (set format: jpeg)"
        ),
        (
            "{type: openepaperlink, ap: \"http://ap\", mac: 0000021CBA123456, image: tag, location: attic}",
            "outputs[0].location", "no location \"attic\" in locations (known: home)"
        ),
        (
            "{type: openepaperlink, ap: \"http://ap\", mac: 0000021CBA12345, image: tag}", "outputs[0].mac",
            "16 hex digits"
        ),
        (
            "{type: openepaperlink, ap: \"http://ap\", mac: 0000021CBA12345G, image: tag}", "outputs[0].mac",
            "16 hex digits"
        ),
        (
            "{type: openepaperlink, ap: \"192.168.1.50\", mac: 0000021CBA123456, image: tag}", "outputs[0].ap",
            "like http://192.168.1.50"
        ),
        ("{type: openepaperlink, mac: 0000021CBA123456, image: tag}", "outputs[0].ap", "required:"),
        ("{type: openepaperlink, ap: \"http://ap\", image: tag}", "outputs[0].mac", "required:"),
        ("{type: openepaperlink, ap: \"http://ap\", mac: 0000021CBA123456}", "outputs[0].image", "required:"),
        (
            "{type: openepaperlink, ap: \"http://ap\", mac: 0000021CBA123456, image: tag, topic: x}",
            "outputs[0].topic", "unknown key \"topic\""
        ),
    ]

    @Test(arguments: badTags)
    func refusedTag(_ bad: (String, String, String)) throws {
        let (entry, key, message) = bad
        let error = try #require(
            ConfigSandbox().failure(oneLocation + "\n" + Self.images + "\noutputs:\n  - " + entry + "\n"))
        #expect(error.line == 7, "\(error)")
        #expect(error.keyPath == key, "\(error)")
        #expect(error.message.contains(message), "\(error)")
        #expect(error.description.contains("config.yaml:7: \(key): "), "\(error)")
    }

    @Test func tagWithoutImagesNamesThat() throws {
        let error = try #require(
            ConfigSandbox().failure(
                oneLocation
                    + "\noutputs:\n  - {type: openepaperlink, ap: \"http://ap\", mac: 0000021CBA123456, image: x}\n"))
        #expect(error.message == "no image \"x\" (no images are configured)")
    }

    @Test func tagLocationMustBeItsImages() throws {
        let error = try #require(
            ConfigSandbox().failure(
                Self.twoLocations + "\n" + Self.images
                    + "\noutputs:\n  - {type: openepaperlink, ap: \"http://ap\", mac: 0000021CBA123456, image: tag, location: office}\n"
            ))
        #expect(error.keyPath == "outputs[0].location")
        #expect(error.message == "image \"tag\" shows location \"home\", not \"office\"")
    }

    @Test func unknownOutputTypeListsOpenEPaperLink() throws {
        let error = try #require(
            ConfigSandbox().failure("outputs:\n  - {type: eink, topic: x}\n" + oneLocation))
        #expect(error.keyPath == "outputs[0].type")
        #expect(error.message.contains("\"openepaperlink\""), "\(error)")
    }
}
