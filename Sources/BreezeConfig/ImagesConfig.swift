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
import BreezeYAML

/// One entry of `images:` (docs/images.md): a picture of a location, rendered by the helper.
public struct ImageConfig: Sendable, Equatable {
    /// The longest image id (docs/operations.md, Limits: `[a-z0-9_-]{1,32}`).
    public static let maximumIDLength = 32

    /// `[a-z0-9_-]{1,32}`, unique: the last level of `<p>/<loc>/image/<id>`.
    public var id: String
    /// The id of the location it shows.
    public var location: String
    public var kind: ImageKind
    public var width: Int
    public var height: Int
    public var palette: ImagePalette
    public var format: ImageFormat

    public init(
        id: String, location: String, kind: ImageKind, width: Int, height: Int, palette: ImagePalette,
        format: ImageFormat
    ) {
        self.id = id
        self.location = location
        self.kind = kind
        self.width = width
        self.height = height
        self.palette = palette
        self.format = format
    }
}

/// `outputs: - type: openepaperlink` (docs/images.md): an e-ink tag behind an OpenEPaperLink access
/// point, sent every new JPEG of one image.
public struct OpenEPaperLinkOutput: Sendable, Equatable {
    /// The access point's base URL (`http://192.168.1.50`), without a trailing `/`.
    public var accessPoint: String
    /// The tag's MAC: 16 hex digits, upper case.
    public var mac: String
    /// The id of the image it shows (a `format: jpeg` image).
    public var image: String
    /// The image's location.
    public var location: String

    public init(accessPoint: String, mac: String, image: String, location: String) {
        self.accessPoint = accessPoint
        self.mac = mac
        self.image = image
        self.location = location
    }

    /// ``accessPoint`` with any `user:password@` shown as `********@`: what `check-config` and
    /// every log line print (docs/operations.md, Limits "Secrets everywhere"); only the upload itself uses the
    /// credentials.
    public var displayAccessPoint: String { EndpointURL.maskingUserinfo(accessPoint) }
}

/// Reads `images:` (docs/images.md); every error names the file, the line and the key.
struct ImagesParser {
    /// At most this many images (each is a render helper run per change, at most once a minute).
    static let maximumImages = 16

    let file: String
    let locations: [LocationConfig]
    let climateEnabled: Bool

