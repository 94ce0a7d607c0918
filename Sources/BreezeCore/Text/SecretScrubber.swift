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

/// Replaces secrets (API keys, passwords) in text with ``mask``: the one place that knows how a
/// secret may show up in a message, used wherever a message is made (docs/operations.md, Limits: secrets are
/// scrubbed where errors are made, so no sink — log, diagnostics, state files — can carry one).
///
/// It lives in the core so that the HTTP edge (the lowest layer whose errors can hold a secret:
/// a header value curl echoes, a key an API's error body repeats), the configuration that
/// collects the secrets, and every layer above (the fetchers' results, the log) share one
/// implementation. A secret is matched as written and percent-encoded, the way it travels in a
/// URL. Values shorter than ``minimumLength`` are not treated as secrets: masking every `a` in a
/// message would hide more than it protects.
public struct SecretScrubber: Sendable, Equatable {
    /// What a secret is replaced with (the same as a masked secret in `check-config`).
    public static let mask = "********"
    /// Shorter values are not scrubbed.
    public static let minimumLength = 4

    /// Every form to replace, longest first, so a secret containing another is masked whole.
    private let forms: [String]

    public init(secrets: [String]) {
        var forms = Set<String>()
        for secret in secrets where secret.count >= Self.minimumLength {
            forms.insert(secret)
            forms.insert(QueryParameter.percentEncode(secret))
        }
        self.forms = forms.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    /// No secrets: text passes unchanged.
    public static let none = SecretScrubber(secrets: [])

    public var isEmpty: Bool { forms.isEmpty }

    /// `text` with every secret replaced by ``mask``.
    public func scrub(_ text: String) -> String {
        var text = text
        for form in forms where text.contains(form) {
            text = text.replacing(form, with: Self.mask)
        }
        return text
    }
}
