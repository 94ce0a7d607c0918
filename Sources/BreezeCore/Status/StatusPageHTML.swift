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

/// The HTTP facts of the status page (docs/http.md), next to the renderer that relies on them.
extension StatusPage {
    /// Largest document `GET /` serves (docs/http.md: at most 100 KB).
    public static let maximumBytes = 100_000
    /// Longest text (a name from the config or an API) printed as is; longer ones end in `…`.
    public static let maximumTextCharacters = 80
    /// Longest error message printed in the footer (with its time).
    public static let maximumErrorCharacters = 240
    /// Most locations the agent models for one page: more can never fit in ``maximumBytes``
    /// (even a location waiting for its first fetch takes 400 bytes), so a fleet of 1,000
    /// costs a request no more than 250.
    public static let maximumModelledLocations = 250
    /// The page reloads itself this often (seconds).
    public static let refreshSeconds = 60
    /// `Content-Security-Policy` of `GET /`: no scripts, no outside anything.
    public static let contentSecurityPolicy = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'"
    public static let contentType = "text/html; charset=utf-8"

    /// How much of the page is drawn; the renderer steps down until the page fits.
    enum Detail: Equatable {
        /// Everything.
        case full
        /// Plants in season as a count instead of a list.
        case compact
    }

    /// The document: full detail when it fits in ``maximumBytes``; else the plants become a
    /// count; else the last locations are left out (the page says how many, and that
    /// `/api/state.json` has them all).
    public var html: String {
        let full = render(detail: .full, shown: locations.count)
        if full.utf8.count <= Self.maximumBytes { return full }
        var shown = locations.count
        while true {
            let page = render(detail: .compact, shown: shown)
            if page.utf8.count <= Self.maximumBytes || shown == 0 { return page }
            // Drop enough locations at once: the size is roughly linear in them.
            let excess = page.utf8.count - Self.maximumBytes
            let perLocation = max(1, page.utf8.count / max(1, shown))
            shown = max(0, shown - max(1, (excess + perLocation - 1) / perLocation))
        }
    }

    func render(detail: Detail, shown: Int) -> String {
        // The body first: the colors it uses become classes in the head's style.
        var out = HTMLWriter()
        let language = self.language
        out.raw("<header><h1>breeze-agent</h1><p class=\"mu\">")
        out.raw("MQTT ")
        out.badge(
            language.text(mqttConnected ? .pageConnected : .pageDisconnected),
            color: mqttConnected ? Self.okColor : Self.badColor)
        let total = locations.count + omittedLocations
        out.raw(" · ")
        out.words(
            language.text(one: .pageLocationsOne, few: .pageLocationsFew, other: .pageLocationsOther, count: total))
        out.raw(" · ")
        out.text(time(generatedAt, zone: zone))
        if demo {
            out.raw(" · <b>")
            out.words(language.text(.pageDemo))
            out.raw("</b>")
        }
        out.raw("</p></header><main>")

        for location in locations.prefix(shown) {
            renderLocation(location, detail: detail, into: &out)
        }
        if shown < locations.count || omittedLocations > 0 {
            let hidden = locations.count - shown + omittedLocations
            out.raw("<p class=\"c\">")
            out.words(
                language.text(
                    one: .pageHiddenOne, few: .pageHiddenFew, other: .pageHiddenOther, count: hidden,
                    ["kb": String(Self.maximumBytes / 1000)]))
            out.raw(" ")
            out.phrase(
                language.text(.pageHiddenLink), links: ["link": "<a href=\"api/state.json\">/api/state.json</a>"])
            out.raw("</p>")
        }
        out.raw("</main>")
        renderFooter(into: &out)

        var page = "<!DOCTYPE html>\n<html lang=\"\(language.htmlTag)\"><head><meta charset=\"utf-8\">"
        page += "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
        page += "<meta http-equiv=\"refresh\" content=\"\(Self.refreshSeconds)\">"
        // An icon of its own (empty): without one a browser asks for `/favicon.ico` at the root,
        // outside a proxy's prefix (Home Assistant's ingress, docs/home-assistant.md).
        page += "<link rel=\"icon\" href=\"data:,\">"
        page += "<title>\(HTMLWriter.escape(language.text(.pageTitle)))</title>"
        page += "<style>\(Self.css)\(out.colorStyles)</style></head><body>"
        page += out.document
        page += "</body></html>\n"
        return page
    }

