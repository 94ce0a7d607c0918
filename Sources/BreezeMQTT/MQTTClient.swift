import CMosquitto
import Dispatch
import Synchronization

/// What the client reports, in order, on ``MQTTClient/events``.
public enum MQTTEvent: Sendable, Equatable {
    /// The broker accepted the connection (first connect and every reconnect). Subscriptions
    /// have been re-sent; retained state a consumer publishes should be re-sent now.
    case connected
    /// The connection ended or was refused; `reason` is libmosquitto's text (for a refusal the
    /// CONNACK/reason-code text, for TLS failures with OpenSSL's message appended).
    case disconnected(reason: String)
    /// A message on a subscribed topic.
    case message(MQTTMessage)
}

/// `mosquitto_lib_init` exactly once per process, on first use (a global `let` is initialised
/// lazily and thread-safely by the runtime).
private let mosquittoLibrary: Void = { _ = mosquitto_lib_init() }()

/// An MQTT client over libmosquitto, running on libmosquitto's own network thread
/// (`mosquitto_loop_start`), which also reconnects by itself with capped backoff.
///
/// Lifecycle: `init` (configure, will) → ``start()`` → publish/subscribe → ``stop()``.
/// libmosquitto's callbacks only update a `Mutex`-protected state and yield into an
/// `AsyncStream`; nothing in them blocks or waits on Swift code.
public final class MQTTClient: Sendable {
    public let configuration: MQTTConfiguration
    private let core: ClientCore
    private let lifecycle: Mutex<Lifecycle>

    /// Creates and configures the libmosquitto handle; does not connect.
    public init(_ configuration: MQTTConfiguration) throws(MosquittoError) {
        try configuration.validate()
        _ = mosquittoLibrary
        self.configuration = configuration
        let core = ClientCore(protocolVersion: configuration.protocolVersion)
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
    }

    deinit {
        // Normally `stop()` has run. If not, shut down here, synchronously: the handle's thread
        // must not outlive the box it reads from.
        let leftover: (MosquittoHandle, Bool)? = lifecycle.withLock { state in
            switch state {
            case .created(let handle):
                return (handle, false)
            case .running(let handle):
                // Without this the network thread keeps running and loop_stop never returns.
                _ = mosquitto_disconnect(handle.raw)
                return (handle, true)
            case .stopping, .stopped:
                return nil
            }
        }
        if let (handle, started) = leftover {
            handle.shutDown(loopStarted: started)
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
            if let deferredError {
                core.state.withLock { $0.lastError = deferredError }
                scheduleInitialConnect(after: configuration.reconnectDelayMin)
            }
        }
    }

