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

/// A single pass over the bytes of an Open-Meteo daily response in the shape the server sends,
/// for ``OpenMeteoDailyDecoder``: the warming stripes' archive answer is ~300 kB and 31,000
/// days per location, and `JSONDecoder` with a `[String]` of dates and a `[Double?]` of values
/// made decoding it half of a 1,000-location cold start's CPU (bench/RESULTS.md).
///
/// It only vouches for what it fully understands and returns nil for anything else, and the
/// caller then decodes with `JSONDecoder` as before — so results and errors stay exactly those
/// of the general decoder. Accepted: one object, or a non-empty array of objects, of strict
/// RFC 8259 JSON (no escapes in any string, valid UTF-8, nesting ≤ 32, ≤ 64 keys an object, no
/// repeated key); no `error` key; `daily` an object with `time` as `YYYY-MM-DD` strings of real
/// dates and the variable (by its exact name) as `null` or numbers `-?D{1,3}(.D)?`, of equal
/// counts, at least one; `daily_units`, when present, an object whose entry for the variable is
/// absent, `null` or `"°C"`; `utc_offset_seconds`, when present, `null` or an integer. Every
/// other key's value is skipped after checking its syntax. Anything else — an error body,
/// `timeformat=unixtime`, a suffixed variable, an exponent, a value the decoder would reject —
/// goes the general way.
enum OpenMeteoDailyScan {
    static let maximumDepth = 32
    static let maximumKeys = 64