    // MARK: a location

    private func renderLocation(_ location: StatusLocation, detail: Detail, into out: inout HTMLWriter) {
        out.raw("<section class=\"loc\"><h2>")
        out.text(location.name)
        out.raw("</h2><p class=\"mu\">")
        out.text(location.id)
        out.raw(" · ")
        out.words(
            language.text(
                .pageAPICalls,
                ["google": String(location.googleCallsToday), "open_meteo": String(location.openMeteoCallsToday)]))
        out.raw("</p>")
        out.raw("<div class=\"g\">")
        section(location.pollen, title: language.text(.pageSectionPollen), into: &out) { pollen, out in
            renderPollen(pollen, detail: detail, zone: location.zone, into: &out)
        }
        section(location.climate, title: language.text(.pageSectionClimate), into: &out) { climate, out in
            renderClimate(climate, zone: location.zone, into: &out)
        }
        section(location.stripes, title: language.text(.pageSectionStripes), into: &out) { stripes, out in
            renderStripes(stripes, into: &out)
        }
        section(location.air, title: language.text(.pageSectionAir), into: &out) { air, out in
            renderAir(air, zone: location.zone, into: &out)
        }
        if !location.risks.isEmpty {
            out.raw("<div class=\"c\"><h3>")
            out.words(language.text(.pageSectionRisk))
            out.raw("</h3><ul class=\"ls\">")
            for risk in location.risks {
                out.raw("<li><span>")
                out.text(risk.level.label)
                out.raw("</span> ")
                out.level(risk.level)
                if let driver = risk.level.value {
                    out.raw(" <span class=\"mu\">")
                    out.words(language.text(.pageRiskFrom))
                    out.raw("</span> ")
                    out.text(driver)
                }
                if risk.alert {
                    out.raw(" · <b>")
                    out.words(language.text(.pageRiskAlert))
                    out.raw("</b>")
                }
                out.raw(" <span class=\"mu\">")
                out.words(language.text(.pageRiskAlertsAt, ["level": risk.alertLevel]))
                out.raw("</span>")
                if let airOut = risk.airOut {
                    out.raw("<br><span class=\"mu\">")
                    out.words(language.text(.pageRiskAirOut))
                    out.raw("</span> ")
                    out.text(airOut)
                }
                out.raw("</li>")
            }
            out.raw("</ul></div>")
        }
        if !location.images.isEmpty {
            out.raw("<div class=\"c\"><h3>")
            out.words(language.text(.pageSectionImages))
            out.raw("</h3>")
            for image in location.images {
                renderImage(image, of: location.id, into: &out)
            }
            out.raw("</div>")
        }
        out.raw("</div></section>")
    }

    /// A card for a section: nothing when off, a line when waiting or unavailable.
    private func section<Content>(
        _ section: StatusSection<Content>, title: String, into out: inout HTMLWriter,
        _ body: (Content, inout HTMLWriter) -> Void
    ) {
        switch section {
        case .off: return
        case .waiting:
            out.raw("<div class=\"c\"><h3>")
            out.text(title)
            out.raw("</h3><p class=\"mu\">")
            out.words(language.text(.pageWaiting))
            out.raw("</p></div>")
        case .unavailable(let reason):
            out.raw("<div class=\"c\"><h3>")
            out.text(title)
            out.raw("</h3><p class=\"mu\">")
            out.text(reason)
            out.raw("</p></div>")
        case .data(let content):
            out.raw("<div class=\"c\"><h3>")
            out.text(title)
            out.raw("</h3>")
            body(content, &out)
            out.raw("</div>")
        }
    }

