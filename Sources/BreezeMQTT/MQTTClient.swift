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
import CMosquitto
import Dispatch
import Glibc
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `mosquitto_lib_init` exactly once per process, on first use (a global `let` is initialised
/// lazily and thread-safely by the runtime).
private let mosquittoLibrary: Void = { _ = mosquitto_lib_init() }()

/// An MQTT client over libmosquitto, running on libmosquitto's own network thread
/// (`mosquitto_loop_start`), which also reconnects by itself with capped backoff.
///
/// Lifecycle: `init` (configure, will) → ``start()`` → publish/subscribe → ``stop()``.
/// libmosquitto's callbacks only update a `Mutex`-protected state and yield into an
/// `AsyncStream`; nothing in them blocks or waits on Swift code.
///
/// Every QoS 1/2 publish ends as accepted, refused (MQTT 5 reason code ≥ 0x80, or refused by
/// the client for its size) or lost (the connection ended before the broker acknowledged it);
/// ``waitForOutcomes(timeout:)`` reports them per topic.
public final class MQTTClient: Sendable {
    public let configuration: MQTTConfiguration
    /// The client's only clock: its timers and the connect timeout's time.
    private let timers: any MQTTTimers
    private let core: ClientCore
    private let lifecycle: Mutex<Lifecycle>

    /// Creates and configures the libmosquitto handle; does not connect. `timers`: the real
    /// ones, or a test's that it moves by hand.
    public init(_ configuration: MQTTConfiguration, timers: any MQTTTimers = DispatchTimers()) throws(MosquittoError) {
        try configuration.validate()
        _ = mosquittoLibrary
        self.configuration = configuration
        self.timers = timers
        let core = ClientCore(
            protocolVersion: configuration.protocolVersion,
            protocolFallback: configuration.protocolFallback && configuration.protocolVersion == .v5,
            connectTimeout: .seconds(configuration.connectTimeout), tls: configuration.tls != nil,
            maxIncomingPayload: configuration.maxIncomingPayload, timers: timers)
        self.core = core
        let userdata = Unmanaged.passRetained(core)
        guard let raw = mosquitto_new(configuration.clientID, configuration.cleanSession, userdata.toOpaque()) else {
            let error = MosquittoError(code: Int32(MOSQ_ERR_ERRNO.rawValue))
            userdata.release()
            throw error
        }
        let handle = MosquittoHandle(raw: raw, userdata: userdata)
        do {
            try Self.configure(handle.raw, with: configuration)
        } catch {
            mosquitto_destroy(handle.raw)
            userdata.release()
            throw error
        }
        lifecycle = Mutex(.created(handle))
        core.requests.withLock {
            $0 = ClientCore.Requests(
                restart: { [weak self] in self?.restartLoop() },
                watch: { [weak self] in self?.startWatchdog() })
        }
    }

    deinit {
        // Normally `stop()` has run. If not, shut down here, synchronously: the handle's thread
        // must not outlive the box it reads from.
        let leftover: (MosquittoHandle, MosquittoHandle.Thread)? = lifecycle.withLock { state in
            switch state {
            case .created(let handle):
                return (handle, .notStarted)
            case .running(let handle):
                // Without this the network thread keeps running and loop_stop never returns.
                _ = mosquitto_disconnect(handle.raw)
                return (handle, core.state.withLock { $0.connected } ? .connected : .notConnected)
            case .stopping, .stopped:
                return nil
            }
        }
        if let (handle, thread) = leftover {
            handle.shutDown(thread)
        }
        core.finish()
    }

    /// Events in order; a single consumer. The stream ends after ``stop()``.
    public var events: AsyncStream<MQTTEvent> { core.events }

    /// Whether the broker has accepted the current connection.
    public var isConnected: Bool { core.state.withLock { $0.connected } }

    /// The most recent connection failure (refusal, lost connection, TLS error), `nil` once connected.
    public var lastError: MosquittoError? { core.state.withLock { $0.lastError } }

    /// Starts connecting and returns at once; mosquitto's thread connects and keeps reconnecting.
    ///
    /// A broker that is down or a host name that does not resolve yet is not an error here (the
    /// network thread retries, ``lastError`` says why); invalid arguments and TLS setup errors are.
    /// Resolving the host name happens in this call, as in `mosquitto_connect_async`.
    public func start() throws(MosquittoError) {
        try lifecycle.withLock { state throws(MosquittoError) in
            guard case .created(let handle) = state else {
                throw MosquittoError(
                    kind: .library, code: MosquittoError.invalidCode, message: "the client was already started")
            }
            let result = mosquitto_connect_async(
                handle.raw, configuration.host, Int32(configuration.port), Int32(configuration.keepalive))
            var deferredError: MosquittoError?
            if result != .mosqSuccess {
                var error = MosquittoError(code: result)
                // A TLS handshake that fails right here is explained only in the log (OpenSSL's text).
                if let logged = core.state.withLock({ $0.lastLoggedError }) {
                    error = MosquittoError(kind: .library, code: result, message: "\(error.message) (\(logged))")
                }
                guard Self.isRetriedByLoop(result) else { throw error }
                deferredError = error
            }
            try check(mosquitto_loop_start(handle.raw))
            state = .running(handle)
            startWatchdog()
            if let deferredError {
                core.state.withLock { $0.lastError = deferredError }
                scheduleInitialConnect(after: configuration.reconnectDelayMin)
            }
        }
    }

    /// libmosquitto's thread only starts its reconnect loop after a first connect got as far as
    /// a socket; until then it idles. So a failed first attempt is retried here, with the same
    /// capped doubling backoff, on a timer's thread (it resolves and connects, which may block).
    private func scheduleInitialConnect(after seconds: Int) {
        timers.schedule(after: .seconds(seconds)) { [weak self] in
            guard let self else { return }
            let failure: MosquittoError? = lifecycle.withLock { state in
                guard case .running(let handle) = state else { return nil }
                core.state.withLock { $0.asyncAttempt = true }
                let result = mosquitto_connect_async(
                    handle.raw, configuration.host, Int32(configuration.port), Int32(configuration.keepalive))
                return result == .mosqSuccess ? nil : MosquittoError(code: result)
            }
            guard let failure else { return }
            core.state.withLock { $0.lastError = failure }
            scheduleInitialConnect(after: min(seconds * 2, configuration.reconnectDelayMax))
        }
    }

    /// Waits until the broker has accepted the connection; false after `timeout` or once stopped.
    public func waitUntilConnected(timeout: Duration) async -> Bool {
        await core.wait(for: .connected, timeout: timeout)
    }

    /// Publishes a message. While disconnected libmosquitto 2.0 refuses every QoS with "The client
    /// is not currently connected." (code 4): republish after the next ``MQTTEvent/connected``.
    public func publish(_ topic: String, _ payload: [UInt8], qos: Int = 0, retain: Bool = false) throws(MosquittoError)
    {
        try MQTTConfiguration.validatePublish(topic: topic, qos: qos, what: "publish")
        try lifecycle.withLock { state throws(MosquittoError) in
            guard let handle = state.usableHandle else { throw MosquittoError(code: .mosqNoConnection) }
            try core.publish(
                handle.raw, topic: topic, payload: payload, qos: qos, retain: retain,
                configuredLimit: configuration.maxPacketSize)
        }
    }

    /// Waits until no QoS 1/2 message published so far is waiting for the broker, and returns
    /// true when all of them were accepted: false after `timeout`, once stopped, or when a
    /// publish was refused or lost since the outcomes were last taken (``takeOutcomes()``).
    public func waitForAcknowledgements(timeout: Duration) async -> Bool {
        guard await core.wait(for: .settled, timeout: timeout) else { return false }
        return core.state.withLock { $0.acknowledgements.noFailures }
    }

    /// Waits (up to `timeout`, or until stopped) until no QoS 1/2 publish is waiting for the
    /// broker, then hands over what became of the publishes since the outcomes were last taken:
    /// how many were accepted, which topics were refused (with the reason) or lost, and which
    /// are still pending (only after `timeout`; they stay tracked).
    public func waitForOutcomes(timeout: Duration) async -> PublishOutcomes {
        _ = await core.wait(for: .settled, timeout: timeout)
        return takeOutcomes()
    }

    /// The outcomes recorded since they were last taken, without waiting.
    public func takeOutcomes() -> PublishOutcomes {
        core.state.withLock { $0.acknowledgements.take() }
    }

    /// The protocol spoken now: the configured one, or 3.1.1 after a fallback.
    public var protocolVersion: MQTTProtocolVersion { core.state.withLock { $0.protocolVersion } }

    /// The broker's Maximum Packet Size from its last MQTT 5 CONNACK, if it sent one.
    public var brokerMaximumPacketSize: Int? { core.state.withLock { $0.brokerMaximumPacketSize } }

    /// Subscribes now if connected, and again after every reconnect (the list is kept). With
    /// MQTT 5 messages keep the retain flag they were published with (see `subscribeOptions`).
    public func subscribe(_ pattern: String, qos: Int = 0) throws(MosquittoError) {
        if !(0...2).contains(qos) { throw .invalidConfiguration("subscribe QoS \(qos) is not 0, 1 or 2") }
        try check(mosquitto_sub_topic_check(pattern))
        try lifecycle.withLock { state throws(MosquittoError) in
            guard let handle = state.usableHandle else { throw MosquittoError(code: .mosqNoConnection) }
            core.state.withLock { $0.subscriptions[pattern] = Int32(qos) }
            let result = mosquitto_subscribe_v5(handle.raw, nil, pattern, Int32(qos), core.subscribeOptions, nil)
            // Not connected: the connect callback sends it.
            if result != .mosqNoConnection { try check(result) }
        }
    }

    /// Overrides libmosquitto's reconnect backoff from the next reconnect on: a fixed delay of
    /// `seconds`, or (nil) the configured exponential one. libmosquitto's backoff starts afresh
    /// after every successful connect, so a connection the broker keeps dropping at once (a
    /// second client with the same id) would otherwise be retried every second (docs/operations.md, Limits).
    public func setReconnectDelay(seconds: Int?) {
        lifecycle.withLock { state in
            guard let handle = state.usableHandle else { return }
            if let seconds, seconds >= 1 {
                _ = mosquitto_reconnect_delay_set(handle.raw, UInt32(seconds), UInt32(seconds), false)
            } else {
                _ = mosquitto_reconnect_delay_set(
                    handle.raw, UInt32(configuration.reconnectDelayMin), UInt32(configuration.reconnectDelayMax), true)
            }
        }
    }

    /// Removes a subscription (now and for later reconnects).
    public func unsubscribe(_ pattern: String) throws(MosquittoError) {
        try lifecycle.withLock { state throws(MosquittoError) in
            guard let handle = state.usableHandle else { throw MosquittoError(code: .mosqNoConnection) }
            core.state.withLock { $0.subscriptions[pattern] = nil }
            let result = mosquitto_unsubscribe(handle.raw, nil, pattern)
            if result != .mosqNoConnection { try check(result) }
        }
    }

    /// Disconnects cleanly (the broker discards the will), stops mosquitto's thread, frees the
    /// handle and ends ``events``. Idempotent.
    public func stop() async {
        let toShutDown: (MosquittoHandle, MosquittoHandle.Thread)? = lifecycle.withLock { state in
            switch state {
            case .created(let handle):
                state = .stopping
                return (handle, .notStarted)
            case .running(let handle):
                state = .stopping
                // Queues DISCONNECT and marks the handle as disconnecting, so the network thread
                // neither reconnects nor outlives the following loop_stop.
                _ = mosquitto_disconnect(handle.raw)
                // A connect attempt still in progress (a stalled TCP or TLS handshake) would hold
                // the thread until libmosquitto's keepalive check: end it now.
                core.abortAttempt(handle.raw, port: configuration.port)
                // Read after the disconnect request: a connection still live here is lost only
                // through the disconnect callback, after which libmosquitto sees the request.
                let live = core.state.withLock { $0.connected }
                return (handle, live ? .connected : .notConnected)
            case .stopping, .stopped:
                return nil
            }
        }
        guard let (handle, thread) = toShutDown else { return }
        // Joining mosquitto's thread (`mosquitto_loop_stop`) blocks: keep it off the cooperative
        // pool (two threads on the target machines), on a queue of its own per client.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue(label: "breeze.mqtt.shutdown").async {
                handle.shutDown(thread)
                continuation.resume()
            }
        }
        lifecycle.withLock { $0 = .stopped }
        core.finish()
    }

    #if BREEZE_TEST_HOOKS
        /// The connection's socket, for tests that cut it to simulate a dead client.
        var socketDescriptorForTesting: Int32 {
            lifecycle.withLock { state in state.usableHandle.map { mosquitto_socket($0.raw) } ?? -1 }
        }
    #endif

    /// Ticks once a second while not connected: a connect attempt older than the connect
    /// timeout is aborted (libmosquitto itself gives up only after the keepalive, 60 s by
    /// default, with TLS and without). Stops ticking once connected; a disconnect restarts it.
    private func startWatchdog() {
        guard core.claimWatchdog() else { return }
        tickWatchdog()
    }

    private func tickWatchdog() {
        timers.schedule(after: .seconds(1)) { [weak self] in
            guard let self else { return }
            let again: Bool = lifecycle.withLock { state in
                guard case .running(let handle) = state else { return false }
                // The time is the timers' (the watchdog's decision takes it as an argument).
                return core.watch(handle.raw, port: configuration.port, now: timers.now())
            }
            if again { tickWatchdog() }
        }
    }

    /// libmosquitto's thread ends after some failures (a refused MQTT 5 CONNACK, a TLS error)
    /// instead of reconnecting. After a protocol fallback or an aborted TLS attempt, start it
    /// again, after the minimum reconnect delay.
    private func restartLoop() {
        timers.schedule(after: .seconds(configuration.reconnectDelayMin)) { [weak self] in
            guard let self else { return }
            let failure: MosquittoError? = lifecycle.withLock { state in
                guard case .running(let handle) = state else { return nil }
                // The thread has returned (or returns now that the state is "disconnecting").
                _ = mosquitto_disconnect(handle.raw)
                _ = mosquitto_loop_stop(handle.raw, false)
                core.closeDecoys()
                core.state.withLock { $0.asyncAttempt = true }
                let result = mosquitto_reconnect_async(handle.raw)
                let started = mosquitto_loop_start(handle.raw)
                if started != .mosqSuccess { return MosquittoError(code: started) }
                return result == .mosqSuccess ? nil : MosquittoError(code: result)
            }
            startWatchdog()
            if let failure {
                core.state.withLock { $0.lastError = failure }
                // Not reached a socket: the loop idles until a connect succeeds (see start()).
                if Self.isRetriedByLoop(failure.code) { scheduleInitialConnect(after: configuration.reconnectDelayMin) }
            }
        }
    }

    private static func isRetriedByLoop(_ result: Int32) -> Bool {
        result == Int32(MOSQ_ERR_ERRNO.rawValue) || result == Int32(MOSQ_ERR_EAI.rawValue)
            || result == Int32(MOSQ_ERR_CONN_REFUSED.rawValue) || result == Int32(MOSQ_ERR_CONN_LOST.rawValue)
    }

    /// Everything that must be set before connecting: protocol, callbacks, credentials, TLS, will, backoff.
    private static func configure(_ raw: OpaquePointer, with configuration: MQTTConfiguration) throws(MosquittoError) {
        let version = configuration.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check(mosquitto_int_option(raw, MOSQ_OPT_PROTOCOL_VERSION, Int32(version)))
        // The v5 callbacks also serve 3.1.1 (without properties); only they carry the CONNACK
        // properties and the PUBACK/PUBREC reason code.
        mosquitto_connect_v5_callback_set(raw) { mosq, userdata, code, _, properties in
            withoutCancellation {
                ClientCore.from(userdata).didConnect(code: code, handle: mosq, properties: properties)
            }
        }
        mosquitto_disconnect_callback_set(raw) { mosq, userdata, code in
            withoutCancellation { ClientCore.from(userdata).didDisconnect(code: code, handle: mosq) }
        }
        mosquitto_publish_v5_callback_set(raw) { _, userdata, mid, reasonCode, properties in
            withoutCancellation {
                ClientCore.from(userdata).didComplete(mid: mid, reasonCode: Int(reasonCode), properties: properties)
            }
        }
        mosquitto_message_callback_set(raw) { _, userdata, message in
            guard let message else { return }
            withoutCancellation { ClientCore.from(userdata).didReceive(message.pointee) }
        }
        mosquitto_log_callback_set(raw) { _, userdata, level, text in
            guard level & MOSQ_LOG_ERR != 0, let text else { return }
            withoutCancellation { ClientCore.from(userdata).didLogError(String(cString: text)) }
        }
        if let username = configuration.username {
            try check(mosquitto_username_pw_set(raw, username, configuration.password))
        }
        if let tls = configuration.tls {
            // No CA file: the system's. OpenSSL finds a CA in the hashed directory only by its
            // `<hash>.0` name, so the bundle is passed too when there is one (the container image
            // ships nothing else; libmosquitto refuses a CA file it cannot open).
            var caFile = tls.caFile
            var caPath: String?
            if caFile == nil {
                caPath = tls.systemCAs.hashedDirectory
                if access(tls.systemCAs.bundle, R_OK) == 0 { caFile = tls.systemCAs.bundle }
            }
            try check(mosquitto_tls_set(raw, caFile, caPath, tls.certFile, tls.keyFile, nil))
            // Verify the peer always (SSL_VERIFY_PEER); `insecure` only drops the host-name match.
            try check(mosquitto_tls_opts_set(raw, 1, nil, nil))
            if tls.insecure { try check(mosquitto_tls_insecure_set(raw, true)) }
        }
        if let will = configuration.will {
            let result = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(raw, will.topic, Int32(bytes.count), bytes.baseAddress, Int32(will.qos), will.retain)
            }
            try check(result)
        }
        try check(
            mosquitto_reconnect_delay_set(
                raw, UInt32(configuration.reconnectDelayMin), UInt32(configuration.reconnectDelayMax), true))
    }
}

