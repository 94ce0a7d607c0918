import BreezeAgent
import BreezeCore
import BreezeTestSupport
import Foundation
import Testing

/// Odd `timezone:` values: the configuration loader is the only place a zone is checked and
/// loaded, so `check-config` and `once` accept and refuse exactly the same names.
@Suite("Time zones: check-config and run agree")
struct TimeZoneAgreementTests {
    /// Names refused although a lenient path join would find a file for most of them.
    static let refused = [
        "Europe//Berlin", "./Europe/Berlin", "Europe/./Berlin", "Europe/Berlin/", "Europe/../Europe/Berlin",
        "../zoneinfo/Europe/Berlin", "/usr/share/zoneinfo/Europe/Berlin", "Europe", "Europe/Berlin ",
        "europe/berlin", "Mars/Base", "Broken/Zone",
    ]
    static let accepted = ["Europe/Berlin", "America/New_York", "UTC"]

    private static func yaml(_ zone: String) -> String {
        "locations:\n  - {id: home, latitude: 52.5, longitude: 13.4, timezone: \"\(zone)\"}\n"
    }

    @Test(arguments: refused)
    func loaderRefuses(_ zone: String) throws {
        let sandbox = try ConfigSandbox()
        let error = try #require(sandbox.failure(Self.yaml(zone)))
        #expect(error.keyPath == "locations[0].timezone")
        #expect(error.line == 2)
        #expect(error.message.contains("got \"\(zone)\""), "\(error.message)")
        #expect(throws: ZoneInfoError.self) { try sandbox.resolver.load(zone) }
    }

    @Test(arguments: accepted)
    func loaderAcceptsAndCarriesTheRules(_ zone: String) throws {
        let sandbox = try ConfigSandbox()
        let config = try sandbox.load(Self.yaml(zone))
        #expect(config.locations[0].timezone == zone)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/\(zone)"))
        #expect(config.locations[0].zone == (try ZoneRules(tzif: [UInt8](bytes))))
    }

    @Test func refusedNameSaysWhy() throws {
        let sandbox = try ConfigSandbox()
        let doubled = try #require(sandbox.failure(Self.yaml("Europe//Berlin")))
        #expect(doubled.message.contains("none empty, . or .."), "\(doubled.message)")
        let broken = try #require(sandbox.failure(Self.yaml("Broken/Zone")))
        #expect(broken.message.contains("not a zone file"), "\(broken.message)")
        let missing = try #require(sandbox.failure(Self.yaml("Mars/Base")))
        #expect(missing.message.contains("No such file or directory"), "\(missing.message)")
    }

    @Test("the binary: check-config and once --demo give the same verdict for every name")
    func binaryAgrees() async throws {
        try await MosquittoBroker.withPlainBroker { port in
            // Against the real zoneinfo; Broken/Zone exists only in the config sandbox.
            for zone in Self.refused.filter({ $0 != "Broken/Zone" }) + Self.accepted {
                let sandbox = try AgentSandbox()
                try sandbox.writeConfig(port: port, prefix: "tz-\(shortID())", Self.yaml(zone))
                let check = try await AgentProcess.run(
                    ["check-config", "--config", sandbox.configPath], logDirectory: sandbox.directory)
                let once = try await AgentProcess.run(
                    ["once", "--demo", "--config", sandbox.configPath], logDirectory: sandbox.directory)
                let expected: Int32 = Self.accepted.contains(zone) ? 0 : 78
                #expect(check.status == expected, "check-config \(zone): \(check.stderr)")
                #expect(once.status == expected, "once \(zone): \(once.stderr)")
                if expected == 78 {
                    #expect(check.stderr.contains("locations[0].timezone"), "\(check.stderr)")
                    #expect(once.stderr.contains("locations[0].timezone"), "\(once.stderr)")
                }
            }
        }
    }
}