    private func renderPollen(_ pollen: StatusPollen, detail: Detail, zone: ZoneRules?, into out: inout HTMLWriter) {
        out.raw("<p class=\"big\">")
        out.words(language.text(.today))
        out.raw(" ")
        out.level(pollen.max)
        out.raw(" <b>")
        out.text(pollen.max.label)
        out.raw("</b>")
        if let value = pollen.max.value {
            out.raw(" ")
            out.text(value)
            out.raw("/5")
        }
        out.raw("</p>")
        renderItems(pollen.types, into: &out)
        if !pollen.now.isEmpty {
            out.raw("<h4>")
            out.words(language.text(.pageNow))
            out.raw("</h4>")
            renderCells(pollen.now, into: &out)
        }
        if let airOut = pollen.airOut {
            out.raw("<p>")
            out.words(language.text(.pageBestAirOut))
            out.raw(" <b>")
            out.text(airOut)
            out.raw("</b></p>")
        }
        if !pollen.season.isEmpty && detail == .full {
            out.raw("<h4>")
            out.words(language.text(.pageAgainstSeason))
            out.raw("</h4><ul>")
            for line in pollen.season {
                out.raw("<li>")
                out.text(line)
                out.raw("</li>")
            }
            out.raw("</ul>")
        }
        if !pollen.plants.isEmpty {
            switch detail {
            case .full:
                out.raw("<h4>")
                out.words(language.text(.pageInSeason))
                out.raw("</h4>")
                renderItems(pollen.plants, into: &out)
            case .compact:
                out.raw("<p class=\"mu\">")
                out.words(
                    language.text(
                        one: .pagePlantsInSeasonOne, few: .pagePlantsInSeasonFew, other: .pagePlantsInSeasonOther,
                        count: pollen.plants.count))
                out.raw(" (<a href=\"api/state.json\">")
                out.words(language.text(.pageList))
                out.raw("</a>)</p>")
            }
        }
        if pollen.days.count > 1 {
            out.raw("<h4>")
            out.words(language.text(.pageForecast))
            out.raw("</h4>")
            renderCells(pollen.days, into: &out)
        }
        if !pollen.consensus.isEmpty && detail == .full {
            renderConsensus(pollen.consensus, into: &out)
        }
        out.raw("<p class=\"mu\">")
        out.text(pollen.source)
        if let region = pollen.region {
            out.raw(" · ")
            out.words(language.text(.pageDWDRegion, ["region": region]))
        }
        updated(pollen.updatedAt, stale: pollen.stale, zone: zone, into: &out)
        out.raw("</p>")
    }

    /// The items several sources carry: a row each, every source's level and the consensus
    /// (docs/reference.md, "Several sources").
    private func renderConsensus(_ rows: [StatusConsensus], into out: inout HTMLWriter) {
        out.raw("<h4>")
        out.words(language.text(.pageSources))
        out.raw("</h4><div class=\"tw\"><table><tr><th></th>")
        for reading in rows[0].readings {
            out.raw("<th>")
            out.text(reading.label)
            out.raw("</th>")
        }
        out.raw("<th>")
        out.words(language.text(.pageAllSources))
        out.raw("</th></tr>")
        for row in rows {
            out.raw("<tr><td>")
            out.text(row.label)
            out.raw("</td>")
            for reading in row.readings {
                out.raw("<td data-l=\"")
                out.text(reading.label)
                out.raw("\">")
                out.level(reading)
                out.raw("</td>")
            }
            out.raw("<td data-l=\"")
            out.words(row.consensus.label)
            out.raw("\">")
            out.level(row.consensus)
            if !row.agree {
                out.raw(" <span class=\"mu\">")
                out.words(language.text(.pageSourcesDisagree))
                out.raw("</span>")
            }
            out.raw("</td></tr>")
        }
        out.raw("</table></div>")
    }

    /// ` · updated 12:20` (` · stale` after it when stale): the time in the location's zone and
    /// the page's language.
    private func updated(_ at: String, stale: Bool, zone: ZoneRules?, into out: inout HTMLWriter) {
        out.raw(" · ")
        out.words(language.text(.pageUpdated, ["time": time(at, zone: zone)]))
        if stale {
            out.raw(" · <b>")
            out.words(language.text(.pageStale))
            out.raw("</b>")
        }
    }

    /// An RFC 3339 UTC time as people read it in `zone` (``Language/moment(_:zone:today:)``,
    /// today being the page's date there); as it is without a zone or when it is not one.
    func time(_ text: String, zone: ZoneRules?) -> String {
        guard let zone, let instant = UTCTimestamp.parse(text) else { return text }
        let today = UTCTimestamp.parse(generatedAt).map { zone.localDate(atUnixTime: $0) }
        return language.moment(instant, zone: zone, today: today)
    }