    func parse(_ node: YAMLNode?) throws(ConfigError) -> [ImageConfig] {
        guard let node, !node.isNull else { return [] }
        guard case .sequence(let items) = node.kind else {
            throw ConfigError(
                file: file, line: node.line, keyPath: "images",
                message:
                    "expected a list of images (each with id, kind, width and height), got \(MappingReader.describe(node))"
            )
        }
        guard items.count <= Self.maximumImages else {
            throw ConfigError(
                file: file, line: node.line, keyPath: "images",
                message: "at most \(Self.maximumImages) images, got \(items.count)")
        }
        var images: [ImageConfig] = []
        var idLines: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            let path = "images[\(index)]"
            guard case .mapping = item.kind else {
                throw ConfigError(
                    file: file, line: item.line, keyPath: path,
                    message: "expected a mapping with id, kind, width and height, got \(MappingReader.describe(item))")
            }
            let r = try MappingReader(
                item, path: path, keys: ["id", "location", "kind", "width", "height", "palette", "format"], file: file)
            let idExpected = "an id of lower-case letters, digits, _ and - (it becomes an MQTT topic level)"
            guard let id = try r.string("id", expected: idExpected) else { throw r.missing("id", expected: idExpected) }
            guard isValidLocationID(id) else { throw r.fail("id", "expected \(idExpected), got \(doubleQuoted(id))") }
            // The location id rule with its length (docs/operations.md, Limits): the id names a topic level and the
            // file an access point stores (`<id>.jpg`).
            guard id.utf8.count <= ImageConfig.maximumIDLength else {
                throw r.fail(
                    "id", "an image id of \(id.utf8.count) characters, at most \(ImageConfig.maximumIDLength)")
            }
            if let earlier = idLines[id] {
                throw r.fail("id", "duplicate image id \(doubleQuoted(id)) (first used at line \(earlier))")
            }
            idLines[id] = r.line(of: "id")
            let location: String
            if let name = try r.text("location", expected: "a location id") {
                guard locations.contains(where: { $0.id == name }) else {
                    throw r.fail(
                        "location",
                        "no location \(doubleQuoted(name)) in locations (known: \(locations.map(\.id).joined(separator: ", ")))"
                    )
                }
                location = name
            } else {
                location = locations[0].id
            }
            guard let kindName = try r.choice("kind", ImageKind.allCases.map(\.rawValue)),
                let kind = ImageKind(rawValue: kindName)
            else { throw r.missing("kind", expected: "one of pollen, climate, stripes, summary") }
            if kind.needsClimate && !climateEnabled {
                throw r.fail("kind", "kind \(kind.rawValue) draws climate data, but climate.enabled is false")
            }
            let widthText = "the width in pixels, \(ImageBounds.width.lowerBound)–\(ImageBounds.width.upperBound)"
            guard let width = try r.int("width", in: ImageBounds.width) else {
                throw r.missing("width", expected: widthText)
            }
            let heightText = "the height in pixels, \(ImageBounds.height.lowerBound)–\(ImageBounds.height.upperBound)"
            guard let height = try r.int("height", in: ImageBounds.height) else {
                throw r.missing("height", expected: heightText)
            }
            let palette =
                try r.choice("palette", ImagePalette.allCases.map(\.rawValue)).flatMap(ImagePalette.init) ?? .color
            let format = try r.choice("format", ImageFormat.allCases.map(\.rawValue)).flatMap(ImageFormat.init) ?? .png
            images.append(
                ImageConfig(
                    id: id, location: location, kind: kind, width: width, height: height, palette: palette,
                    format: format))
        }
        return images
    }
}