/// The libmosquitto handle with the retained box its callbacks read.
///
/// `@unchecked Sendable`: the pointer is only used under `MQTTClient.lifecycle`'s lock (or by
/// the single shutdown path after the lock moved the state to `.stopping`), and libmosquitto's
/// publish/subscribe/disconnect calls are thread-safe while its own thread runs the loop.
private struct MosquittoHandle: @unchecked Sendable {
    let raw: OpaquePointer
    let userdata: Unmanaged<ClientCore>

    /// What mosquitto's network thread was doing when the client stopped.
    enum Thread {
        case notStarted
        /// A live connection: the thread sends the DISCONNECT and ends.
        case connected
        /// Between connections (reconnect delay, a connect or handshake in progress).
        case notConnected
    }

    /// Order matters: loop_stop without force lets the thread finish the DISCONNECT; the box is
    /// released only after destroy, when no callback can run any more.
    ///
    /// Without a live connection there is nothing to finish, and waiting can hang: libmosquitto
    /// 2.0's reconnect loop clears the disconnect request when it starts an attempt, so a
    /// request that lands between its check and that attempt is lost; the attempt is then a
    /// blocking `connect()` (invisible to ``ClientCore/abortAttempt(_:port:)``: the socket is
    /// not the handle's yet) that a host dropping SYNs holds for minutes, followed by more
    /// attempts — `mosquitto_loop_stop(false)` joined forever (seen with gdb in the connect
    /// timeout test). There the thread is cancelled instead (`connect`, `select` and the reconnect
    /// sleep are cancellation points); the callbacks run with cancellation disabled
    /// (``withoutCancellation(_:)``), so it never unwinds through Swift code.
    func shutDown(_ thread: Thread) {
        switch thread {
        case .notStarted: break
        case .connected: _ = mosquitto_loop_stop(raw, false)
        case .notConnected: _ = mosquitto_loop_stop(raw, true)
        }
        mosquitto_destroy(raw)
        userdata.release()
    }
}