    /// `2026-12-01T05:00:00Z: HTTP 503` with its leading time as ``time(_:zone:)`` shows it.
    func timedMessage(_ text: String, zone: ZoneRules?) -> String {
        let stamp = String(text.prefix(20))
        guard zone != nil, text.dropFirst(20).hasPrefix(": "), UTCTimestamp.parse(stamp) != nil else { return text }
        return time(stamp, zone: zone) + text.dropFirst(20)
    }

    /// A row of small cells, each a label over its level word (the forecast days, the hour now).
    private func renderCells(_ cells: [StatusLevel], into out: inout HTMLWriter) {
        out.raw("<ul class=\"days\">")
        for cell in cells {
            out.raw("<li><span class=\"mu\">")
            out.text(cell.label)
            out.raw("</span><br>")
            out.level(cell)
            out.raw("</li>")
        }
        out.raw("</ul>")
    }

    /// The seed's pollen cards: name, value, a 0–5 bar, the level word.
    private func renderItems(_ items: [StatusLevel], into out: inout HTMLWriter) {
        out.raw("<ul class=\"it\">")
        for item in items {
            out.raw("<li><p><span>")
            out.text(item.label)
            out.raw("</span><b>")
            out.text(item.value ?? "–")
            out.raw("</b></p><i class=\"pb\"><i")
            let fifths = min(5, max(0, item.value.flatMap { Int($0) } ?? 0))
            if let color = item.color, fifths > 0 {
                out.raw(" class=\"\(out.colorClass(color))\" style=\"width:\(fifths * 20)%\"")
            }
            out.raw("></i></i>")
            out.level(item)
            out.raw("</li>")
        }
        out.raw("</ul>")
    }

    private func renderClimate(_ climate: StatusClimate, zone: ZoneRules?, into out: inout HTMLWriter) {
        out.raw("<p class=\"mu\">")
        out.words(language.text(.pageTemperatureOn, ["date": language.dayAndMonth(climate.date)]))
        out.raw("</p><p class=\"chg\"><span>")
        out.words(language.text(.pageChangeSince, ["year": String(climate.baselineYear)]))
        out.raw("</span><b")
        if let text = climate.changeText {
            out.raw(" style=\"color:")
            out.text(climate.changeColor.description)
            out.raw("\">")
            out.text(text)
        } else {
            out.raw(">")
            out.words(language.text(.pageNoChange))
        }
        out.raw("</b></p>")
        // The seed's fallback chart: bars 30–130 high by the normalised `bar`, the value above,
        // the year below; one <rect> per point, colored by its deviation (docs/reference.md, Climate arithmetic).
        // At least six slots wide, the bars centred: a chart of three points is drawn at the
        // same scale as one of six (the SVG scales to the card's width).
        let slot = 64
        let width = max(6, climate.bars.count) * slot
        let left = (width - climate.bars.count * slot) / 2
        out.raw("<svg class=\"ch\" viewBox=\"0 0 \(width) 190\" role=\"img\" aria-label=\"")
        out.words(language.text(.pageChartLabel))
        out.raw("\">")
        for (index, bar) in climate.bars.enumerated() {
            let height = 30 + min(1000, max(0, bar.barThousandths)) / 10
            let x = left + index * slot + 10
            let center = left + index * slot + slot / 2
            out.raw("<rect x=\"\(x)\" y=\"\(160 - height)\" width=\"44\" height=\"\(height)\" rx=\"4\" fill=\"")
            out.text(bar.color.description)
            out.raw("\"/><text x=\"\(center)\" y=\"\(154 - height)\">")
            out.text(bar.text)
            out.raw("</text><text x=\"\(center)\" y=\"180\">\(bar.year)</text>")
        }
        out.raw("</svg><p class=\"mu\">Open-Meteo")
        updated(climate.updatedAt, stale: climate.stale, zone: zone, into: &out)
        out.raw("</p>")
    }

