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

/// The one path from a time zone name to its rules (docs/reference.md, Days and freshness): checks the name, reads the TZif
/// file from the system zoneinfo and parses it, once, while the configuration is loaded.
///
/// Names are checked on disk rather than through Foundation's `TimeZone`, because named zones
/// are missing from a statically linked build (STYLE.md). A name is valid when it is relative,
/// made of `A-Za-z0-9/_+-.` components with no empty, `.` or `..` component (a config value must
/// not read `/etc/shadow`, and `Europe//Berlin` is not a name), and `<zoneInfoRoot>/<name>` is a
/// TZif file that parses. `check-config` and `run` both go through ``load(_:)``, so they accept
/// exactly the same names. The /etc paths are injectable so the detection order can be tested
/// without touching the real system.
public struct TimeZoneResolver: Sendable {
    /// Where Debian's `tzdata` installs the compiled zone files.
    public static let defaultZoneInfoRoot = "/usr/share/zoneinfo"
    /// The largest zone file read; real ones are under 4 KiB (docs/operations.md).
    public static let maxZoneFileBytes = 64 * 1024

    public var zoneInfoRoot: String
    /// Debian's `/etc/timezone` (one line: the zone name).
    public var timezoneFile: String
    /// The `/etc/localtime` symlink into the zoneinfo tree.
    public var localtimeLink: String

    public init(
        zoneInfoRoot: String = TimeZoneResolver.defaultZoneInfoRoot, timezoneFile: String = "/etc/timezone",
        localtimeLink: String = "/etc/localtime"
    ) {
        self.zoneInfoRoot =
            zoneInfoRoot.count > 1 && zoneInfoRoot.hasSuffix("/")
            ? String(zoneInfoRoot.dropLast()) : zoneInfoRoot
        self.timezoneFile = timezoneFile
        self.localtimeLink = localtimeLink
    }

    /// Checks `name`, reads `<zoneInfoRoot>/<name>` and parses it.
    public func load(_ name: String) throws(ZoneInfoError) -> ZoneRules {
        guard Self.isValidName(name) else { throw .invalidName(name) }
        let path = "\(zoneInfoRoot)/\(name)"
        let bytes: [UInt8]
        do {
            bytes = try PosixFile.read(path, limit: Self.maxZoneFileBytes + 1)
        } catch {
            throw .unreadable(name: name, path: path, reason: error.reason)
        }
        guard bytes.count <= Self.maxZoneFileBytes else {
            throw .invalidFile(name: name, path: path, reason: "larger than \(Self.maxZoneFileBytes) bytes")
        }
        do {
            return try ZoneRules(tzif: bytes)
        } catch {
            throw .invalidFile(name: name, path: path, reason: error.description)
        }
    }

    /// Whether `name` looks like an IANA zone name that is safe to append to the zoneinfo root.
    public static func isValidName(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/") else { return false }
        for component in name.split(separator: "/", omittingEmptySubsequences: false) {
            guard !component.isEmpty, component != ".", component != ".." else { return false }
            for c in component.utf8 {
                let ok =
                    (65...90).contains(c) || (97...122).contains(c) || (48...57).contains(c)
                    || c == UInt8(ascii: "_") || c == UInt8(ascii: "-") || c == UInt8(ascii: "+")
                    || c == UInt8(ascii: ".")
                guard ok else { return false }
            }
        }
        return true
    }

    /// The outcome of looking for the system's zone: a name and its rules, or why none was found.
    public enum SystemZone: Sendable, Equatable {
        case found(name: String, rules: ZoneRules, from: String)
        /// The system names no zone at all (a container image): the loader uses UTC.
        case notFound(reason: String)
        /// `TZ` is set to something that is no zone we can read: the user's mistake, refused.
        case unusableTZ(reason: String)
    }

