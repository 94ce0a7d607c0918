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

/// The UTC offset rules of one IANA time zone, read from a TZif file (RFC 8536).
///
/// Foundation's named `TimeZone` is not linked into a static build (STYLE.md), so the agent reads
/// the system zoneinfo itself. This type is pure: bytes in, offsets out. Instants up to the last
/// transition use the transition table (the 64-bit one of a version 2+ file); instants after it
/// use the footer's POSIX TZ rule (``PosixTimeZoneRule``), which is how a file covers years past
/// 2037 or a "slim" file covers everything after its last explicit transition.
public struct ZoneRules: Sendable, Equatable {
    /// One local time type: the offset from UTC in seconds, east positive, and whether it is DST.
    public struct LocalTimeType: Sendable, Equatable {
        public var utcOffset: Int
        public var isDaylightSaving: Bool
        public var abbreviation: String

        public init(utcOffset: Int, isDaylightSaving: Bool, abbreviation: String) {
            self.utcOffset = utcOffset
            self.isDaylightSaving = isDaylightSaving
            self.abbreviation = abbreviation
        }
    }

    /// Transition instants (Unix seconds, ascending) and, for each, the index into ``types``.
    public private(set) var transitions: [Int64]
    public private(set) var transitionTypes: [Int]
    public private(set) var types: [LocalTimeType]
    /// The footer rule for instants after the last transition; nil for a version 1 file or an empty footer.
    public private(set) var footer: PosixTimeZoneRule?

    /// Coordinated Universal Time, without reading any file.
    public static let utc = ZoneRules(
        transitions: [], transitionTypes: [],
        types: [LocalTimeType(utcOffset: 0, isDaylightSaving: false, abbreviation: "UTC")],
        footer: PosixTimeZoneRule(standard: .init(name: "UTC", utcOffset: 0), daylight: nil))

    init(transitions: [Int64], transitionTypes: [Int], types: [LocalTimeType], footer: PosixTimeZoneRule?) {
        self.transitions = transitions
        self.transitionTypes = transitionTypes
        self.types = types
        self.footer = footer
    }

    /// Parses a TZif file (versions 1, 2, 3 and 4).
    public init(tzif bytes: [UInt8]) throws(ZoneRulesError) {
        var reader = TZifReader(bytes: bytes)
        let v1 = try reader.header()
        guard v1.version != 0 else {
            // Version 1: the 32-bit block is all there is.
            let block = try reader.dataBlock(v1, timeSize: 4)
            self.init(transitions: block.times, transitionTypes: block.typeIndices, types: block.types, footer: nil)
            return
        }
        // Version 2+: skip the 32-bit block, read the 64-bit one and the footer.
        try reader.skip(v1.dataBlockSize(timeSize: 4))
        let v2 = try reader.header()
        let block = try reader.dataBlock(v2, timeSize: 8)
        let footerText = try reader.footer()
        let footer: PosixTimeZoneRule?
        if footerText.isEmpty {
            footer = nil
        } else {
            do {
                footer = try PosixTimeZoneRule(footerText)
            } catch {
                throw .invalidFooter(footerText, error.description)
            }
        }
        self.init(transitions: block.times, transitionTypes: block.typeIndices, types: block.types, footer: footer)
    }

    /// The local time type in force at an instant.
    public func localTimeType(atUnixTime t: Int64) -> LocalTimeType {
        if let footer, transitions.isEmpty || t >= transitions[transitions.count - 1] {
            // After the last transition (or with none) the footer rule is authoritative (RFC 8536 §3.3).
            let (zone, isDST) = footer.zone(atUnixTime: t)
            return LocalTimeType(utcOffset: zone.utcOffset, isDaylightSaving: isDST, abbreviation: zone.name)
        }
        guard let first = transitions.first, t >= first else {
            // Before the first transition: time type 0 (RFC 8536 §3.2).
            return types[0]
        }
        // Binary search for the last transition at or before t.
        var low = 0
        var high = transitions.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if transitions[mid] <= t { low = mid } else { high = mid - 1 }
        }
        return types[transitionTypes[low]]
    }

    /// Seconds east of UTC at an instant (Berlin in summer: 7200).
    public func utcOffset(atUnixTime t: Int64) -> Int { localTimeType(atUnixTime: t).utcOffset }

    /// The local calendar date at an instant.
    public func localDate(atUnixTime t: Int64) -> CivilDate {
        let local = t + Int64(utcOffset(atUnixTime: t))
        return CivilDate(daysSinceEpoch: Int(local.floorDivided(by: 86_400)))
    }
}

/// Why a TZif file or its footer could not be read.
public enum ZoneRulesError: Error, Equatable, CustomStringConvertible {
    case notTZif
    case truncated
    case invalid(String)
    case invalidFooter(String, String)

    public var description: String {
        switch self {
        case .notTZif: return "not a TZif file (missing \"TZif\" magic)"
        case .truncated: return "TZif file is truncated"
        case .invalid(let why): return "invalid TZif file: \(why)"
        case .invalidFooter(let text, let why): return "invalid TZif footer \"\(text)\": \(why)"
        }
    }
}

