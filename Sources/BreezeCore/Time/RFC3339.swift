/// RFC 3339 timestamps in UTC (`2026-11-30T03:06:23Z`), as the SPEC wants for `updated_at`.
///
/// Written by hand because `Date.ISO8601FormatStyle` is not needed for one fixed shape, and keeping
/// the core free of formatter state makes the output byte-for-byte predictable.
public enum RFC3339 {
    /// Formats Unix seconds as `YYYY-MM-DDTHH:MM:SSZ` (whole seconds, UTC).
    public static func format(unixSeconds t: Int64) -> String {
        let days = t.floorDivided(by: 86_400)
        let secondOfDay = Int(t - days * 86_400)
        let date = CivilDate(daysSinceEpoch: Int(days))
        func two(_ v: Int) -> String { v < 10 ? "0" + String(v) : String(v) }
        return "\(date)T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }
}