    /// `TZ` (a leading `:` stripped; a path under the zoneinfo root or a link into it gives its
    /// name), else `/etc/timezone`, else the target of the `/etc/localtime` link.
    ///
    /// A set, non-empty `TZ` decides on its own: if it names no zone we can read (a POSIX rule
    /// like `CET-1CEST`), falling through to /etc would silently use a zone the user overrode.
    public func systemZone(environment: [String: String]) -> SystemZone {
        if var tz = environment["TZ"], !tz.isEmpty {
            if tz.hasPrefix(":") { tz.removeFirst() }
            if let name = zoneName(fromPathOrName: tz), let rules = try? load(name) {
                return .found(name: name, rules: rules, from: "TZ")
            }
            return .unusableTZ(reason: "TZ=\(tz) is not an IANA time zone name found under \(zoneInfoRoot)")
        }
        if let bytes = try? PosixFile.read(timezoneFile, limit: 256) {
            let name = String(decoding: bytes, as: UTF8.self)
                .split(whereSeparator: { $0 == "\n" || $0 == " " || $0 == "\t" || $0 == "\r" }).first.map(String.init)
            if let name, let rules = try? load(name) { return .found(name: name, rules: rules, from: timezoneFile) }
        }
        if let target = PosixFile.linkTarget(localtimeLink), let name = nameAfterZoneinfo(target),
            let rules = try? load(name)
        {
            return .found(name: name, rules: rules, from: localtimeLink)
        }
        return .notFound(
            reason: "TZ is not set, \(timezoneFile) names no zone and \(localtimeLink) is not a link into zoneinfo")
    }

    private func zoneName(fromPathOrName value: String) -> String? {
        guard value.hasPrefix("/") else { return value }
        if value.hasPrefix(zoneInfoRoot + "/") { return String(value.dropFirst(zoneInfoRoot.count + 1)) }
        // TZ=:/etc/localtime (systemd units do this): follow the link.
        if let target = PosixFile.linkTarget(value) { return nameAfterZoneinfo(target) }
        return nil
    }

    /// `../usr/share/zoneinfo/Europe/Berlin` → `Europe/Berlin`.
    /// The zone `name` is a link to (tzdata's old names, `US/Alaska` → `America/Anchorage`), one
    /// link deep; `name` itself when it is no link or the link leaves the zoneinfo tree.
    public func canonicalName(_ name: String) -> String {
        guard Self.isValidName(name), let target = PosixFile.linkTarget("\(zoneInfoRoot)/\(name)") else {
            return name
        }
        if target.hasPrefix("/") { return nameAfterZoneinfo(target) ?? name }
        var levels = name.split(separator: "/").dropLast().map(String.init)
        for part in target.split(separator: "/") {
            switch part {
            case ".": continue
            case "..":
                guard !levels.isEmpty else { return name }
                levels.removeLast()
            default: levels.append(String(part))
            }
        }
        let resolved = levels.joined(separator: "/")
        return Self.isValidName(resolved) ? resolved : name
    }

    private func nameAfterZoneinfo(_ target: String) -> String? {
        if target.hasPrefix(zoneInfoRoot + "/") { return String(target.dropFirst(zoneInfoRoot.count + 1)) }
        guard let range = target.ranges(of: "zoneinfo/").last else { return nil }
        var name = String(target[range.upperBound...])
        for variant in ["posix/", "right/"] where name.hasPrefix(variant) { name.removeFirst(variant.count) }
        return name
    }
}

/// Why a zone could not be loaded; names the zone and the file.
public enum ZoneInfoError: Error, Equatable, CustomStringConvertible {
    case invalidName(String)
    case unreadable(name: String, path: String, reason: String)
    case invalidFile(name: String, path: String, reason: String)

    /// What is wrong, without the name: for messages that already quote it.
    public var problem: String {
        switch self {
        case .invalidName:
            return "not a zone name (relative, components of A-Z a-z 0-9 _ + - . and none empty, . or ..)"
        case .unreadable(_, _, let reason): return "cannot read it: \(reason)"
        case .invalidFile(_, _, let reason): return "not a zone file: \(reason)"
        }
    }

    public var description: String {
        switch self {
        case .invalidName(let name):
            return "invalid time zone name \"\(name)\" (expected an IANA name such as Europe/Berlin)"
        case .unreadable(let name, let path, let reason):
            return "unknown time zone \"\(name)\": cannot read \(path): \(reason)"
        case .invalidFile(let name, let path, let reason):
            return "time zone \"\(name)\": \(path): \(reason)"
        }
    }
}