extension Int64 {
    /// Division rounding toward negative infinity (days before 1970 must not round up).
    func floorDivided(by d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
}

/// A cursor over TZif bytes; every read is bounds-checked.
private struct TZifReader {
    struct Header {
        var version: UInt8
        var isutcnt: Int
        var isstdcnt: Int
        var leapcnt: Int
        var timecnt: Int
        var typecnt: Int
        var charcnt: Int

        func dataBlockSize(timeSize: Int) -> Int {
            timecnt * timeSize + timecnt + typecnt * 6 + charcnt + leapcnt * (timeSize + 4) + isstdcnt + isutcnt
        }
    }

    struct Block {
        var times: [Int64]
        var typeIndices: [Int]
        var types: [ZoneRules.LocalTimeType]
    }

    let bytes: [UInt8]
    var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func take(_ n: Int) throws(ZoneRulesError) -> ArraySlice<UInt8> {
        guard n >= 0, bytes.count - offset >= n else { throw .truncated }
        defer { offset += n }
        return bytes[offset..<offset + n]
    }

    mutating func skip(_ n: Int) throws(ZoneRulesError) { _ = try take(n) }

    mutating func uint32() throws(ZoneRulesError) -> UInt32 {
        try take(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    mutating func int64() throws(ZoneRulesError) -> Int64 {
        Int64(bitPattern: try take(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    mutating func header() throws(ZoneRulesError) -> Header {
        guard bytes.count - offset >= 44 else { throw offset == 0 ? .notTZif : .truncated }
        guard Array(try take(4)) == Array("TZif".utf8) else { throw .notTZif }
        let version = try take(1).first!
        guard version == 0 || (UInt8(ascii: "2")...UInt8(ascii: "9")).contains(version) else {
            throw .invalid("unknown version byte \(version)")
        }
        try skip(15)
        var counts: [Int] = []
        for _ in 0..<6 {
            let c = try uint32()
            // A sane upper bound: real files have a few thousand entries at most.
            guard c <= 1_000_000 else { throw .invalid("implausible count \(c)") }
            counts.append(Int(c))
        }
        let h = Header(
            version: version, isutcnt: counts[0], isstdcnt: counts[1], leapcnt: counts[2],
            timecnt: counts[3], typecnt: counts[4], charcnt: counts[5])
        guard h.typecnt >= 1 else { throw .invalid("no local time types") }
        guard h.isutcnt == 0 || h.isutcnt == h.typecnt else { throw .invalid("isutcnt must be 0 or typecnt") }
        guard h.isstdcnt == 0 || h.isstdcnt == h.typecnt else { throw .invalid("isstdcnt must be 0 or typecnt") }
        return h
    }

    mutating func dataBlock(_ h: Header, timeSize: Int) throws(ZoneRulesError) -> Block {
        var times: [Int64] = []
        times.reserveCapacity(h.timecnt)
        for _ in 0..<h.timecnt {
            let t = timeSize == 8 ? try int64() : Int64(Int32(bitPattern: try uint32()))
            if let last = times.last, t <= last { throw .invalid("transition times not ascending") }
            times.append(t)
        }
        var indices: [Int] = []
        for byte in try take(h.timecnt) {
            guard Int(byte) < h.typecnt else { throw .invalid("transition type index \(byte) out of range") }
            indices.append(Int(byte))
        }
        var raw: [(offset: Int, isDST: Bool, designation: Int)] = []
        for _ in 0..<h.typecnt {
            let utoff = Int(Int32(bitPattern: try uint32()))
            let flags = try take(2)
            guard flags[flags.startIndex] <= 1 else { throw .invalid("isdst must be 0 or 1") }
            raw.append((utoff, flags[flags.startIndex] == 1, Int(flags[flags.startIndex + 1])))
        }
        let chars = Array(try take(h.charcnt))
        var types: [ZoneRules.LocalTimeType] = []
        for r in raw {
            guard r.designation < max(chars.count, 1) else { throw .invalid("designation index out of range") }
            let tail = chars.isEmpty ? [] : chars[r.designation...]
            let name = String(decoding: tail.prefix { $0 != 0 }, as: UTF8.self)
            types.append(.init(utcOffset: r.offset, isDaylightSaving: r.isDST, abbreviation: name))
        }
        // Leap-second records and the standard/UT indicators do not change civil offsets: skip them.
        try skip(h.leapcnt * (timeSize + 4) + h.isstdcnt + h.isutcnt)
        return Block(times: times, typeIndices: indices, types: types)
    }

    /// The footer `\n<TZ string>\n` of a version 2+ file.
    mutating func footer() throws(ZoneRulesError) -> String {
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\n") else { throw .invalid("missing footer") }
        offset += 1
        guard let end = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) else {
            throw .invalid("unterminated footer")
        }
        let text = String(decoding: bytes[offset..<end], as: UTF8.self)
        offset = end + 1
        return text
    }
}