    /// The observations, or nil when the general decoder must decide.
    static func decode(_ body: [UInt8], variable: String) -> [ClimateObservation]? {
        let name = Array(variable.utf8)
        return body.withUnsafeBufferPointer { bytes -> [ClimateObservation]? in
            var scanner = Scanner(bytes: bytes, variable: name)
            return scanner.top()
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        let variable: [UInt8]
        var at = 0

        init(bytes: UnsafeBufferPointer<UInt8>, variable: [UInt8]) {
            self.bytes = bytes
            self.variable = variable
        }

        // MARK: documents

        mutating func top() -> [ClimateObservation]? {
            skipSpace()
            var out: [ClimateObservation] = []
            switch peek() {
            case UInt8(ascii: "{"):
                guard document(into: &out) else { return nil }
            case UInt8(ascii: "["):
                at += 1
                skipSpace()
                guard peek() != UInt8(ascii: "]") else { return nil }
                while true {
                    skipSpace()
                    guard peek() == UInt8(ascii: "{"), document(into: &out) else { return nil }
                    skipSpace()
                    guard let next = take() else { return nil }
                    if next == UInt8(ascii: "]") { break }
                    guard next == UInt8(ascii: ",") else { return nil }
                }
            default:
                return nil
            }
            skipSpace()
            return at == bytes.count ? out : nil
        }

        /// One response object (at its `{`); appends its observations.
        mutating func document(into out: inout [ClimateObservation]) -> Bool {
            var series: (dates: [CivilDate], values: [Int?])?
            var unitOK = true
            var keys: [Range<Int>] = []
            let closed = object(depth: 1, keys: &keys) { scanner, key in
                if scanner.equals(key, "error") { return false }
                if scanner.equals(key, "daily") {
                    guard let daily = scanner.daily() else { return false }
                    series = daily
                    return true
                }
                if scanner.equals(key, "daily_units") {
                    guard let ok = scanner.units() else { return false }
                    unitOK = ok
                    return true
                }
                if scanner.equals(key, "utc_offset_seconds") {
                    return scanner.literal("null") || scanner.integer()
                }
                return scanner.skipValue(depth: 1)
            }
            guard closed, unitOK, let series, !series.dates.isEmpty, series.dates.count == series.values.count
            else { return false }
            out.reserveCapacity(out.count + series.dates.count)
            for (date, value) in zip(series.dates, series.values) {
                out.append(ClimateObservation(date: date, tenthsCelsius: value))
            }
            return true
        }

        /// `daily`: its `time` dates and the variable's values.
        mutating func daily() -> (dates: [CivilDate], values: [Int?])? {
            guard peek() == UInt8(ascii: "{") else { return nil }
            var dates: [CivilDate]?
            var values: [Int?]?
            var keys: [Range<Int>] = []
            let closed = object(depth: 2, keys: &keys) { scanner, key in
                if scanner.equals(key, "time") {
                    dates = scanner.dateArray()
                    return dates != nil
                }
                if scanner.equals(key, scanner.variable) {
                    values = scanner.valueArray()
                    return values != nil
                }
                return scanner.skipValue(depth: 2)
            }
            guard closed, let dates, let values else { return nil }
            return (dates, values)
        }

        /// `daily_units`: true when the variable's unit is absent, null or °C; false for another
        /// unit (the general decoder names it); nil when not understood.
        mutating func units() -> Bool? {
            guard peek() == UInt8(ascii: "{") else { return nil }
            var ok = true
            var keys: [Range<Int>] = []
            let closed = object(depth: 2, keys: &keys) { scanner, key in
                guard scanner.equals(key, scanner.variable) else { return scanner.skipValue(depth: 2) }
                if scanner.literal("null") { return true }
                guard let unit = scanner.string() else { return false }
                ok = scanner.equals(unit, "°C")
                return true
            }
            return closed ? ok : nil
        }

        /// An object at its `{`: each key (raw bytes between the quotes) is handed to `member`
        /// with the scanner after the colon; `member` consumes the value.
        mutating func object(
            depth: Int, keys: inout [Range<Int>], _ member: (inout Scanner, Range<Int>) -> Bool
        ) -> Bool {
            guard take() == UInt8(ascii: "{") else { return false }
            skipSpace()
            if peek() == UInt8(ascii: "}") {
                at += 1
                return true
            }
            while true {
                skipSpace()
                guard let key = string(), keys.count < OpenMeteoDailyScan.maximumKeys else { return false }
                for seen in keys where equals(seen, key) { return false }
                keys.append(key)
                skipSpace()
                guard take() == UInt8(ascii: ":") else { return false }
                skipSpace()
                guard member(&self, key) else { return false }
                skipSpace()
                guard let next = take() else { return false }
                if next == UInt8(ascii: "}") { return true }
                guard next == UInt8(ascii: ",") else { return false }
            }
        }

        /// `["YYYY-MM-DD", …]` of real dates.
        mutating func dateArray() -> [CivilDate]? {
            var out: [CivilDate] = []
            let closed = array { scanner in
                guard let text = scanner.string(), let date = Self.date(scanner.bytes, text) else { return false }
                out.append(date)
                return true
            }
            return closed ? out : nil
        }

        /// `[v, …]`, each `null` or `-?D{1,3}(.D)?`, as tenths.
        mutating func valueArray() -> [Int?]? {
            var out: [Int?] = []
            let closed = array { scanner in
                if scanner.literal("null") {
                    out.append(nil)
                    return true
                }
                guard let tenths = scanner.tenths() else { return false }
                out.append(tenths)
                return true
            }
            return closed ? out : nil
        }

        /// An array at its `[`: `element` consumes each element (the scanner at its first byte).
        mutating func array(_ element: (inout Scanner) -> Bool) -> Bool {
            guard take() == UInt8(ascii: "[") else { return false }
            skipSpace()
            if peek() == UInt8(ascii: "]") {
                at += 1
                return true
            }
            while true {
                skipSpace()
                guard element(&self) else { return false }
                skipSpace()
                guard let next = take() else { return false }
                if next == UInt8(ascii: "]") { return true }
                guard next == UInt8(ascii: ",") else { return false }
            }
        }

        // MARK: tokens

        func peek() -> UInt8? { at < bytes.count ? bytes[at] : nil }

        mutating func take() -> UInt8? {
            guard at < bytes.count else { return nil }
            defer { at += 1 }
            return bytes[at]
        }

        mutating func skipSpace() {
            while at < bytes.count {
                switch bytes[at] {
                case 0x20, 0x09, 0x0A, 0x0D: at += 1
                default: return
                }
            }
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard bytes.count - at >= count else { return false }
            let start = word.utf8Start
            for i in 0..<count where bytes[at + i] != start[i] { return false }
            at += count
            return true
        }

        /// A string without escapes or control characters, in valid UTF-8: the range of its
        /// content.
        mutating func string() -> Range<Int>? {
            guard take() == UInt8(ascii: "\"") else { return nil }
            let start = at
            var ascii = true
            while at < bytes.count {
                let byte = bytes[at]
                if byte == UInt8(ascii: "\"") {
                    let range = start..<at
                    at += 1
                    if !ascii {
                        let slice = UnsafeBufferPointer(rebasing: bytes[range])
                        guard String(validating: slice, as: UTF8.self) != nil else { return nil }
                    }
                    return range
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                if byte >= 0x80 { ascii = false }
                at += 1
            }
            return nil
        }

        /// A JSON integer that fits Int64.
        mutating func integer() -> Bool {
            let start = at
            if peek() == UInt8(ascii: "-") { at += 1 }
            let digits = at
            while let byte = peek(), (0x30...0x39).contains(byte) { at += 1 }
            let count = at - digits
            guard count > 0, count <= 18, count == 1 || bytes[digits] != 0x30 else { return false }
            if let next = peek(), next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
                return false
            }
            return at > start
        }

        /// `-?D{1,3}(.D)?` (no leading zero) as tenths; the server prints one decimal.
        mutating func tenths() -> Int? {
            var negative = false
            if peek() == UInt8(ascii: "-") {
                negative = true
                at += 1
            }
            let digits = at
            var whole = 0
            while let byte = peek(), (0x30...0x39).contains(byte) {
                // More than three digits is not the usual shape: stop before `whole` can
                // overflow (a fuzzed body had 110 of them).
                guard at - digits < 3 else { return nil }
                whole = whole * 10 + Int(byte - 0x30)
                at += 1
            }
            let count = at - digits
            guard count >= 1, count <= 3, count == 1 || bytes[digits] != 0x30 else { return nil }
            var value = whole * 10
            if peek() == UInt8(ascii: ".") {
                at += 1
                guard let byte = take(), (0x30...0x39).contains(byte) else { return nil }
                value += Int(byte - 0x30)
            }
            if let next = peek(), (0x30...0x39).contains(next) || next == UInt8(ascii: "e") || next == UInt8(ascii: "E")
            {
                return nil
            }
            return negative ? -value : value
        }

        /// Any JSON value, its syntax checked (RFC 8259), its content ignored.
        mutating func skipValue(depth: Int) -> Bool {
            guard depth < OpenMeteoDailyScan.maximumDepth, let byte = peek() else { return false }
            switch byte {
            case UInt8(ascii: "\""):
                return string() != nil
            case UInt8(ascii: "{"):
                var keys: [Range<Int>] = []
                return object(depth: depth + 1, keys: &keys) { scanner, _ in scanner.skipValue(depth: depth + 1) }
            case UInt8(ascii: "["):
                return array { scanner in scanner.skipValue(depth: depth + 1) }
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        /// `-? (0 | [1-9]D*) (. D+)? ([eE] [+-]? D+)?`
        mutating func number() -> Bool {
            if peek() == UInt8(ascii: "-") { at += 1 }
            guard let first = take(), (0x30...0x39).contains(first) else { return false }
            if first != 0x30 { skipDigits() }
            if peek() == UInt8(ascii: ".") {
                at += 1
                guard skipDigits() > 0 else { return false }
            }
            if let e = peek(), e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
                at += 1
                if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { at += 1 }
                guard skipDigits() > 0 else { return false }
            }
            return true
        }

        @discardableResult
        mutating func skipDigits() -> Int {
            let start = at
            while let byte = peek(), (0x30...0x39).contains(byte) { at += 1 }
            return at - start
        }

        // MARK: comparing

        func equals(_ range: Range<Int>, _ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard range.count == count else { return false }
            let start = word.utf8Start
            for i in 0..<count where bytes[range.lowerBound + i] != start[i] { return false }
            return true
        }

        func equals(_ range: Range<Int>, _ word: [UInt8]) -> Bool {
            guard range.count == word.count else { return false }
            for i in 0..<word.count where bytes[range.lowerBound + i] != word[i] { return false }
            return true
        }

        func equals(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
            guard a.count == b.count else { return false }
            for i in 0..<a.count where bytes[a.lowerBound + i] != bytes[b.lowerBound + i] { return false }
            return true
        }

        /// `YYYY-MM-DD` of ASCII digits naming a real date, as ``CivilDate/init(iso:)`` reads it.
        static func date(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> CivilDate? {
            guard range.count == 10 else { return nil }
            let b = range.lowerBound
            guard bytes[b + 4] == UInt8(ascii: "-"), bytes[b + 7] == UInt8(ascii: "-") else { return nil }
            func number(_ from: Int, _ count: Int) -> Int? {
                var value = 0
                for i in from..<from + count {
                    let digit = bytes[i] &- 0x30
                    guard digit < 10 else { return nil }
                    value = value * 10 + Int(digit)
                }
                return value
            }
            guard let year = number(b, 4), let month = number(b + 5, 2), let day = number(b + 8, 2) else { return nil }
            return CivilDate(year: year, month: month, day: day)
        }
    }
}