private enum Lifecycle {
    case created(MosquittoHandle)
    case running(MosquittoHandle)
    case stopping
    case stopped

    var usableHandle: MosquittoHandle? {
        switch self {
        case .created(let handle), .running(let handle): handle
        case .stopping, .stopped: nil
        }
    }
}

/// The state callbacks touch. Reached from C through `userdata`; lives as long as the handle.
///
/// Locks: `publishGate` is held across `mosquitto_publish` and the recording of its message id,
/// and taken by the acknowledgement and disconnect callbacks, so an acknowledgement can never
/// arrive for an id not yet recorded. libmosquitto calls those callbacks holding only its
/// callback mutex (which `mosquitto_publish` never takes), so this cannot deadlock. The log
/// callback, which runs under libmosquitto's log mutex (taken inside `mosquitto_publish`),
/// touches `state` only, never the gate. Order: gate, then state.
final class ClientCore: Sendable {
    enum Condition: Sendable { case connected, settled }

    struct Waiter: Sendable {
        let condition: Condition
        let continuation: CheckedContinuation<Bool, Never>
    }

    /// What the core asks of its client (set right after init; weak towards the client).
    struct Requests: Sendable {
        /// Start libmosquitto's thread again (it ended after a fatal error).
        let restart: @Sendable () -> Void
        /// Watch connect attempts (the connection ended).
        let watch: @Sendable () -> Void
    }

