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

import BreezeYAML
import Testing

@Suite("YAML loading over libyaml")
struct YAMLLoadTests {
    private func load(_ text: String) throws -> YAMLNode {
        try #require(try YAML.load(text, file: "t.yaml"))
    }

    private func pairs(_ node: YAMLNode) throws -> [YAMLPair] {
        guard case .mapping(let pairs) = node.kind else {
            Issue.record("expected a mapping, got \(node.typeDescription)")
            return []
        }
        return pairs
    }

    private func loadError(_ text: String) -> YAMLError? {
        do {
            _ = try YAML.load(text, file: "bad.yaml")
            return nil
        } catch {
            return error
        }
    }

    @Test func emptyInputHasNoDocument() throws {
        #expect(try YAML.load("", file: "e.yaml") == nil)
        #expect(try YAML.load("# only a comment\n\n", file: "e.yaml") == nil)
    }

    @Test func scalarStylesAreKept() throws {
        let root = try load(
            """
            plain: hello world
            single: 'it''s'
            double: "tab\\tend"
            number: 1883
            quotedNumber: "1883"
            empty:
            literal: |
              two
              lines

            """)
        let entries = try pairs(root)
        #expect(
            entries.map { $0.key.scalarText } == [
                "plain", "single", "double", "number", "quotedNumber", "empty", "literal",
            ])
        let values = entries.map(\.value)
        guard case .scalar("hello world", .plain) = values[0].kind else {
            Issue.record("plain: \(values[0].kind)")
            return
        }
        guard case .scalar("it's", .singleQuoted) = values[1].kind else {
            Issue.record("single: \(values[1].kind)")
            return
        }
        guard case .scalar("tab\tend", .doubleQuoted) = values[2].kind else {
            Issue.record("double: \(values[2].kind)")
            return
        }
        guard case .scalar("1883", .plain) = values[3].kind else {
            Issue.record("number: \(values[3].kind)")
            return
        }
        guard case .scalar("1883", .doubleQuoted) = values[4].kind else {
            Issue.record("quoted: \(values[4].kind)")
            return
        }
        #expect(values[5].isNull)
        #expect(!values[4].isNull)
        guard case .scalar("two\nlines\n", .literal) = values[6].kind else {
            Issue.record("literal: \(values[6].kind)")
            return
        }
    }

    @Test func nullSpellings() throws {
        let entries = try pairs(try load("a: ~\nb: null\nc: NULL\nd: 'null'\ne: !!str null\n"))
        #expect(entries.map(\.value.isNull) == [true, true, true, false, false])
        #expect(entries[4].value.tag == "tag:yaml.org,2002:str")
    }

    @Test func nestedBlockCollectionsWithPositions() throws {
        let root = try load(
            """
            mqtt:
              host: broker.lan
              port: 1883
            locations:
              - id: home
                latitude: 52.52
              - id: office
            """)
        let top = try pairs(root)
        #expect(root.line == 1 && root.column == 1)
        let mqtt = try pairs(top[0].value)
        #expect(mqtt[1].key.scalarText == "port")
        #expect(mqtt[1].key.line == 3)
        #expect(mqtt[1].key.column == 3)
        #expect(mqtt[1].value.column == 9)
        guard case .sequence(let items) = top[1].value.kind else {
            Issue.record("locations is not a list")
            return
        }
        #expect(items.count == 2)
        #expect(items[0].line == 5)
        #expect(items[1].line == 7)
        let first = try pairs(items[0])
        #expect(first[1].value.scalarText == "52.52")
        #expect(first[1].value.line == 6)
    }

    @Test func flowStyle() throws {
        let root = try load("tls: {}\nyears: [1980, 2000]\nm: {a: 1, b: [x, 'y']}\n")
        let top = try pairs(root)
        guard case .mapping(let tls) = top[0].value.kind else {
            Issue.record("tls")
            return
        }
        #expect(tls.isEmpty)
        guard case .sequence(let years) = top[1].value.kind else {
            Issue.record("years")
            return
        }
        #expect(years.map(\.scalarText) == ["1980", "2000"])
        #expect(years[1].line == 2 && years[1].column == 15)
        let m = try pairs(top[2].value)
        guard case .sequence(let b) = m[1].value.kind else {
            Issue.record("b")
            return
        }
        #expect(b.map(\.scalarText) == ["x", "y"])
    }

    @Test func explicitSingleDocumentIsFine() throws {
        let root = try load("---\na: 1\n...\n")
        #expect(try pairs(root).count == 1)
    }

    @Test(arguments: [
        ("a: 1\nb: [1, 2\nc: 3\n", 3),  // unclosed flow sequence
        ("a: 1\n  b: 2\n", 2),  // bad indentation
        ("a:\n  - x\n  y: 1\n", 3),
        ("key: \"unterminated\n", 2),
    ])
    func syntaxErrorsCarryLibyamlTextAndLine(text: String, line: Int) throws {
        let error = try #require(loadError(text))
        #expect(error.line == line, "\(error)")
        #expect(error.file == "bad.yaml")
        #expect(!error.message.isEmpty)
        #expect(error.description.hasPrefix("bad.yaml:\(line):"))
    }

    @Test func libyamlProblemTextIsPassedOn() throws {
        let error = try #require(loadError("a: b: c\n"))
        #expect(error.message.contains("mapping values are not allowed"), "\(error)")
        #expect(error.line == 1)
    }

    @Test func duplicateKeysNameBothLines() throws {
        let error = try #require(loadError("mqtt:\n  host: a\n  port: 1\n  host: b\n"))
        #expect(error.line == 4)
        #expect(error.column == 3)
        #expect(error.message == "duplicate key \"host\" (first given at line 2)")
    }

    @Test func sameKeyInDifferentMappingsIsFine() throws {
        _ = try load("a: {x: 1}\nb: {x: 2}\n")
    }

    @Test func secondDocumentIsRejected() throws {
        let error = try #require(loadError("a: 1\n---\nb: 2\n"))
        #expect(error.line == 2)
        #expect(error.message.contains("only one document"))
    }

    @Test func anchorsAndAliasesAreRejected() throws {
        let anchor = try #require(loadError("a: &x 1\n"))
        #expect(anchor.message.contains("anchors"))
        #expect(anchor.line == 1)
        let alias = try #require(loadError("a: 1\nb: *x\n"))
        // libyaml itself does not check that the anchor exists; we stop at the alias.
        #expect(alias.line == 2)
        #expect(alias.message.contains("aliases"))
    }
}
