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

import BreezeCore
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("IP addresses and CIDR networks (the HTTP allow list, SPEC §9.2)")
struct CIDRTests {
    /// glibc's own parser as the oracle: the bytes `inet_pton` makes of `text`, nil when it refuses.
    static func pton(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// glibc's text for the bytes (RFC 5952 for IPv6).
    static func ntop(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test(
        "parses like inet_pton and prints like inet_ntop",
        arguments: [
            "127.0.0.1", "0.0.0.0", "255.255.255.255", "192.168.1.20", "::", "::1", "fe80::1",
            "2001:db8::8:800:200c:417a",
            "2001:DB8:0:0:1:0:0:1", "2001:db8::1:0:0:1", "::ffff:10.0.0.1", "1:2:3:4:5:6:7:8", "1::", "::2:3:4:5:6:7:8",
            "1:0:0:2::3", "64:ff9b::192.0.2.33", "::10.1.2.3", "::ffff:0:1", "0:0:0:0:0:1:0:0",
        ])
    func agreesWithGlibc(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(address.bytes == Self.pton(text))
        #expect(address.description == Self.ntop(address.bytes))
    }

    @Test(
        "refuses what is not an address literal",
        arguments: [
            "", "localhost", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.-4", " 1.2.3.4", "1.2.3.4 ", ":::",
            "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "g::1", "::1%eth0", "1:2:3:4:5:6:7::8:9", "::ffff:1.2.3",
            "[::1]", "1.2.3.4/8",
        ])
    func refusesGarbage(_ text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test func leadingZerosAreRefusedWhereGlibcAgreesTheyAreAmbiguous() {
        // "010.0.0.1" is 8.0.0.1 to inet_aton and 10.0.0.1 to a human; refusing it is the safe read.
        #expect(IPAddress("010.0.0.1") == nil)
        #expect(IPAddress("10.0.0.1")?.bytes == [10, 0, 0, 1])
    }

    @Test func ipv4Networks() throws {
        let lan = try CIDR(parsing: "192.168.1.0/24")
        #expect(lan.contains(IPAddress("192.168.1.0")!))
        #expect(lan.contains(IPAddress("192.168.1.255")!))
        #expect(!lan.contains(IPAddress("192.168.2.1")!))
        #expect(!lan.contains(IPAddress("192.168.0.255")!))
        let ten = try CIDR(parsing: "10.0.0.0/8")
        #expect(ten.contains(IPAddress("10.255.3.4")!))
        #expect(!ten.contains(IPAddress("11.0.0.1")!))
        // A prefix that does not end on a byte boundary.
        let odd = try CIDR(parsing: "172.16.0.0/12")
        #expect(odd.contains(IPAddress("172.31.255.255")!))
        #expect(!odd.contains(IPAddress("172.32.0.0")!))
        #expect(!odd.contains(IPAddress("172.15.255.255")!))
        // /0 is everything of its family; a bare address is /32.
        #expect(try CIDR(parsing: "0.0.0.0/0").contains(IPAddress("8.8.8.8")!))
        let single = try CIDR(parsing: "192.168.1.7")
        #expect(single.description == "192.168.1.7/32")
        #expect(single.contains(IPAddress("192.168.1.7")!))
        #expect(!single.contains(IPAddress("192.168.1.8")!))
    }

    @Test func ipv6Networks() throws {
        let ula = try CIDR(parsing: "fd00::/8")
        #expect(ula.contains(IPAddress("fd12:3456::1")!))
        #expect(!ula.contains(IPAddress("fe80::1")!))
        let site = try CIDR(parsing: "2001:db8:abcd:12::/63")
        #expect(site.contains(IPAddress("2001:db8:abcd:13::ffff")!))
        #expect(!site.contains(IPAddress("2001:db8:abcd:14::")!))
        #expect(try CIDR(parsing: "::/0").contains(IPAddress("2001:db8::1")!))
        #expect(try CIDR(parsing: "::1").description == "::1/128")
    }

    @Test func familiesDoNotMixExceptMappedIPv4() throws {
        let ten = try CIDR(parsing: "10.0.0.0/8")
        // A dual-stack listener sees IPv4 peers as ::ffff:a.b.c.d: matched as the IPv4 address.
        #expect(ten.contains(IPAddress("::ffff:10.1.2.3")!))
        #expect(!ten.contains(IPAddress("::10.1.2.3")!))
        #expect(!(try CIDR(parsing: "::/0")).contains(IPAddress("10.1.2.3")!))
        #expect(!(try CIDR(parsing: "0.0.0.0/0")).contains(IPAddress("::1")!))
    }

    @Test func loopback() {
        #expect(IPAddress("127.0.0.1")!.isLoopback)
        #expect(IPAddress("127.255.0.9")!.isLoopback)
        #expect(IPAddress("::1")!.isLoopback)
        #expect(IPAddress("::ffff:127.0.0.1")!.isLoopback)
        #expect(!IPAddress("0.0.0.0")!.isLoopback)
        #expect(!IPAddress("::")!.isLoopback)
        #expect(!IPAddress("192.168.1.2")!.isLoopback)
        #expect(IPAddress("::")!.isUnspecified && IPAddress("0.0.0.0")!.isUnspecified)
        #expect(CIDR.loopback.map(\.description) == ["127.0.0.0/8", "::1/128"])
    }

    @Test func errorsSayWhatIsWrong() {
        func message(_ text: String) -> String {
            do {
                _ = try CIDR(parsing: text)
                return "parsed"
            } catch {
                return error.description
            }
        }
        #expect(message("192.168.1.5/24") == "\"192.168.1.5/24\" has host bits set; the network is 192.168.1.0/24")
        #expect(message("fd00::1/8") == "\"fd00::1/8\" has host bits set; the network is fd00::/8")
        #expect(message("10.0.0.0/33") == "expected a prefix length 0–32 after the /, got \"10.0.0.0/33\"")
        #expect(message("::/129") == "expected a prefix length 0–128 after the /, got \"::/129\"")
        #expect(message("10.0.0.0/") == "expected a prefix length 0–32 after the /, got \"10.0.0.0/\"")
        #expect(message("10.0.0.0/+8") == "expected a prefix length 0–32 after the /, got \"10.0.0.0/+8\"")
        #expect(message("10.0.0.0/8/8").hasPrefix("expected a network like 192.168.1.0/24"))
        #expect(message("lan").hasPrefix("expected a network like 192.168.1.0/24"))
    }
}