    struct State: Sendable {
        var connected = false
        var finished = false
        var subscriptions: [String: Int32] = [:]
        var acknowledgements = AcknowledgementTracker()
        var waiters: [Int: Waiter] = [:]
        var nextWaiterID = 0
        var lastError: MosquittoError?
        /// Set by a refused CONNACK so the disconnect that follows does not report a vaguer reason.
        var refusal: MosquittoError?
        /// libmosquitto logs OpenSSL's explanation before reporting a bare "A TLS error occurred".
        var lastLoggedError: String?
        var protocolVersion: MQTTProtocolVersion
        /// The one fallback from MQTT 5 to 3.1.1 is still available.
        var fallbackAvailable: Bool
        /// A CONNACK (accepting or refusing) arrived at least once: the broker speaks our protocol.
        var connackSeen = false
        var brokerMaximumPacketSize: Int?
        /// The connect attempt the watchdog is timing.
        var watchdog: ConnectWatchdog
        /// The watchdog aborted the current attempt: the failure that follows is a timeout.
        var attemptAborted = false
        var watchdogRunning = false
        /// The attempt was started by `mosquitto_connect_async` (non-blocking TCP connect, the
        /// thread waits in select); libmosquitto's own reconnects connect blocking instead.
        var asyncAttempt = true
        /// Peer ends of the socket pairs put in place of aborted TLS sockets (see `abort`).
        var decoys: [Int32] = []

