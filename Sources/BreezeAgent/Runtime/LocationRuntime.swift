import BreezeCore

/// Everything the agent knows about one location between fetches, and the topic trees it
/// derives from that (a function of this state and the clock: rebuilt on every wake-up, so
/// the freshness rules and local midnight apply without extra bookkeeping).
struct LocationRuntime: Sendable {
    enum PollenData: Sendable {
        case report(PollenReport, fetchedAt: Int64)
        /// The source has no pollen here: the pollen subtree is cleared.
        case unsupported(message: String)
    }

    struct ClimateData: Sendable {
        var trend: ClimateTrend
        var fetchedAt: Int64
    }

    let config: LocationConfig
    let zone: ZoneRules
    var pollen: PollenData?
    var pollenStale = false
    /// Google refused the key and `pollen.source` is `auto`: Open-Meteo from now on (this run).
    var googleRejected = false
    var pollenSchedule: FetchSchedule
    /// The last warning of each kind, so a repeating condition is logged once.
    var pollenWarned: String?

    var climate: ClimateData?
    var climateStale = false
    var climateSchedule: FetchSchedule
    var unit: TemperatureUnit

    init(config: LocationConfig, zone: ZoneRules, settings: AgentConfig, unit: TemperatureUnit) {
        self.config = config
        self.zone = zone
        self.unit = unit
        self.pollenSchedule = FetchSchedule(
            interval: settings.pollen.interval.components.seconds,
            refreshCooldown: settings.pollen.refreshCooldown.components.seconds, nextDue: 0)
        self.climateSchedule = FetchSchedule(
            interval: 86_400, refreshCooldown: settings.climate.refreshCooldown.components.seconds, nextDue: 0)
    }

    func today(at now: Int64) -> CivilDate { zone.localDate(atUnixTime: now) }

    /// The first instant of the next local day after `now` (DST-safe: probes the offset twice).
    func nextMidnight(after now: Int64) -> Int64 {
        let tomorrow = today(at: now).adding(days: 1)
        let utcMidnight = Int64(tomorrow.daysSinceEpoch) * 86_400
        var guess = utcMidnight - Int64(zone.utcOffset(atUnixTime: now))
        for _ in 0..<3 {
            let corrected = utcMidnight - Int64(zone.utcOffset(atUnixTime: guess))
            if corrected == guess { break }
            guess = corrected
        }
        return max(guess, now + 1)
    }

    // MARK: topic trees

    func pollenScope(prefix: String) -> String { "\(prefix)/\(config.id)/pollen" }
    func climateScope(prefix: String) -> String { "\(prefix)/\(config.id)/climate" }

    /// nil: nothing known yet (keep what is published); empty: clear the subtree.
    func pollenTree(prefix: String, settings: PollenSettings, now: Int64) -> TopicTree? {
        guard settings.enabled else { return TopicTree() }
        switch pollen {
        case nil: return nil
        case .unsupported: return TopicTree()
        case .report(let report, let fetchedAt):
            return PollenTopics.tree(
                prefix: prefix, locationID: config.id, report: report, today: today(at: now), days: settings.days,
                fetchedAt: fetchedAt, now: now, stale: pollenStale, palette: settings.colors)
        }
    }

    func climateTree(prefix: String, enabled: Bool) -> TopicTree? {
        guard enabled else { return TopicTree() }
        guard let climate else { return nil }
        return ClimateTopics.tree(
            prefix: prefix, locationID: config.id, trend: climate.trend, unit: unit,
            updatedAt: UTCTimestamp.rfc3339(unixSeconds: climate.fetchedAt), stale: climateStale)
    }

    /// Pollen items for discovery: today's items of the current report (none when unavailable).
    func pollenItems(settings: PollenSettings, now: Int64) -> [DiscoveryInput.PollenItem]? {
        guard settings.enabled else { return [] }
        switch pollen {
        case nil: return nil
        case .unsupported: return []
        case .report(let report, let fetchedAt):
            let selection = PollenSelection.select(
                report: report, today: today(at: now), days: settings.days, fetchedAt: fetchedAt, now: now,
                stale: pollenStale)
            return selection.items.map { .init(id: $0.topicID, name: $0.name, isPlant: $0.isPlant) }
        }
    }

    /// When this location next needs attention: a due fetch, local midnight (today changes),
    /// or the 24 h / 48 h freshness edges of the pollen data.
    func nextWake(after now: Int64, pollenEnabled: Bool, climateEnabled: Bool) -> Int64 {
        var wake = nextMidnight(after: now)
        if pollenEnabled { wake = min(wake, max(pollenSchedule.nextDue, now)) }
        if climateEnabled { wake = min(wake, max(climateSchedule.nextDue, now)) }
        if case .report(_, let fetchedAt) = pollen {
            for edge in [fetchedAt + PollenSelection.forecastLifetime, fetchedAt + PollenSelection.todayLifetime]
            where edge > now {
                wake = min(wake, edge)
            }
        }
        return wake
    }
}
