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

/// A language the agent speaks (the top-level `language` setting, issue 51): the names it
/// gives Home Assistant, the plant and type names of the key-free sources, the status page and
/// the rendered images. This enum is the one place that lists them; each has its catalogue in
/// `Catalogue+<code>.swift`.
///
/// What is never translated: topic names, `unique_id`s, `default_entity_id`s, JSON keys, the
/// level words on the broker and Home Assistant's states (`Low`, `No pollen`): automations and
/// consumers key on them (docs/home-assistant.md).
public enum Language: String, Sendable, Hashable, CaseIterable {
    case en, de, fr, it, es, nl, pl, sv, da, nb, fi, pt, cs

    /// The default: English, whose output is the agent's original wording.
    public static let english = Language.en

    /// The language of a BCP 47 tag, by its primary subtag, case-insensitively (`de`, `de-AT`,
    /// `pt-BR`, `EN`); `no` (Norwegian) is Bokmål. Nil for a language without a catalogue.
    public init?(tag: String) {
        let primary = tag.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let lowered = String(
            String.UnicodeScalarView(
                primary.unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0 }))
        if lowered == "no" {
            self = .nb
            return
        }
        guard let language = Language(rawValue: lowered) else { return nil }
        self = language
    }

    /// `en, de, fr, …`: for the error that names the languages there are.
    public static var supportedList: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The tag for HTML's `lang`.
    public var htmlTag: String { rawValue }

    // MARK: text

    /// The catalogue text of `key` with its `{name}` placeholders replaced by `values`; English
    /// when the language's catalogue lacks the key (the completeness test keeps that from
    /// happening). A placeholder without a value stays as it is.
    public func text(_ key: CatalogueKey, _ values: [String: String] = [:]) -> String {
        let template = Catalogue.table(self)[key.rawValue] ?? Catalogue.table(.en)[key.rawValue] ?? key.rawValue
        return values.isEmpty ? template : Catalogue.fill(template, values)
    }

    /// The CLDR plural category of a count in this language (cardinal, whole numbers): what
    /// picks `…_one`, `…_few` or `…_other`. Only Polish and Czech have `few`; French and
    /// Portuguese count 0 as `one`.
    public func pluralCategory(_ count: Int) -> PluralCategory {
        let n = count.magnitude
        switch self {
        case .fr, .pt: return n <= 1 ? .one : .other
        case .pl:
            if n == 1 { return .one }
            return (2...4).contains(n % 10) && !(12...14).contains(n % 100) ? .few : .other
        case .cs:
            if n == 1 { return .one }
            return (2...4).contains(n) ? .few : .other
        default: return n == 1 ? .one : .other
        }
    }

    /// The text of the key for `count`'s plural category, with `{count}` filled in too.
    public func text(
        one: CatalogueKey, few: CatalogueKey, other: CatalogueKey, count: Int, _ values: [String: String] = [:]
    ) -> String {
        let key: CatalogueKey
        switch pluralCategory(count) {
        case .one: key = one
        case .few: key = few
        case .other: key = other
        }
        return text(key, values.merging(["count": String(count)]) { given, _ in given })
    }

    // MARK: names

    /// The display name of a pollen type or plant by its code (`GRASS`, `ALDER`, `HAZEL`) for
    /// the sources whose names are the agent's own (Open-Meteo, DWD); nil for a code the
    /// catalogue has no name for (Google's names are Google's, in `pollen.language`).
    public func plantName(code: String) -> String? {
        guard let key = CatalogueKey(rawValue: "plant." + Self.lowercased(code)) else { return nil }
        return text(key)
    }

    /// A level word as people read it (the status page, the images): `High` → `Hoch`. The
    /// broker's topics and Home Assistant's states keep the English word; a word the catalogue
    /// does not know is returned as it is.
    public func levelWord(_ english: String) -> String {
        guard self != .en else { return english }
        let slug = Self.lowercased(english).replacingSpaces(with: "_")
        guard let key = CatalogueKey(rawValue: "level." + slug) else { return english }
        return text(key)
    }

    private static func lowercased(_ text: some StringProtocol) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0 }))
    }
}

/// A CLDR plural category (the three the catalogues use).
public enum PluralCategory: Sendable, Hashable {
    case one, few, other
}

extension String {
    fileprivate func replacingSpaces(with replacement: Character) -> String {
        String(map { $0 == " " ? replacement : $0 })
    }
}