        func holds(_ condition: Condition) -> Bool {
            switch condition {
            case .connected: connected
            case .settled: acknowledgements.settled
            }
        }

        /// Removes and returns the waiters whose condition now holds.
        mutating func takeSatisfiedWaiters() -> [Waiter] {
            let ready = waiters.filter { holds($0.value.condition) }
            for id in ready.keys { waiters[id] = nil }
            return Array(ready.values)
        }
    }

    let events: AsyncStream<MQTTEvent>
    private let continuation: AsyncStream<MQTTEvent>.Continuation
    let state: Mutex<State>
    let publishGate = Mutex(())
    let requests = Mutex<Requests?>(nil)
    let connectTimeout: Duration
    let tls: Bool
    /// Times out the waits (``wait(for:timeout:)``).
    let timers: any MQTTTimers

    /// Subscription options: with MQTT 5, "retain as published", so a message that a client
    /// published retained while we were subscribed still arrives with `retain` set (3.1.1 clears
    /// the flag on live delivery, and its SUBSCRIBE has no options byte to ask otherwise).
    static func subscribeOptions(_ version: MQTTProtocolVersion) -> Int32 {
        version == .v5 ? Int32(MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue) : 0
    }

    var subscribeOptions: Int32 { Self.subscribeOptions(state.withLock { $0.protocolVersion }) }

    /// ``MQTTConfiguration/maxIncomingPayload``.
    let maxIncomingPayload: Int

    init(
        protocolVersion: MQTTProtocolVersion, protocolFallback: Bool, connectTimeout: Duration, tls: Bool,
        maxIncomingPayload: Int = .max, timers: any MQTTTimers = DispatchTimers()
    ) {
        self.timers = timers
        state = Mutex(
            State(
                protocolVersion: protocolVersion, fallbackAvailable: protocolFallback,
                watchdog: ConnectWatchdog(timeout: connectTimeout)))
        self.maxIncomingPayload = maxIncomingPayload
        self.connectTimeout = connectTimeout
        self.tls = tls
        (events, continuation) = AsyncStream.makeStream()
    }

    static func from(_ userdata: UnsafeMutableRawPointer?) -> ClientCore {
        // userdata is always the box passed to mosquitto_new, retained until after mosquitto_destroy.
        Unmanaged<ClientCore>.fromOpaque(userdata!).takeUnretainedValue()
    }

    private func request(_ pick: (Requests) -> @Sendable () -> Void) {
        if let requests = requests.withLock({ $0 }) { pick(requests)() }
    }

    // MARK: callbacks (mosquitto's thread)

