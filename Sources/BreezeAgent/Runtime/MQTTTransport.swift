import BreezeMQTT

/// The publisher's transport over the MQTT client: retained publishes at the configured QoS.
struct MQTTTransport: RetainedTransport {
    let client: MQTTClient
    let qos: Int
    let log: Log

    func send(topic: String, payload: String, retain: Bool) -> Bool {
        do {
            try client.publish(topic, payload, qos: qos, retain: retain)
            return true
        } catch {
            log.debug("mqtt: publish \(topic) not sent: \(error)")
            return false
        }
    }
}