extension OutputsParser {
    /// `type: openepaperlink` (docs/images.md): `ap`, `mac`, `image` (a JPEG image), `location`.
    /// - Parameter macs: the MACs of the tags read before, upper case, with their key paths: a
    ///   second tag on one MAC is refused (two images would fight over one display).
    func parseOpenEPaperLink(
        _ item: YAMLNode, path: String, macs: inout [String: String]
    ) throws(ConfigError) -> OpenEPaperLinkOutput {
        let r = try MappingReader(item, path: path, keys: ["type", "ap", "mac", "image", "location"], file: file)
        let apExpected = "the access point's address, like http://192.168.1.50"
        // Not `r.text`: its error would quote the URL, userinfo and all.
        guard var ap = try r.string("ap", expected: apExpected) else { throw r.missing("ap", expected: apExpected) }
        let shown = doubleQuoted(EndpointURL.maskingUserinfo(ap))
        let lower = ap.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), ap.utf8.count <= 256,
            !ap.contains(" "), !ap.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }),
            ap.split(separator: "/", omittingEmptySubsequences: true).count >= 2
        else { throw r.fail("ap", "expected \(apExpected), got \(shown)") }
        if let problem = Self.accessPointProblem(ap) {
            throw r.fail("ap", "expected \(apExpected), got \(shown): \(problem)")
        }
        while ap.hasSuffix("/") { ap.removeLast() }
        let macExpected = "the tag's MAC address, 16 hex digits like 0000021CBA123456"
        guard let mac = try r.text("mac", expected: macExpected) else { throw r.missing("mac", expected: macExpected) }
        guard mac.utf8.count == 16, mac.utf8.allSatisfy(Self.isHexDigit) else {
            throw r.fail("mac", "expected \(macExpected), got \(doubleQuoted(mac))")
        }
        if let earlier = macs[mac.uppercased()] {
            throw r.fail("mac", "the tag \(mac.uppercased()) is already used by \(earlier); one tag shows one image")
        }
        macs[mac.uppercased()] = path
        let imageExpected = "the id of a format: jpeg image under images"
        guard let imageID = try r.text("image", expected: imageExpected) else {
            throw r.missing("image", expected: imageExpected)
        }
        guard let image = images.first(where: { $0.id == imageID }) else {
            let known =
                images.isEmpty ? "no images are configured" : "images: " + images.map(\.id).joined(separator: ", ")
            throw r.fail("image", "no image \(doubleQuoted(imageID)) (\(known))")
        }
        guard image.format == .jpeg else {
            throw r.fail(
                "image",
                "image \(doubleQuoted(imageID)) is format: \(image.format.rawValue); OpenEPaperLink access points take JPEG only (set format: jpeg)"
            )
        }
        if let location = try r.text("location", expected: "a location id") {
            guard locations.contains(where: { $0.id == location }) else {
                throw r.fail(
                    "location",
                    "no location \(doubleQuoted(location)) in locations (known: \(locations.map(\.id).joined(separator: ", ")))"
                )
            }
            guard location == image.location else {
                throw r.fail(
                    "location",
                    "image \(doubleQuoted(imageID)) shows location \(doubleQuoted(image.location)), not \(doubleQuoted(location))"
                )
            }
        }
        return OpenEPaperLinkOutput(accessPoint: ap, mac: mac.uppercased(), image: imageID, location: image.location)
    }

    /// What is wrong with an `ap` URL beyond its scheme and host (docs/operations.md, Limits): a query or a
    /// fragment (the agent appends `/imgupload`), an empty, non-numeric or out-of-range port.
    static func accessPointProblem(_ ap: String) -> String? {
        if ap.contains("?") { return "a query has no place in the access point's address" }
        if ap.contains("#") { return "a fragment has no place in the access point's address" }
        let rest = ap.drop { $0 != "/" }.dropFirst(2)
        var authority = rest.prefix { $0 != "/" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return "an IPv6 address without its closing ]" }
            authority = authority[authority.index(after: close)...]
            guard authority.isEmpty || authority.hasPrefix(":") else { return "text after the IPv6 address" }
        }
        guard let colon = authority.lastIndex(of: ":") else { return nil }
        let port = authority[authority.index(after: colon)...]
        guard !port.isEmpty else { return "an empty port" }
        guard port.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), port.utf8.count <= 6, let number = Int(port) else {
            return "port \(doubleQuoted(String(port))) is not a number"
        }
        guard (1...65535).contains(number) else { return "port \(number) is outside 1–65535" }
        return nil
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }

    /// Whether an `outputs:` entry is `type: openepaperlink` (read apart: it has no device topic).
    static func isOpenEPaperLink(_ item: YAMLNode) -> Bool {
        guard case .mapping(let pairs) = item.kind else { return false }
        return pairs.contains { $0.key.scalarText == "type" && $0.value.scalarText == "openepaperlink" }
    }
}

/// `images:` as `check-config` prints it (nothing when there are none).
func renderImages(_ images: [ImageConfig]) -> [String] {
    guard !images.isEmpty else { return [] }
    var lines = ["images:"]
    for image in images {
        lines.append("  - id: " + doubleQuoted(image.id, controls: .yaml))
        lines.append("    location: " + doubleQuoted(image.location, controls: .yaml))
        lines.append("    kind: " + image.kind.rawValue)
        lines.append("    width: \(image.width)")
        lines.append("    height: \(image.height)")
        lines.append("    palette: " + image.palette.rawValue)
        lines.append("    format: " + image.format.rawValue)
    }
    return lines
}

/// The OpenEPaperLink entries of `outputs:` as `check-config` prints them.
func renderOpenEPaperLink(_ outputs: [OpenEPaperLinkOutput], header: Bool) -> [String] {
    guard !outputs.isEmpty else { return [] }
    var lines = header ? ["outputs:"] : []
    for output in outputs {
        lines.append("  - type: openepaperlink")
        lines.append("    ap: " + doubleQuoted(output.displayAccessPoint, controls: .yaml))
        lines.append("    mac: " + doubleQuoted(output.mac, controls: .yaml))
        lines.append("    image: " + doubleQuoted(output.image, controls: .yaml))
        lines.append("    location: " + doubleQuoted(output.location, controls: .yaml))
    }
    return lines
}