    func didConnect(code: Int32, handle: OpaquePointer?, properties: OpaquePointer?) {
        guard code == 0 else {
            let (error, fallback): (MosquittoError, Bool) = state.withLock { state in
                state.connackSeen = true
                state.watchdog.forget()
                let error = MosquittoError(connackCode: code, protocolVersion: state.protocolVersion)
                state.lastError = error
                state.refusal = error
                guard code == Int32(MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION.rawValue), state.protocolVersion == .v5,
                    state.fallbackAvailable
                else { return (error, false) }
                state.fallbackAvailable = false
                state.protocolVersion = .v311
                return (error, true)
            }
            guard fallback else {
                continuation.yield(.disconnected(reason: error.message))
                return
            }
            // libmosquitto ends its thread after a refused MQTT 5 CONNACK: set the protocol for
            // the next CONNECT here, on its thread, and have the client start the thread again.
            if let handle { _ = mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311)) }
            continuation.yield(
                .disconnected(
                    reason: "the broker refused MQTT 5 (CONNACK \(error.message)); falling back to MQTT 3.1.1"))
            request(\.restart)
            return
        }
        var limit: UInt32 = 0
        let hasLimit =
            mosquitto_property_read_int32(properties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), &limit, false)
            != nil
        let (subscriptions, options, ready) = state.withLock { state in
            state.connected = true
            state.connackSeen = true
            // The broker speaks this protocol: no fallback later (a close before CONNACK then
            // means something else, such as a full broker).
            state.fallbackAvailable = false
            state.brokerMaximumPacketSize = hasLimit ? Int(limit) : nil
            state.lastError = nil
            state.refusal = nil
            state.lastLoggedError = nil
            state.watchdog.forget()
            state.attemptAborted = false
            return (state.subscriptions, Self.subscribeOptions(state.protocolVersion), state.takeSatisfiedWaiters())
        }
        // Runs inside libmosquitto's callback, on its thread: the handle is alive and connected.
        // Going through MQTTClient would need its lock, which a stop() in progress may hold.
        if let raw = handle {
            for (pattern, qos) in subscriptions.sorted(by: { $0.key < $1.key }) {
                _ = mosquitto_subscribe_v5(raw, nil, pattern, qos, options, nil)
            }
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
        continuation.yield(.connected)
    }

    func didDisconnect(code: Int32, handle: OpaquePointer?) {
        let (reason, ready, watch): (String?, [Waiter], Bool) = publishGate.withLock { _ in
            state.withLock { state in
                let wasConnected = state.connected
                state.connected = false
                // Acknowledgements belong to the connection that ended: whatever was still
                // waiting is lost, even if libmosquitto sends it again after reconnecting.
                state.acknowledgements.connectionLost()
                let ready = state.takeSatisfiedWaiters()
                state.watchdog.forget()
                let aborted = state.attemptAborted
                state.attemptAborted = false
                let watch = !state.finished
                if state.refusal != nil {
                    state.refusal = nil
                    return (nil, ready, watch)  // already reported by didConnect
                }
                guard code != 0 else {
                    state.lastLoggedError = nil
                    return (wasConnected ? "disconnected by the client" : nil, ready, watch)
                }
                // libmosquitto's own reconnects (after this) connect blocking.
                state.asyncAttempt = false
                if aborted {
                    state.lastLoggedError = nil
                    return (nil, ready, watch)  // already reported by the watchdog
                }
                var error = MosquittoError(code: code)
                if let logged = state.lastLoggedError {
                    error = MosquittoError(kind: .library, code: code, message: "\(error.message) (\(logged))")
                    state.lastLoggedError = nil
                }
                state.lastError = error
                // Closed before any CONNACK ever came: a broker that drops an MQTT 5 CONNECT
                // (RabbitMQ 3.10). Fall back once; libmosquitto's loop reconnects by itself.
                if code == Int32(MOSQ_ERR_CONN_LOST.rawValue), !state.connackSeen, state.protocolVersion == .v5,
                    state.fallbackAvailable, let handle
                {
                    state.fallbackAvailable = false
                    state.protocolVersion = .v311
                    _ = mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311))
                    return (
                        "the broker closed the connection without answering an MQTT 5 CONNECT; falling back to MQTT 3.1.1",
                        ready, watch
                    )
                }
                return (error.message, ready, watch)
            }
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
        if let reason { continuation.yield(.disconnected(reason: reason)) }
        if watch { request(\.watch) }
    }

    func didComplete(mid: Int32, reasonCode: Int, properties: OpaquePointer?) {
        var reasonString: String?
        if reasonCode >= 0x80 {
            var text: UnsafeMutablePointer<CChar>?
            if mosquitto_property_read_string(properties, Int32(MQTT_PROP_REASON_STRING.rawValue), &text, false) != nil,
                let text
            {
                reasonString = String(cString: text)
                free(text)
            }
        }
        let ready = publishGate.withLock { _ in
            state.withLock { state in
                state.acknowledgements.completed(mid: mid, reasonCode: reasonCode, reasonString: reasonString)
                return state.takeSatisfiedWaiters()
            }
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    func didReceive(_ message: mosquitto_message) {
        let topic = message.topic.map { String(cString: $0) } ?? ""
        let length = Int(message.payloadlen)
        var payload: [UInt8] = []
        var dropped: Int?
        if length > maxIncomingPayload {
            dropped = length
        } else if let bytes = message.payload, length > 0 {
            payload = Array(UnsafeRawBufferPointer(start: bytes, count: length))
        }
        continuation.yield(
            .message(
                MQTTMessage(
                    topic: topic, payload: payload, qos: Int(message.qos), retain: message.retain,
                    droppedPayloadBytes: dropped)))
    }

    /// libmosquitto ends its thread on a failed TLS handshake without calling on_disconnect; the
    /// OpenSSL text it logs is then the only account of why, so it becomes the error and event.
    /// When the watchdog aborted that handshake, it is a timeout, and the thread is started again.
    func didLogError(_ text: String) {
        let (failure, restart): (MosquittoError?, Bool) = state.withLock { state in
            state.lastLoggedError = text
            guard !state.connected, text.hasPrefix("OpenSSL Error") else { return (nil, false) }
            if state.attemptAborted {
                // The watchdog ended this handshake (and reported it); the thread has ended.
                state.attemptAborted = false
                state.watchdog.forget()
                state.lastLoggedError = nil
                return (nil, true)
            }
            let tls = MosquittoError(code: Int32(MOSQ_ERR_TLS.rawValue))
            let error = MosquittoError(kind: .library, code: tls.code, message: "\(tls.message) (\(text))")
            state.lastError = error
            return (error, false)
        }
        if let failure { continuation.yield(.disconnected(reason: failure.message)) }
        if restart { request(\.restart) }
    }

    // MARK: Swift side

    /// Checks the size, publishes and records the message id, all under the gate.
    func publish(
        _ raw: OpaquePointer, topic: String, payload: [UInt8], qos: Int, retain: Bool, configuredLimit: Int?
    ) throws(MosquittoError) {
        try publishGate.withLock { _ throws(MosquittoError) in
            let (version, brokerLimit) = state.withLock { ($0.protocolVersion, $0.brokerMaximumPacketSize) }
            let size = Self.packetSize(
                topicBytes: topic.utf8.count, payloadBytes: payload.count, qos: qos, version: version)
            if let reason = Self.sizeRefusal(size: size, brokerLimit: brokerLimit, configuredLimit: configuredLimit) {
                try refuseLocally(topic: topic, reason: reason)
            }
            var mid: Int32 = 0
            let result = payload.withUnsafeBytes { bytes in
                mosquitto_publish(raw, &mid, topic, Int32(bytes.count), bytes.baseAddress, Int32(qos), retain)
            }
            if result == Int32(MOSQ_ERR_OVERSIZE_PACKET.rawValue) {
                try refuseLocally(topic: topic, reason: "\(MosquittoError(code: result).message) (\(size) bytes)")
            }
            try check(result)
            if qos > 0 { state.withLock { $0.acknowledgements.published(mid: mid, topic: topic) } }
        }
    }

    private func refuseLocally(topic: String, reason: String) throws(MosquittoError) {
        let refusal = PublishRefusal(code: PublishRefusal.packetTooLargeCode, reason: reason, local: true)
        state.withLock { $0.acknowledgements.refusedLocally(topic: topic, refusal: refusal) }
        throw MosquittoError(kind: .publishRefused, code: Int32(refusal.code), message: "\(topic): \(reason)")
    }

    /// The size of a PUBLISH packet on the wire: fixed header, remaining-length varint, topic,
    /// packet id (QoS 1/2), MQTT 5 property length (no properties), payload.
    static func packetSize(topicBytes: Int, payloadBytes: Int, qos: Int, version: MQTTProtocolVersion) -> Int {
        let remaining = 2 + topicBytes + (qos > 0 ? 2 : 0) + (version == .v5 ? 1 : 0) + payloadBytes
        let varint = remaining < 128 ? 1 : remaining < 16_384 ? 2 : remaining < 2_097_152 ? 3 : 4
        return 1 + varint + remaining
    }

    static func sizeRefusal(size: Int, brokerLimit: Int?, configuredLimit: Int?) -> String? {
        if let brokerLimit, size > brokerLimit {
            return
                "the packet (\(size) bytes) is over the broker's maximum packet size (\(brokerLimit) bytes, from its CONNACK)"
        }
        if let configuredLimit, size > configuredLimit {
            return "the packet (\(size) bytes) is over the configured maximum packet size (\(configuredLimit) bytes)"
        }
        return nil
    }

    func wait(for condition: Condition, timeout: Duration) async -> Bool {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let immediate: Bool? = state.withLock { state in
                    if state.holds(condition) { return true }
                    if state.finished { return false }
                    state.waiters[id] = Waiter(condition: condition, continuation: continuation)
                    return nil
                }
                if let immediate {
                    continuation.resume(returning: immediate)
                    return
                }
                timers.schedule(after: timeout) { [self] in expire(id) }
            }
        } onCancel: {
            expire(id)
        }
    }

    private func expire(_ id: Int) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.continuation.resume(returning: false)
    }

    // MARK: connect timeout

    /// True when the watchdog was not running and now is.
    func claimWatchdog() -> Bool {
        state.withLock { state in
            if state.watchdogRunning || state.connected || state.finished { return false }
            state.watchdogRunning = true
            return true
        }
    }

    /// One watchdog tick at `now` (under the client's lifecycle lock, so the handle is alive):
    /// ``ConnectWatchdog`` decides, the abort happens after the state's lock. Returns whether
    /// to keep ticking.
    func watch(_ raw: OpaquePointer, port: Int, now: ContinuousClock.Instant) -> Bool {
        let socket = mosquitto_socket(raw)
        let (again, abort): (Bool, (async: Bool, error: MosquittoError)?) = state.withLock { state in
            if state.connected || state.finished {
                state.watchdogRunning = false
                state.watchdog.forget()
                return (false, nil)
            }
            switch state.watchdog.tick(socket: socket, now: now) {
            case .idle, .waiting: return (true, nil)
            case .started:
                state.attemptAborted = false
                return (true, nil)
            case .abort: break
            }
            state.attemptAborted = true
            let error = MosquittoError(
                kind: .library, code: Int32(MOSQ_ERR_KEEPALIVE.rawValue),
                message: "no CONNACK within the connect timeout (\(connectTimeout.components.seconds) s)")
            state.lastError = error
            return (true, (state.asyncAttempt, error))
        }
        if let abort {
            continuation.yield(.disconnected(reason: abort.error.message))
            self.abort(socket, port: port, async: abort.async)
        }
        return again
    }

    /// Ends a connect attempt in progress (used by stop()).
    func abortAttempt(_ raw: OpaquePointer, port: Int) {
        let socket = mosquitto_socket(raw)
        let (connected, async) = state.withLock { ($0.connected, $0.asyncAttempt) }
        if !connected, socket >= 0 { abort(socket, port: port, async: async) }
    }

    /// Ends the connect attempt on libmosquitto's socket, if it still is a TCP socket
    /// mid-handshake (SYN sent, or established to `port` while waiting for TLS or CONNACK).
    ///
    /// Plain TCP, or a blocking connect: `shutdown` — the read (or the connect) fails, and
    /// libmosquitto reports a lost connection and reconnects. TLS would instead often see
    /// `SSL_ERROR_SYSCALL`, which libmosquitto 2.0 retries in a busy loop until its keepalive:
    /// there the socket is replaced (`dup2`) by one end of a socket pair whose other end answers
    /// with bytes that are not TLS, so the handshake fails at once and the thread ends (it is
    /// started again). The state checks guard against the descriptor having
    /// been closed and reused meanwhile; the thread waits in select, not in a call on it.
    private func abort(_ socket: Int32, port: Int, async: Bool) {
        var info = tcp_info()
        var length = socklen_t(MemoryLayout<tcp_info>.size)
        guard getsockopt(socket, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0 else { return }
        let synSent: UInt8 = 2
        let established: UInt8 = 1
        if info.tcpi_state == established {
            var address = sockaddr_storage()
            var addressLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let peerPort: Int? = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(socket, $0, &addressLength) }
                    == 0
                    ? pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                        Int(UInt16(bigEndian: $0.pointee.sin_port))
                    } : nil
            }
            guard peerPort == port else { return }
        } else if info.tcpi_state != synSent {
            return
        }
        // TLS with the thread waiting in select (not inside a blocking connect): the decoy.
        if tls, info.tcpi_state == established || async {
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                _ = shutdown(socket, Int32(SHUT_RDWR))
                return
            }
            let garbage = Array("not TLS: connect timeout\r\n".utf8)
            _ = garbage.withUnsafeBytes { send(pair[1], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // select() holds its own reference to the socket it waits on: keep one too, swap the
            // descriptor, then shut the old socket down so that select wakes and looks again.
            let original = dup(socket)
            _ = dup2(pair[0], socket)
            close(pair[0])
            if original >= 0 {
                _ = shutdown(original, Int32(SHUT_RDWR))
                close(original)
            }
            state.withLock { $0.decoys.append(pair[1]) }
            return
        }
        _ = shutdown(socket, Int32(SHUT_RDWR))
    }

    /// Closes the decoy peers once the thread that read them is gone.
    func closeDecoys() {
        for fd in state.withLock({ state in
            defer { state.decoys = [] }; return state.decoys
        }) { close(fd) }
    }

    /// Ends the event stream and releases every waiter (with `false`).
    func finish() {
        closeDecoys()
        let waiters = state.withLock { state in
            state.finished = true
            state.connected = false
            let waiters = Array(state.waiters.values)
            state.waiters = [:]
            return waiters
        }
        for waiter in waiters { waiter.continuation.resume(returning: false) }
        continuation.finish()
    }
}

/// Runs a libmosquitto callback with thread cancellation disabled: a client stopped between
/// connections cancels mosquitto's thread (``MosquittoHandle/shutDown(_:)``), and a cancellation
/// acted on inside Swift code (at a `write` of the log, say) would unwind through it.
private func withoutCancellation(_ body: () -> Void) {
    var previous: Int32 = 0
    pthread_setcancelstate(Int32(PTHREAD_CANCEL_DISABLE), &previous)
    body()
    pthread_setcancelstate(previous, nil)
}
