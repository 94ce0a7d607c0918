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

/// How a control character other than newline and tab is written inside ``doubleQuoted(_:maxScalars:controls:)``.
public enum ControlEscape {
    /// `\u{1b}`, Swift's form: for messages and logs.
    case braced
    /// `\x1b`, YAML's form: for text that is read back as YAML (`check-config` output).
    case yaml
}

/// `text` between double quotes, safe to print on one line: `"` and `\` escaped, newline and tab
/// as `\n` and `\t`, other control characters and DEL escaped as `controls` says. With
/// `maxScalars`, longer text is cut there and ends in `…` (a command payload in a log line).
///
/// The one quoting rule of configuration errors, `check-config` output, log lines and the render
/// helper's error messages (in the core so the helper, which does not link the agent, uses it too).
public func doubleQuoted(_ text: String, maxScalars: Int = .max, controls: ControlEscape = .braced) -> String {
    var out = "\""
    for scalar in text.unicodeScalars.prefix(maxScalars) {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        default:
            guard scalar.value < 0x20 || scalar.value == 0x7f else {
                out.unicodeScalars.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16)
            switch controls {
            case .braced: out += "\\u{\(hex)}"
            case .yaml: out += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            }
        }
    }
    if text.unicodeScalars.count > maxScalars { out += "…" }
    return out + "\""
}

/// A command payload as it may appear in a log line: quoted, escaped, cut after 40 characters.
public func quotedForLog(_ text: String) -> String { doubleQuoted(text, maxScalars: 40) }
