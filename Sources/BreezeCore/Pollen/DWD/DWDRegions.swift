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

/// Which of the DWD's 27 forecast regions a location is in, when its configuration does not
/// say (`locations[].dwd_region`): inside Germany's outline, the region whose representative
/// point is nearest.
///
/// The points are a town in each region (the regions' ids and names are the `s31fg.json`
/// document's; the towns are this project's choice, not the DWD's). The DWD publishes the
/// regions' outlines (its map layer `dwd:Pollenfluggebiete`), and a point per region cannot follow
/// a long, thin region's edge: near a border the nearest point may be the neighbour's — checked
/// against 98 German cities whose region is known from their postcodes, 86 were right. A location
/// near a border sets `dwd_region` (docs/reference.md, "DWD").
public enum DWDRegions {
    public struct Region: Sendable, Hashable {
        /// The key `dwd_region` takes: the partregion id, or the region id for 20 and 50.
        public var key: Int
        public var name: String
        public var town: String
        public var latitude: Double
        public var longitude: Double
    }

    public static let regions: [Region] = [
        Region(
            key: 11, name: "Schleswig-Holstein und Hamburg: Inseln und Marschen", town: "Westerland", latitude: 54.91,
            longitude: 8.31),
        Region(key: 12, name: "Schleswig-Holstein und Hamburg: Geest", town: "Kiel", latitude: 54.32, longitude: 10.13),
        Region(key: 20, name: "Mecklenburg-Vorpommern", town: "Güstrow", latitude: 53.79, longitude: 12.18),
        Region(
            key: 31, name: "Niedersachsen und Bremen: Westl. Niedersachsen/Bremen", town: "Oldenburg", latitude: 53.14,
            longitude: 8.21),
        Region(
            key: 32, name: "Niedersachsen und Bremen: Östl. Niedersachsen", town: "Celle", latitude: 52.62,
            longitude: 10.08),
        Region(
            key: 41, name: "Nordrhein-Westfalen: Rhein.-Westfäl. Tiefland", town: "Gelsenkirchen", latitude: 51.51,
            longitude: 7.10),
        Region(key: 42, name: "Nordrhein-Westfalen: Ostwestfalen", town: "Bielefeld", latitude: 52.02, longitude: 8.53),
        Region(
            key: 43, name: "Nordrhein-Westfalen: Mittelgebirge NRW", town: "Siegen", latitude: 50.87, longitude: 8.02),
        Region(key: 50, name: "Brandenburg und Berlin", town: "Luckenwalde", latitude: 52.09, longitude: 13.17),
        Region(
            key: 61, name: "Sachsen-Anhalt: Tiefland Sachsen-Anhalt", town: "Magdeburg", latitude: 52.13,
            longitude: 11.63),
        Region(key: 62, name: "Sachsen-Anhalt: Harz", town: "Wernigerode", latitude: 51.84, longitude: 10.78),
        Region(key: 71, name: "Thüringen: Tiefland Thüringen", town: "Weimar", latitude: 50.98, longitude: 11.33),
        Region(key: 72, name: "Thüringen: Mittelgebirge Thüringen", town: "Ilmenau", latitude: 50.68, longitude: 10.92),
        Region(key: 81, name: "Sachsen: Tiefland Sachsen", town: "Riesa", latitude: 51.31, longitude: 13.29),
        Region(
            key: 82, name: "Sachsen: Mittelgebirge Sachsen", town: "Annaberg-Buchholz", latitude: 50.58,
            longitude: 13.00),
        Region(
            key: 91, name: "Hessen: Nordhessen und hess. Mittelgebirge", town: "Marburg", latitude: 50.81,
            longitude: 8.77),
        Region(key: 92, name: "Hessen: Rhein-Main", town: "Wiesbaden", latitude: 50.08, longitude: 8.24),
        Region(
            key: 101, name: "Rheinland-Pfalz und Saarland: Rhein, Pfalz, Nahe und Mosel", town: "Koblenz",
            latitude: 50.36, longitude: 7.59),
        Region(
            key: 102, name: "Rheinland-Pfalz und Saarland: Mittelgebirgsbereich Rheinland-Pfalz", town: "Pirmasens",
            latitude: 49.20, longitude: 7.61),
        Region(
            key: 103, name: "Rheinland-Pfalz und Saarland: Saarland", town: "Saarbrücken", latitude: 49.24,
            longitude: 6.99),
        Region(
            key: 111, name: "Baden-Württemberg: Oberrhein und unteres Neckartal", town: "Karlsruhe", latitude: 49.01,
            longitude: 8.40),
        Region(
            key: 112, name: "Baden-Württemberg: Hohenlohe/mittlerer Neckar/Oberschwaben", town: "Stuttgart",
            latitude: 48.78, longitude: 9.18),
        Region(
            key: 113, name: "Baden-Württemberg: Mittelgebirge Baden-Württemberg", town: "Villingen-Schwenningen",
            latitude: 48.06, longitude: 8.46),
        Region(
            key: 121, name: "Bayern: Allgäu/Oberbayern/Bay. Wald", town: "München", latitude: 48.14, longitude: 11.58),
        Region(key: 122, name: "Bayern: Donauniederungen", town: "Regensburg", latitude: 49.01, longitude: 12.10),
        Region(
            key: 123, name: "Bayern: Bayern nördl. der Donau, o. Bayr. Wald, o. Mainfranken", town: "Bayreuth",
            latitude: 49.94, longitude: 11.58),
        Region(key: 124, name: "Bayern: Mainfranken", town: "Würzburg", latitude: 49.79, longitude: 9.95),
    ]

