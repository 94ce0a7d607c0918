public import BreezeCore
import FoundationEssentials

/// Loads a named IANA zone (`Europe/Berlin`) from the system zoneinfo (package `tzdata`).
///
/// The agent cannot rely on Foundation's named `TimeZone` in a static build (STYLE.md), so it
/// reads the TZif file itself and hands the bytes to the pure ``ZoneRules`` parser.
public enum ZoneInfoLoader {
    /// Where Debian's `tzdata` installs the compiled zone files.
    public static let defaultRoot = "/usr/share/zoneinfo"

    /// Reads and parses `<root>/<name>`.
    ///
    /// The name becomes a path, so it is checked first: relative, made of `A-Za-z0-9/_+-.`
    /// components, no `..` or empty component (a config value must not read `/etc/shadow`).
    public static func load(_ name: String, root: String = defaultRoot) throws(ZoneInfoError) -> ZoneRules {
        guard isValidName(name) else { throw .invalidName(name) }
        let path = root.hasSuffix("/") ? root + name : root + "/" + name
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(name: name, path: path, reason: String(describing: error))
        }
        do {
            return try ZoneRules(tzif: [UInt8](data))
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
}

/// Why a zone could not be loaded; names the zone and the file.
public enum ZoneInfoError: Error, Equatable, CustomStringConvertible {
    case invalidName(String)
    case unreadable(name: String, path: String, reason: String)
    case invalidFile(name: String, path: String, reason: String)

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