    /// libmosquitto's thread only starts its reconnect loop after a first connect got as far as
    /// a socket; until then it idles. So a failed first attempt is retried here, with the same
    /// capped doubling backoff, on a Dispatch thread (it resolves and connects, which may block).
    private func scheduleInitialConnect(after seconds: Int) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds)) { [weak self] in
            guard let self else { return }
            let failure: MosquittoError? = lifecycle.withLock { state in
                guard case .running(let handle) = state else { return nil }
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
            var mid: Int32 = 0
            let result = payload.withUnsafeBytes { bytes in
                mosquitto_publish(handle.raw, &mid, topic, Int32(bytes.count), bytes.baseAddress, Int32(qos), retain)
            }
            try check(result)
            core.published(mid: mid, qos: qos)
        }
    }

    /// Publishes a UTF-8 string payload.
    public func publish(_ topic: String, _ payload: String, qos: Int = 0, retain: Bool = false) throws(MosquittoError) {
        try publish(topic, Array(payload.utf8), qos: qos, retain: retain)
    }

    /// Waits until every QoS 1/2 message published so far has been acknowledged by the broker
    /// (PUBACK / PUBCOMP); false after `timeout` or once stopped.
    public func waitForAcknowledgements(timeout: Duration) async -> Bool {
        await core.wait(for: .acknowledged, timeout: timeout)
    }

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

    /// Disconnects cleanly (the broker discards the will), stops mosquitto's thread, frees the
    /// handle and ends ``events``. Idempotent.
    public func stop() async {
        let toShutDown: (MosquittoHandle, Bool)? = lifecycle.withLock { state in
            switch state {
            case .created(let handle):
                state = .stopping
                return (handle, false)
            case .running(let handle):
                state = .stopping
                // Queues DISCONNECT and marks the handle as disconnecting, so the network thread
                // neither reconnects nor outlives the following loop_stop.
                _ = mosquitto_disconnect(handle.raw)
                return (handle, true)
            case .stopping, .stopped:
                return nil
            }
        }
        guard let (handle, started) = toShutDown else { return }
        // Joining mosquitto's thread (`mosquitto_loop_stop`) blocks: keep it off the cooperative
        // pool (two threads on the target machines), on a queue of its own per client.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue(label: "breeze.mqtt.shutdown").async {
                handle.shutDown(loopStarted: started)
                continuation.resume()
            }
        }
        lifecycle.withLock { $0 = .stopped }
        core.finish()
    }

    /// The connection's socket, for tests that cut it to simulate a dead client.
    var socketDescriptorForTesting: Int32 {
        lifecycle.withLock { state in state.usableHandle.map { mosquitto_socket($0.raw) } ?? -1 }
    }

    private static func isRetriedByLoop(_ result: Int32) -> Bool {
        result == Int32(MOSQ_ERR_ERRNO.rawValue) || result == Int32(MOSQ_ERR_EAI.rawValue)
            || result == Int32(MOSQ_ERR_CONN_REFUSED.rawValue) || result == Int32(MOSQ_ERR_CONN_LOST.rawValue)
    }

    /// Everything that must be set before connecting: protocol, callbacks, credentials, TLS, will, backoff.
    private static func configure(_ raw: OpaquePointer, with configuration: MQTTConfiguration) throws(MosquittoError) {
        let version = configuration.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check(mosquitto_int_option(raw, MOSQ_OPT_PROTOCOL_VERSION, Int32(version)))
        mosquitto_connect_callback_set(raw) { mosq, userdata, code in
            ClientCore.from(userdata).didConnect(code: code, handle: mosq)
        }
        mosquitto_disconnect_callback_set(raw) { _, userdata, code in
            ClientCore.from(userdata).didDisconnect(code: code)
        }
        mosquitto_publish_callback_set(raw) { _, userdata, mid in ClientCore.from(userdata).didComplete(mid: mid) }
        mosquitto_message_callback_set(raw) { _, userdata, message in
            guard let message else { return }
            ClientCore.from(userdata).didReceive(message.pointee)
        }
        mosquitto_log_callback_set(raw) { _, userdata, level, text in
            guard level & MOSQ_LOG_ERR != 0, let text else { return }
            ClientCore.from(userdata).didLogError(String(cString: text))
        }
        if let username = configuration.username {
            try check(mosquitto_username_pw_set(raw, username, configuration.password))
        }
        if let tls = configuration.tls {
            let caPath = tls.caFile == nil ? MQTTTLSOptions.systemCAPath : nil
            try check(mosquitto_tls_set(raw, tls.caFile, caPath, tls.certFile, tls.keyFile, nil))
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

    /// Order matters: loop_stop without force lets the thread finish the DISCONNECT; the box is
    /// released only after destroy, when no callback can run any more.
    func shutDown(loopStarted: Bool) {
        if loopStarted { _ = mosquitto_loop_stop(raw, false) }
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
final class ClientCore: Sendable {
    enum Condition: Sendable { case connected, acknowledged }

    struct Waiter: Sendable {
        let condition: Condition
        let continuation: CheckedContinuation<Bool, Never>
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

        func holds(_ condition: Condition) -> Bool {
            switch condition {
            case .connected: connected
            case .acknowledged: acknowledgements.allAcknowledged
            }
        }

        /// Removes and returns the waiters whose condition now holds.
        mutating func takeSatisfiedWaiters() -> [Waiter] {
            let ready = waiters.filter { holds($0.value.condition) }
            for id in ready.keys { waiters[id] = nil }
            return Array(ready.values)
        }
    }

    let protocolVersion: MQTTProtocolVersion
    let events: AsyncStream<MQTTEvent>
    private let continuation: AsyncStream<MQTTEvent>.Continuation
    let state = Mutex(State())

    /// Subscription options: with MQTT 5, "retain as published", so a message that a client
    /// published retained while we were subscribed still arrives with `retain` set (3.1.1 clears
    /// the flag on live delivery, and its SUBSCRIBE has no options byte to ask otherwise).
    var subscribeOptions: Int32 {
        protocolVersion == .v5 ? Int32(MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue) : 0
    }

    init(protocolVersion: MQTTProtocolVersion) {
        self.protocolVersion = protocolVersion
        (events, continuation) = AsyncStream.makeStream()
    }

    static func from(_ userdata: UnsafeMutableRawPointer?) -> ClientCore {
        // userdata is always the box passed to mosquitto_new, retained until after mosquitto_destroy.
        Unmanaged<ClientCore>.fromOpaque(userdata!).takeUnretainedValue()
    }

    // MARK: callbacks (mosquitto's thread)

    func didConnect(code: Int32, handle: OpaquePointer?) {
        guard code == 0 else {
            let error = MosquittoError(connackCode: code, protocolVersion: protocolVersion)
            state.withLock {
                $0.lastError = error
                $0.refusal = error
            }
            continuation.yield(.disconnected(reason: error.message))
            return
        }
        let (subscriptions, ready) = state.withLock { state in
            state.connected = true
            state.lastError = nil
            state.refusal = nil
            state.lastLoggedError = nil
            return (state.subscriptions, state.takeSatisfiedWaiters())
        }
        // Runs inside libmosquitto's callback, on its thread: the handle is alive and connected.
        // Going through MQTTClient would need its lock, which a stop() in progress may hold.
        if let raw = handle {
            for (pattern, qos) in subscriptions.sorted(by: { $0.key < $1.key }) {
                _ = mosquitto_subscribe_v5(raw, nil, pattern, qos, subscribeOptions, nil)
            }
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
        continuation.yield(.connected)
    }

    func didDisconnect(code: Int32) {
        let reason: String? = state.withLock { state in
            let wasConnected = state.connected
            state.connected = false
            if state.refusal != nil {
                state.refusal = nil
                return nil  // already reported by didConnect
            }
            guard code != 0 else {
                state.lastLoggedError = nil
                return wasConnected ? "disconnected by the client" : nil
            }
            var error = MosquittoError(code: code)
            if let logged = state.lastLoggedError {
                error = MosquittoError(kind: .library, code: code, message: "\(error.message) (\(logged))")
                state.lastLoggedError = nil
            }
            state.lastError = error
            return error.message
        }
        if let reason { continuation.yield(.disconnected(reason: reason)) }
    }

    func didComplete(mid: Int32) {
        let ready = state.withLock { state in
            state.acknowledgements.completed(mid: mid)
            return state.takeSatisfiedWaiters()
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    func didReceive(_ message: mosquitto_message) {
        let topic = message.topic.map { String(cString: $0) } ?? ""
        var payload: [UInt8] = []
        if let bytes = message.payload, message.payloadlen > 0 {
            payload = Array(UnsafeRawBufferPointer(start: bytes, count: Int(message.payloadlen)))
        }
        continuation.yield(
            .message(MQTTMessage(topic: topic, payload: payload, qos: Int(message.qos), retain: message.retain)))
    }

    /// libmosquitto ends its thread on a failed TLS handshake without calling on_disconnect; the
    /// OpenSSL text it logs is then the only account of why, so it becomes the error and event.
    func didLogError(_ text: String) {
        let failure: MosquittoError? = state.withLock { state in
            state.lastLoggedError = text
            guard !state.connected, text.hasPrefix("OpenSSL Error") else { return nil }
            let tls = MosquittoError(code: Int32(MOSQ_ERR_TLS.rawValue))
            let error = MosquittoError(kind: .library, code: tls.code, message: "\(tls.message) (\(text))")
            state.lastError = error
            return error
        }
        if let failure { continuation.yield(.disconnected(reason: failure.message)) }
    }

    // MARK: Swift side

    func published(mid: Int32, qos: Int) {
        let ready = state.withLock { state in
            state.acknowledgements.published(mid: mid, qos: qos)
            return state.takeSatisfiedWaiters()
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
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
                Task { [self] in
                    try? await Task.sleep(for: timeout)
                    expire(id)
                }
            }
        } onCancel: {
            expire(id)
        }
    }

    private func expire(_ id: Int) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.continuation.resume(returning: false)
    }

    /// Ends the event stream and releases every waiter (with `false`).
    func finish() {
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