    /// Germany's border as a coarse outline (latitude, longitude; about 80 vertices, within
    /// roughly 10 km of the real line): a location outside has no DWD region. Hand-traced for this
    /// project from the border's well-known points (the Danish land border, the Baltic coast, the
    /// Oder and Neisse, the Ore Mountains, the Bavarian Forest, the Inn and the Alps, Lake
    /// Constance, the Rhine, the Saar and Moselle, the Dutch border, the North Sea coast).
    static let outline: [(Double, Double)] = [
        (55.06, 8.40), (54.91, 8.60), (54.83, 9.45), (54.78, 9.95), (54.50, 10.20), (54.55, 11.05), (54.50, 11.35),
        (54.20, 12.10),
        (54.70, 13.45), (54.55, 13.72), (54.25, 13.90), (54.05, 14.25), (53.85, 14.22), (53.45, 14.40), (53.25, 14.41),
        (52.85, 14.15),
        (52.40, 14.55), (51.85, 14.72), (51.55, 14.75), (51.15, 15.04), (50.87, 14.82), (50.85, 14.40), (50.75, 13.90),
        (50.60, 13.45), (50.50, 13.00), (50.35, 12.50), (50.20, 12.20), (50.05, 12.30), (49.80, 12.50), (49.50, 12.65),
        (49.20, 12.95), (48.95, 13.50), (48.77, 13.84), (48.57, 13.50), (48.25, 13.00), (47.95, 12.90), (47.75, 13.00),
        (47.55, 13.05), (47.65, 12.75), (47.60, 12.20), (47.58, 11.70), (47.40, 11.20), (47.50, 10.90), (47.27, 10.18),
        (47.55, 9.70), (47.64, 9.20), (47.655, 9.16), (47.70, 8.85), (47.60, 8.50), (47.58, 7.60), (48.00, 7.55),
        (48.55, 7.80),
        (48.97, 8.22), (49.05, 7.70), (49.12, 7.05), (49.18, 6.75), (49.40, 6.40), (49.80, 6.52), (50.05, 6.13),
        (50.13, 6.14), (50.35, 6.40), (50.65, 6.15), (50.76, 6.02), (51.05, 5.87), (51.20, 6.08), (51.50, 6.10),
        (51.85, 5.95), (51.95, 6.75), (52.15, 7.00), (52.45, 7.05), (52.65, 6.75), (53.00, 7.20), (53.33, 7.20),
        (53.50, 6.90), (53.58, 6.55), (53.75, 6.90), (53.90, 8.10), (54.35, 8.50), (54.62, 8.28), (54.90, 8.22),
    ]

    /// Whether the point lies inside ``outline`` (ray casting).
    public static func isInGermany(latitude: Double, longitude: Double) -> Bool {
        var inside = false
        var j = outline.count - 1
        for i in outline.indices {
            let (yi, xi) = outline[i]
            let (yj, xj) = outline[j]
            if (yi > latitude) != (yj > latitude), longitude < (xj - xi) * (latitude - yi) / (yj - yi) + xi {
                inside.toggle()
            }
            j = i
        }
        return inside
    }

    /// The region nearest to the coordinates (equirectangular distance), or nil outside Germany.
    public static func nearest(latitude: Double, longitude: Double) -> Region? {
        guard isInGermany(latitude: latitude, longitude: longitude) else { return nil }
        let scale = cosine(ofDegrees: latitude)
        return regions.min { a, b in
            distanceSquared(a, latitude, longitude, scale) < distanceSquared(b, latitude, longitude, scale)
        }
    }

    public static func region(key: Int) -> Region? { regions.first { $0.key == key } }

    private static func distanceSquared(_ r: Region, _ latitude: Double, _ longitude: Double, _ scale: Double) -> Double
    {
        let dy = r.latitude - latitude
        let dx = (r.longitude - longitude) * scale
        return dx * dx + dy * dy
    }

    /// cos for 47–56° without Foundation's math: a Taylor series around 0, exact to 1e-9 there.
    private static func cosine(ofDegrees degrees: Double) -> Double {
        let x = degrees * Double.pi / 180
        var term = 1.0
        var sum = 1.0
        for n in 1...10 {
            term *= -x * x / Double((2 * n - 1) * (2 * n))
            sum += term
        }
        return sum
    }
}