    private func renderStripes(_ stripes: StatusStripes, into out: inout HTMLWriter) {
        out.raw("<p class=\"mu\">")
        out.words(
            language.text(
                .pageStripesCaption, ["first": String(stripes.firstYear), "last": String(stripes.lastYear)]))
        out.raw("</p>")
        out.raw(
            "<svg class=\"st\" viewBox=\"0 0 \(max(1, stripes.colors.count)) 1\" preserveAspectRatio=\"none\" "
                + "shape-rendering=\"crispEdges\" role=\"img\" aria-label=\"")
        out.words(language.text(.pageSectionStripes))
        out.raw("\">")
        for (index, color) in stripes.colors.enumerated() {
            out.raw("<rect x=\"\(index)\" fill=\"")
            out.text(color.description)
            out.raw("\"/>")
        }
        out.raw("</svg><p class=\"yr\"><span>\(stripes.firstYear)</span><span>\(stripes.lastYear)</span></p>")
    }

    private func renderAir(_ air: StatusAir, zone: ZoneRules?, into out: inout HTMLWriter) {
        out.raw("<ul class=\"ls\">")
        for metric in air.metrics {
            out.raw("<li><span>")
            out.text(metric.label)
            out.raw("</span> <b>")
            out.text(metric.value ?? "–")
            if metric.level == nil, metric.value != nil { out.raw(" \(AirMetric.microgramsPerCubicMetre)") }
            out.raw("</b>")
            if metric.level != nil {
                out.raw(" ")
                out.level(metric)
            }
            out.raw("</li>")
        }
        out.raw("</ul><p class=\"mu\">Open-Meteo")
        updated(air.updatedAt, stale: air.stale, zone: zone, into: &out)
        out.raw("</p>")
    }

    /// A rendered image as the agent serves it, linked to itself. The path is relative to the
    /// page (no leading `/`), like every link here: behind Home Assistant's ingress proxy the
    /// page is `/api/hassio_ingress/<token>/` and the image resolves under that prefix
    /// (docs/home-assistant.md, "Ingress").
    private func renderImage(_ image: StatusImage, of location: String, into out: inout HTMLWriter) {
        let path = "images/\(location)/\(image.id).\(image.format.fileExtension)"
        out.raw("<figure><a href=\"")
        out.text(path, limit: nil)
        out.raw("\"><img src=\"")
        out.text(path, limit: nil)
        let kind = language.text(Self.kindKeys[image.kind] ?? .pageKindSummary)
        out.raw("\" width=\"\(image.width)\" height=\"\(image.height)\" alt=\"")
        out.words(language.text(.pageImageAlt, ["id": image.id, "kind": kind]))
        out.raw("\"></a><figcaption class=\"mu\">")
        out.text(image.id)
        out.raw(" · ")
        out.text(kind)
        out.raw(" · \(image.width)×\(image.height) \(image.format.fileExtension.uppercased())")
        out.raw("</figcaption></figure>")
    }

    // MARK: the footer

    private func renderFooter(into out: inout HTMLWriter) {
        let source = HTMLWriter.escape(language.text(.pageColumnSource))
        let lastSuccess = HTMLWriter.escape(language.text(.pageColumnLastSuccess))
        let staleColumn = HTMLWriter.escape(language.text(.pageColumnStale))
        let calls = HTMLWriter.escape(language.text(.pageColumnCalls))
        let lastError = HTMLWriter.escape(language.text(.pageColumnLastError))
        out.raw("<footer><h2>")
        out.words(language.text(.pageSources))
        out.raw("</h2><div class=\"tw\"><table><tr><th>\(source)</th><th>\(lastSuccess)</th>")
        out.raw("<th>\(staleColumn)</th><th>\(calls)</th><th>\(lastError)</th></tr>")
        for source in sources {
            // `data-l`: the column's name, shown before each cell when the table is stacked.
            out.raw("<tr><td>")
            out.text(source.displayName(in: language))
            out.raw("</td><td data-l=\"\(lastSuccess)\">")
            out.text(source.lastSuccess.map { time($0, zone: zone) } ?? language.text(.pageNever))
            out.raw("</td><td data-l=\"\(staleColumn)\">")
            if source.stale {
                out.raw("<b>")
                out.words(language.text(.pageStale))
                out.raw("</b>")
            } else {
                out.words(language.text(.pageNo))
            }
            out.raw("</td><td data-l=\"\(calls)\">\(source.callsToday)</td><td data-l=\"\(lastError)\">")
            out.text(
                source.lastError.map { timedMessage($0, zone: zone) } ?? language.text(.pageNone),
                limit: StatusPage.maximumErrorCharacters)
            out.raw("</td></tr>")
        }
        if sources.isEmpty {
            out.raw("<tr><td colspan=\"5\">")
            out.words(language.text(.pageNoFetchYet))
            out.raw("</td></tr>")
        }
        out.raw("</table></div><p>MQTT ")
        out.badge(
            language.text(mqttConnected ? .pageConnected : .pageDisconnected),
            color: mqttConnected ? Self.okColor : Self.badColor)
        out.raw(" · breeze-agent ")
        out.text(version)
        out.raw(" · <a href=\"api/state.json\">/api/state.json</a> · <a href=\"metrics\">/metrics</a></p>")
        for attribution in attributions {
            out.raw("<p class=\"mu\">")
            out.text(attribution, limit: nil)
            out.raw("</p>")
        }
        out.raw("</footer>")
    }

