public import BreezeCore

/// The old entry point, kept so callers compile while they move to `LocationConfig.zone` (the
/// configuration loads every zone once); it is ``TimeZoneResolver/load(_:)`` under another name.
public enum ZoneInfoLoader {
    /// Where Debian's `tzdata` installs the compiled zone files.
    public static let defaultRoot = TimeZoneResolver.defaultZoneInfoRoot

    /// ``TimeZoneResolver/load(_:)`` with the zoneinfo tree at `root`.
    public static func load(_ name: String, root: String = defaultRoot) throws(ZoneInfoError) -> ZoneRules {
        try TimeZoneResolver(zoneInfoRoot: root).load(name)
    }
}
