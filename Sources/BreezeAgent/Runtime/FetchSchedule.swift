/// When one source of one location is fetched next: a value that the scheduler asks and
/// updates, tested without clocks or I/O (times are Unix seconds passed in).
///
/// - after a success the next fetch is due one `interval` later (plus jitter, so that many
///   hubs do not hit an API in the same second);
/// - after a failure it retries with capped exponential backoff and jitter, never sooner than
///   the server's `Retry-After`;
/// - a rejected API key is not retried in a loop: the next try is a day later;
/// - `refresh` asks for a fetch now, granted at most once per cooldown.
public struct FetchSchedule: Sendable, Equatable {
    public var interval: Int64
    public var refreshCooldown: Int64
    public private(set) var nextDue: Int64
    public private(set) var consecutiveFailures = 0
    public private(set) var lastRefresh: Int64?

    /// First backoff step and the cap of the backoff.
    public static let backoffBase: Int64 = 60
    public static let backoffCap: Int64 = 3600
    /// A rejected key is tried again after this long (or on `refresh`, or a restart).
    public static let rejectedKeyDelay: Int64 = 86_400

    public init(interval: Int64, refreshCooldown: Int64, nextDue: Int64) {
        self.interval = interval
        self.refreshCooldown = refreshCooldown
        self.nextDue = nextDue
    }

    public func isDue(at now: Int64) -> Bool { now >= nextDue }

    /// How long a fetch may be in flight before the schedule counts it as lost and makes the
    /// source due again (curl's own total timeout is 30 s, so this is only a safety net).
    public static let inFlightLimit: Int64 = 300

    /// A fetch started at `now`: not due again while it is in flight, so the scheduler does
    /// not keep waking up for it (its completion sets the real next time).
    public mutating func started(at now: Int64) {
        nextDue = now + Self.inFlightLimit
    }

    /// A fetch succeeded at `now`; `jitter` is a random fraction 0..<1.
    public mutating func succeeded(at now: Int64, jitter: Double) {
        consecutiveFailures = 0
        nextDue = now + interval + Int64(Double(min(interval / 20, 300)) * jitter)
    }

    /// Data is already fresh up to `fetchedAt` (a stored response at start): next fetch when it ages out.
    public mutating func freshUntil(fetchedAt: Int64, jitter: Double) {
        nextDue = fetchedAt + interval + Int64(Double(min(interval / 20, 300)) * jitter)
    }

    /// A fetch failed at `now`; returns the delay chosen. `jitter` is a random fraction 0..<1.
    @discardableResult
    public mutating func failed(at now: Int64, retryAfter: Int64?, jitter: Double) -> Int64 {
        consecutiveFailures += 1
        let exponent = min(consecutiveFailures - 1, 16)
        let backoff = min(Self.backoffCap, Self.backoffBase << Int64(exponent))
        // Jitter spreads retries over +0…25 % of the step.
        var delay = backoff + Int64(Double(backoff / 4) * jitter)
        if let retryAfter, retryAfter > delay { delay = min(retryAfter, 86_400) }
        nextDue = now + delay
        return delay
    }

    /// The API key was rejected (HTTP 400/403): do not hammer.
    public mutating func keyRejected(at now: Int64) {
        consecutiveFailures += 1
        nextDue = now + Self.rejectedKeyDelay
    }

    /// A `refresh` command arrived; true when granted (the fetch becomes due now).
    public mutating func refresh(at now: Int64) -> Bool {
        if let lastRefresh, now - lastRefresh < refreshCooldown { return false }
        lastRefresh = now
        nextDue = now
        return true
    }

    /// Forces the next fetch to `time` (e.g. local midnight for climate).
    public mutating func due(at time: Int64) { nextDue = time }
}
