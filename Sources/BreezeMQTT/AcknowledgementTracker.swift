/// Tracks which publishes are still waiting for the broker, by message id.
///
/// libmosquitto reports completion through `on_publish(mid)` on its own thread, which can run
/// before `mosquitto_publish` has even returned the `mid` to us. A plain "pending" set would then
/// miss the acknowledgement and wait forever, so an early report is parked in `unclaimed` until
/// `published` claims it. QoS 0 messages also get an `on_publish` (when written to the socket);
/// they are parked in `unsent` so their reports are matched and do not pile up.
struct AcknowledgementTracker: Sendable, Equatable {
    private var awaiting: Set<Int32> = []
    private var unsent: Set<Int32> = []
    private var unclaimed: Set<Int32> = []

    init() {}

    /// `mosquitto_publish` succeeded and handed back `mid`.
    mutating func published(mid: Int32, qos: Int) {
        if unclaimed.remove(mid) != nil { return }
        if qos > 0 { awaiting.insert(mid) } else { unsent.insert(mid) }
    }

    /// `on_publish(mid)`: acknowledged (QoS 1/2) or written (QoS 0).
    mutating func completed(mid: Int32) {
        if awaiting.remove(mid) != nil || unsent.remove(mid) != nil { return }
        unclaimed.insert(mid)
    }

    /// True when every QoS 1/2 publish handed to `published` has been acknowledged.
    var allAcknowledged: Bool { awaiting.isEmpty }

    /// QoS 1/2 publishes still waiting for the broker.
    var awaitingCount: Int { awaiting.count }
}