    // MARK: pieces

    static let okColor = HexColor(red: 0x34, green: 0xc7, blue: 0x59)
    static let badColor = HexColor(red: 0xff, green: 0x3b, blue: 0x30)

    /// `1 December` (English; the page uses its language's ``Language/dayAndMonth(_:)``).
    static func monthDay(_ date: CivilDate) -> String { Language.english.dayAndMonth(date) }

    /// The catalogue's word for each image kind.
    static let kindKeys: [ImageKind: CatalogueKey] = [
        .pollen: .pageKindPollen, .climate: .pageKindClimate, .stripes: .pageKindStripes, .summary: .pageKindSummary,
    ]

    /// Light and dark schemes; grids that wrap from one column at 360 px to several at 1280 px.
    static let css = """
        :root{color-scheme:light dark;--bg:#f2f2f7;--cd:#fff;--fg:#1c1c1e;--mu:#6c6c70;--ln:rgba(128,128,128,.28)}\
        @media(prefers-color-scheme:dark){:root{--bg:#000;--cd:#1c1c1e;--fg:#f2f2f7;--mu:#a1a1a6}}\
        *{box-sizing:border-box}\
        body{margin:0;padding:12px;font:15px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;\
        background:var(--bg);color:var(--fg)}\
        header,main,footer{max-width:1240px;margin:0 auto}\
        h1{font-size:1.5em;margin:0}h2{font-size:1.3em;margin:18px 0 2px}h3{font-size:1.05em;margin:0 0 6px}\
        h4{font-size:.9em;margin:10px 0 0;color:var(--mu)}p{margin:4px 0}a{color:inherit}\
        .mu{color:var(--mu);font-size:.85em}\
        .g{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,310px),1fr));gap:12px;margin-top:8px;\
        align-items:start}\
        .c{background:var(--cd);border-radius:16px;padding:14px;min-width:0;overflow-wrap:anywhere}\
        .b{display:inline-block;padding:1px 8px;border-radius:9px;font-weight:600;font-size:.85em;white-space:nowrap}\
        .big{font-size:1.1em}\
        .it{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:8px;list-style:none;padding:0;margin:8px 0 0}\
        .it li{border:1px solid var(--ln);border-radius:12px;padding:8px}\
        .it p{display:flex;justify-content:space-between;gap:6px;margin:0}\
        .pb{display:block;height:6px;border-radius:4px;background:rgba(142,142,147,.2);margin:5px 0}\
        .pb i{display:block;height:6px;border-radius:4px}\
        .days{display:grid;grid-template-columns:repeat(auto-fill,minmax(66px,1fr));gap:6px;list-style:none;\
        padding:0;margin:6px 0}\
        .days li{text-align:center;border:1px solid var(--ln);border-radius:10px;padding:4px 2px}\
        .days .b{font-size:.74em;padding:1px 4px}\
        .ls{list-style:none;padding:0;margin:0}.ls li{padding:5px 0;border-bottom:1px solid var(--ln)}\
        .chg{display:flex;justify-content:space-between;align-items:baseline;gap:8px;margin:8px 0}\
        .chg b{font-size:1.6em}\
        svg{display:block;width:100%;height:auto}\
        figure{margin:8px 0}figure img{display:block;max-width:100%;height:auto;border:1px solid var(--ln)}\
        .ch{color:var(--mu);font-size:14px}.ch text{fill:currentColor;text-anchor:middle}\
        .st{height:56px;border-radius:6px;margin-top:8px}.st rect{width:1px;height:1px}\
        .yr{display:flex;justify-content:space-between;color:var(--mu);font-size:.85em}\
        .tw{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.9em}\
        td,th{padding:5px 8px;text-align:left;border-bottom:1px solid var(--ln);vertical-align:top}\
        footer{margin-top:18px}\
        @media(max-width:600px){table,tbody,tr,td{display:block}tr:first-child{display:none}\
        tr{border-bottom:1px solid var(--ln);padding:6px 0}td{border:0;padding:1px 0}\
        td:first-child{font-weight:600}td[data-l]::before{content:attr(data-l) ": ";color:var(--mu)}}
        """
}

