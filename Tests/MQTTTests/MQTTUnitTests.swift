@testable import BreezeMQTT
import Testing

@Suite("MQTT configuration and errors (no broker)")
struct MQTTUnitTests {
    static let invalid: [(String, @Sendable (inout MQTTConfiguration) -> Void, String)] = [
        ("empty host", { $0.host = "" }, "host is empty"),
        ("port 0", { $0.port = 0 }, "port 0 is outside 1…65535"),
        ("port too big", { $0.port = 70000 }, "port 70000 is outside 1…65535"),
        ("empty client id", { $0.clientID = "" }, "client id is empty"),
        ("keepalive 3", { $0.keepalive = 3 }, "keepalive 3 s must be 0 (off) or 5…65535 s"),
        ("password alone", { $0.password = "secret" }, "a password needs a username"),
        ("delay 0", { $0.reconnectDelayMin = 0 }, "reconnect delay minimum 0 s must be at least 1 s"),
        (
            "max below min",
            {
                $0.reconnectDelayMin = 10; $0.reconnectDelayMax = 5
            },
            "reconnect delay maximum 5 s is below the minimum 10 s"
        ),
        (
            "cert without key", { $0.tls = MQTTTLSOptions(certFile: "/tmp/c.pem") },
            "TLS client certificate and key must be given together"
        ),
        (
            "will wildcard", { $0.will = MQTTMessage(topic: "a/#", string: "x") },
            "will topic \"a/#\" contains a wildcard"
        ),
        ("will qos 3", { $0.will = MQTTMessage(topic: "a", string: "x", qos: 3) }, "will QoS 3 is not 0, 1 or 2"),
    ]

    @Test("invalid configurations name the offending setting", arguments: 0..<invalid.count)
    func invalidConfiguration(index: Int) throws {
        let (_, adjust, message) = Self.invalid[index]
        var configuration = MQTTConfiguration(clientID: "unit")
        adjust(&configuration)
        let error = #expect(throws: MosquittoError.self) { try configuration.validate() }
        #expect(error?.kind == .invalidConfiguration)
        #expect(error?.message == message)
        // The client refuses it too, before libmosquitto is involved.
        #expect(throws: MosquittoError.self) { _ = try MQTTClient(configuration) }
    }

    @Test func defaultsAreValid() throws {
        let plain = MQTTConfiguration(clientID: "unit")
        try plain.validate()
        #expect(plain.port == 1883)
        #expect(plain.protocolVersion == .v5)
        #expect(MQTTConfiguration(clientID: "unit", tls: MQTTTLSOptions()).port == 8883)
        #expect(MQTTConfiguration(port: 1234, clientID: "unit", tls: MQTTTLSOptions()).port == 1234)
    }

    @Test func protocolVersionSpellings() {
        #expect(MQTTProtocolVersion("5") == .v5)
        #expect(MQTTProtocolVersion("3.1.1") == .v311)
        #expect(MQTTProtocolVersion("3.1") == nil)
        #expect(MQTTProtocolVersion.v311.description == "3.1.1")
    }

    @Test func errorsCarryLibmosquittoText() {
        let noConnection = MosquittoError(code: 4)  // MOSQ_ERR_NO_CONN
        #expect(noConnection.message == "The client is not currently connected.")
        #expect(noConnection.description == "mosquitto: The client is not currently connected. (error 4)")
        // Same number, different tables: 3.1.1 CONNACK 5 vs MQTT 5 reason code 135.
        let refused311 = MosquittoError(connackCode: 5, protocolVersion: .v311)
        #expect(refused311.message == "Connection Refused: not authorised.")
        let refused5 = MosquittoError(connackCode: 134, protocolVersion: .v5)
        #expect(refused5.message == "Bad User Name or Password")
        #expect(refused5.kind == .connectionRefused)
    }

    @Test func publishRejectsBadTopicAndQoSBeforeTheLibrary() throws {
        let client = try MQTTClient(MQTTConfiguration(clientID: "unit-publish"))
        #expect(throws: MosquittoError.invalidConfiguration("publish topic \"a/+/b\" contains a wildcard")) {
            try client.publish("a/+/b", "x")
        }
        #expect(throws: MosquittoError.invalidConfiguration("publish QoS 5 is not 0, 1 or 2")) {
            try client.publish("a", "x", qos: 5)
        }
        // An invalid filter is refused by libmosquitto's own check, with its text.
        let error = #expect(throws: MosquittoError.self) { try client.subscribe("a/#/b") }
        #expect(error?.message == "Invalid function arguments provided.")
        #expect(client.isConnected == false)
    }

    @Test func stopWithoutStartEndsEventsAndRefusesPublishing() async throws {
        let client = try MQTTClient(MQTTConfiguration(clientID: "unit-stop"))
        await client.stop()
        var iterator = client.events.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        let error = #expect(throws: MosquittoError.self) { try client.publish("a", "x") }
        #expect(error?.message == "The client is not currently connected.")
        #expect(await client.waitUntilConnected(timeout: .seconds(1)) == false)
    }

    @Test func acknowledgementTrackerMatchesEarlyAndLateReports() {
        var tracker = AcknowledgementTracker()
        #expect(tracker.allAcknowledged)
        tracker.published(mid: 1, qos: 1)
        #expect(!tracker.allAcknowledged)
        // The broker's ack arrives before mosquitto_publish returned mid 2 to us.
        tracker.completed(mid: 2)
        tracker.published(mid: 2, qos: 2)
        #expect(tracker.awaitingCount == 1)
        tracker.completed(mid: 1)
        #expect(tracker.allAcknowledged)
        // QoS 0 completions are matched, not left behind to confuse a reused mid.
        tracker.published(mid: 3, qos: 0)
        #expect(tracker.allAcknowledged)
        tracker.completed(mid: 3)
        tracker.published(mid: 3, qos: 1)
        #expect(!tracker.allAcknowledged)
        tracker.completed(mid: 3)
        #expect(tracker == AcknowledgementTracker())
    }
}
