/// Finds and verifies IANA time zone names against the system zoneinfo (SPEC §0).
///
/// Names are checked on disk rather than through Foundation's `TimeZone`, because named zones
/// are missing from a statically linked build (STYLE.md): a name is valid when it has no `..`,
/// is relative, and `<zoneInfoRoot>/<name>` is a TZif file. The /etc paths are injectable so
/// the detection order can be tested without touching the real system.
public struct TimeZoneResolver: Sendable {
    public var zoneInfoRoot: String
    /// Debian's `/etc/timezone` (one line: the zone name).
    public var timezoneFile: String
    /// The `/etc/localtime` symlink into the zoneinfo tree.
    public var localtimeLink: String

    public init(
        zoneInfoRoot: String = "/usr/share/zoneinfo", timezoneFile: String = "/etc/timezone",
        localtimeLink: String = "/etc/localtime"
    ) {
        self.zoneInfoRoot =
            zoneInfoRoot.count > 1 && zoneInfoRoot.hasSuffix("/")
            ? String(zoneInfoRoot.dropLast()) : zoneInfoRoot
        self.timezoneFile = timezoneFile
        self.localtimeLink = localtimeLink
    }

    /// True when `name` is a safe relative name of a TZif file under the zoneinfo root.
    public func isValid(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.split(separator: "/").contains(".."),
            let head = try? ConfigFiles.read("\(zoneInfoRoot)/\(name)", limit: 4)
        else { return false }
        return head == Array("TZif".utf8)
    }

    /// The outcome of looking for the system's zone: a name, or why none was found.
    public enum SystemZone: Sendable, Equatable {
        case found(name: String, from: String)
        case notFound(reason: String)
    }

    /// `TZ` (a leading `:` stripped; a path under the zoneinfo root or a link into it gives its
    /// name), else `/etc/timezone`, else the target of the `/etc/localtime` link.
    ///
    /// A set, non-empty `TZ` decides on its own: if it names no zone we can read (a POSIX rule
    /// like `CET-1CEST`), falling through to /etc would silently use a zone the user overrode.
    public func systemZone(environment: [String: String]) -> SystemZone {
        if var tz = environment["TZ"], !tz.isEmpty {
            if tz.hasPrefix(":") { tz.removeFirst() }
            if let name = zoneName(fromPathOrName: tz), isValid(name) { return .found(name: name, from: "TZ") }
            return .notFound(reason: "TZ=\(tz) is not an IANA time zone name found under \(zoneInfoRoot)")
        }
        if let bytes = try? ConfigFiles.read(timezoneFile, limit: 256) {
            let name = String(decoding: bytes, as: UTF8.self)
                .split(whereSeparator: { $0 == "\n" || $0 == " " || $0 == "\t" || $0 == "\r" }).first.map(String.init)
            if let name, isValid(name) { return .found(name: name, from: timezoneFile) }
        }
        if let target = ConfigFiles.linkTarget(localtimeLink), let name = nameAfterZoneinfo(target), isValid(name) {
            return .found(name: name, from: localtimeLink)
        }
        return .notFound(
            reason: "TZ is not set, \(timezoneFile) names no zone and \(localtimeLink) is not a link into zoneinfo")
    }

    private func zoneName(fromPathOrName value: String) -> String? {
        guard value.hasPrefix("/") else { return value }
        if value.hasPrefix(zoneInfoRoot + "/") { return String(value.dropFirst(zoneInfoRoot.count + 1)) }
        // TZ=:/etc/localtime (systemd units do this): follow the link.
        if let target = ConfigFiles.linkTarget(value) { return nameAfterZoneinfo(target) }
        return nil
    }

    /// `../usr/share/zoneinfo/Europe/Berlin` → `Europe/Berlin`.
    private func nameAfterZoneinfo(_ target: String) -> String? {
        if target.hasPrefix(zoneInfoRoot + "/") { return String(target.dropFirst(zoneInfoRoot.count + 1)) }
        guard let range = target.ranges(of: "zoneinfo/").last else { return nil }
        var name = String(target[range.upperBound...])
        for variant in ["posix/", "right/"] where name.hasPrefix(variant) { name.removeFirst(variant.count) }
        return name
    }
}
