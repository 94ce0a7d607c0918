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

#if canImport(Glibc)
    import Glibc
#endif

extension AgentConfig {
    /// Every secret of this configuration — the Google key, the MQTT password, a password in an
    /// endpoint's or an access point's `user:password@` — as the one scrubber the log and the fetchers use (docs/operations.md, Limits).
    public var secretScrubber: SecretScrubber {
        var secrets = [pollen.apiKey?.value, mqtt.password?.value].compactMap { $0 }
        let urls = [endpoints.pollen, endpoints.airQuality, endpoints.climateArchive, endpoints.climateForecast]
        // OpenEPaperLink access points too (docs/operations.md, Limits): curl's errors could echo the URL.
        for url in urls + openEPaperLink.map(\.accessPoint) {
            guard let userinfo = EndpointURL.userinfo(of: url) else { continue }
            secrets.append(String(userinfo))
            if let colon = userinfo.firstIndex(of: ":") {
                secrets.append(String(userinfo[userinfo.index(after: colon)...]))
            }
        }
        return SecretScrubber(secrets: secrets)
    }

    /// Warnings about secret files that others can read or the group can change:
    /// `mqtt.password_file` or `pollen.api_key_file` with any permission for others, or group
    /// write. `0640 root:breeze-agent` is what the package's docs recommend (the service reads
    /// it through its group), so group read alone is fine. Not an error: the file may sit in a
    /// directory nobody else can enter, and refusing would stop a running setup.
    public func secretFileWarnings() -> [String] {
        let files: [(key: String, secret: Secret?)] = [
            ("mqtt.password_file", mqtt.password), ("pollen.api_key_file", pollen.apiKey),
        ]
        return files.compactMap { key, secret in
            guard let path = secret?.file else { return nil }
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & 0o027 != 0 else { return nil }
            let mode = String(info.st_mode & 0o777, radix: 8)
            return
                "\(key): \(path) can be read by others or changed by its group (mode 0\(mode)); make it private with chmod 600, or 640 with the service's group"
        }
    }
}

/// The parts of an endpoint base URL (`http[s]://[user:password@]host[:port][/path]`) that
/// secrets and transport checks need; `ConfigLoader` has already validated its shape.
enum EndpointURL {
    /// The `user:password` before `@` in the authority, if any.
    static func userinfo(of url: String) -> Substring? {
        let authority = self.authority(of: url)
        guard let at = authority.lastIndex(of: "@") else { return nil }
        return authority[..<at]
    }

    /// The URL with its userinfo shown as `********@` (for `check-config`).
    static func maskingUserinfo(_ url: String) -> String {
        guard let userinfo = userinfo(of: url), !userinfo.isEmpty else { return url }
        return String(url[..<userinfo.startIndex]) + SecretScrubber.mask + String(url[userinfo.endIndex...])
    }

    /// The host, without userinfo, port or IPv6 brackets.
    static func host(of url: String) -> String {
        var host = authority(of: url)
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            return String(host[host.index(after: host.startIndex)..<close])
        }
        if let colon = host.lastIndex(of: ":") { host = host[..<colon] }
        return String(host)
    }

    /// Plain `http://` to a host other than the loopback interface: a secret sent there crosses
    /// the network unencrypted.
    static func isPlainHTTPOffLoopback(_ url: String) -> Bool {
        guard url.lowercased().hasPrefix("http://") else { return false }
        let host = host(of: url).lowercased()
        // 127.0.0.0/8 as an address literal only: `127.example.net` is a name like any other.
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        let ipv4Loopback =
            octets.count == 4 && octets[0] == "127"
            && octets.allSatisfy {
                !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber)
            }
        return !(host == "localhost" || host == "::1" || ipv4Loopback)
    }

    private static func authority(of url: String) -> Substring {
        // ConfigLoader accepts only http:// and https:// URLs.
        let rest = url.hasPrefix("https://") ? url.dropFirst(8) : url.hasPrefix("http://") ? url.dropFirst(7) : url[...]
        return rest[..<(rest.firstIndex(of: "/") ?? rest.endIndex)]
    }
}