/// Builds the document; every value from the config or an API goes through ``text(_:)``.
struct HTMLWriter {
    private(set) var document = ""

    /// Markup written by the renderer itself (never a value from outside).
    mutating func raw(_ markup: String) { document += markup }

    /// A value, escaped for text and attribute context alike, clipped to
    /// ``StatusPage/maximumTextCharacters``.
    mutating func text(_ value: String, limit: Int? = StatusPage.maximumTextCharacters) {
        document += HTMLWriter.escape(limit.map { HTMLWriter.clip(value, to: $0) } ?? value)
    }

    /// The classes of the colors used so far, in order of first use (`k0`, `k1`, …).
    private(set) var colors: [HexColor] = []

    /// The class painting a background in `color` with black or white text, whichever reads
    /// better on it. A class per color rather than a style per element: a page repeats a few
    /// colors hundreds of times, and the 100 KB bound is the page's.
    mutating func colorClass(_ color: HexColor) -> String {
        if let index = colors.firstIndex(of: color) { return "k\(index)" }
        colors.append(color)
        return "k\(colors.count - 1)"
    }

    /// `.k0{background:#ff9500;color:#000}…` for the colors used.
    var colorStyles: String {
        colors.enumerated().map { ".k\($0.offset){background:\($0.element);color:\(HTMLWriter.ink(on: $0.element))}" }
            .joined()
    }

    /// A level word on its color.
    mutating func badge(_ word: String, color: HexColor) {
        raw("<span class=\"b \(colorClass(color))\">")
        text(word)
        raw("</span>")
    }

    /// The level word of a cell in its color (nothing for a value-only metric).
    mutating func level(_ cell: StatusLevel) {
        guard let word = cell.level else { return }
        badge(word, color: cell.color ?? HexColor(red: 0x8e, green: 0x8e, blue: 0x93))
    }

    /// A catalogue text (the page's own words, never clipped), escaped all the same.
    mutating func words(_ text: String) { document += HTMLWriter.escape(text) }

    /// A catalogue text with `{name}` links: the text escaped, each link's markup as it is.
    mutating func phrase(_ text: String, links: [String: String]) {
        var markup: [String: String] = [:]
        for (name, link) in links { markup[name] = link }
        raw(Catalogue.fill(HTMLWriter.escape(text), markup))
    }

    static func escape(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            // C0 controls other than tab, newline and carriage return are not allowed in HTML.
            case _ where scalar.value < 0x20 && scalar != "\t" && scalar != "\n" && scalar != "\r":
                out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func clip(_ value: String, to limit: Int = StatusPage.maximumTextCharacters) -> String {
        guard value.count > limit else { return value }
        return String(value.prefix(limit - 1)) + "…"
    }

    /// `#000` or `#fff`: black on colors whose (approximate) relative luminance is above 0.18.
    static func ink(on color: HexColor) -> String {
        func square(_ channel: UInt8) -> Int { Int(channel) * Int(channel) }
        // 0.2126 R² + 0.7152 G² + 0.0722 B² (a gamma of 2), scaled by 10,000 × 255².
        let luminance = 2126 * square(color.red) + 7152 * square(color.green) + 722 * square(color.blue)
        return luminance > 1800 * 255 * 255 ? "#000" : "#fff"
    }
}
