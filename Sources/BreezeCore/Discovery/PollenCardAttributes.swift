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

/// What the popular pollen Lovelace cards read from Google-based pollen sensors (docs/home-assistant.md, Dashboards and automations), on
/// each pollen item's numeric sensor:
///
/// - `attribution`: the pollen JSON's own (`Includes pollen data from Google`, or Open-Meteo's);
/// - `code`: a plant's topic id, i.e. its Google code in lower case (`birch`); types have none,
///   as the cards tell types from plants by it;
/// - `forecast`: one entry per following day, `{offset, date, has_index, value, category,
///   color_hex}` (`offset` 1 = tomorrow; `category` is the day's level word), plus the `level`
///   and `color` the item JSON's forecast always had;
/// - the type's `icon` (`mdi:grass`, `mdi:tree`, `mdi:flower-tulip`): Home Assistant's MQTT
///   integration drops an `icon` key from JSON attributes, so it is the sensor's own icon.
///
/// The attributes come from the location's summary `<p>/<loc>/pollen` (it alone carries the
/// attribution and every day) through a `json_attributes_template` that picks the item: today's
/// entry of `items` with every docs/reference.md, Pollen levels and colors field, as before, and the item of each later day.
enum PollenCardAttributes {
    /// The icon the cards map to a pollen type; nil for a plant or an unknown type.
    static func typeIcon(_ itemID: String) -> String? {
        switch itemID {
        case "grass": "mdi:grass"
        case "tree": "mdi:tree"
        case "weed": "mdi:flower-tulip"
        default: nil
        }
    }

    /// The max sensor's `json_attributes_template` (docs/home-assistant.md, Dashboards and automations): the summary's `max` with
    /// `top_pollen_codes` (today's types with the highest value among those with an index, codes
    /// in upper case, e.g. `["TREE"]`; empty when none has one), the `attribution`, and a
    /// `forecast` of the following days' maxima in the item sensors' shape (plus that day's
    /// `top_pollen_codes`). No `top_value`: the card takes a sensor with one for another kind.
    static let overallRiskTemplate =
        "{%- set types = ['grass', 'tree', 'weed'] -%}"
        + "{%- set ns = namespace(top=none, codes=[], forecast=[]) -%}"
        + "{%- for i in value_json['items'] if i.id in types and i.value is not none -%}"
        + "{%- if ns.top is none or i.value > ns.top %}{% set ns.top = i.value %}{% set ns.codes = [i.id | upper] %}"
        + "{%- elif i.value == ns.top %}{% set ns.codes = ns.codes + [i.id | upper] %}{% endif -%}"
        + "{%- endfor -%}"
        + "{%- for day in value_json.days[1:] %}{% set offset = loop.index %}"
        + "{% set d = namespace(top=none, level='Unknown', color=none, codes=[]) %}"
        + "{% for i in day['items'] if i.id in types and i.value is not none %}"
        + "{% if d.top is none or i.value > d.top %}{% set d.top = i.value %}{% set d.level = i.level %}"
        + "{% set d.color = i.color %}{% set d.codes = [i.id | upper] %}"
        + "{% elif i.value == d.top %}{% set d.codes = d.codes + [i.id | upper] %}{% endif %}{% endfor %}"
        + "{% set ns.forecast = ns.forecast + [{'offset': offset, 'date': day.date, 'has_index': d.top is not none,"
        + " 'value': d.top, 'category': d.level, 'color_hex': d.color, 'top_pollen_codes': d.codes}] %}"
        + "{% endfor -%}"
        + "{{ dict(value_json.max, top_pollen_codes=ns.codes, attribution=value_json.attribution,"
        + " forecast=ns.forecast) | tojson }}"

    /// The `json_attributes_template` of one item's numeric sensor. `itemID` is a topic id
    /// (`[a-z0-9_]+`), safe inside the template's quotes. `items` is read with brackets: in a
    /// template `value_json.items` is the mapping's method.
    static func template(itemID: String, isPlant: Bool) -> String {
        let id = "'" + itemID + "'"
        let code = isPlant ? ", code=" + id : ""
        return "{%- set ns = namespace(item={}, forecast=[]) -%}"
            + "{%- for i in value_json['items'] if i.id == " + id + " %}{% set ns.item = i %}{% endfor -%}"
            + "{%- for day in value_json.days[1:] %}{% set offset = loop.index %}"
            + "{% for i in day['items'] if i.id == " + id + " %}"
            + "{% set ns.forecast = ns.forecast + [{'offset': offset, 'date': day.date,"
            + " 'has_index': i.value is not none, 'value': i.value, 'category': i.level,"
            + " 'color_hex': i.color, 'level': i.level, 'color': i.color}] %}"
            + "{% endfor %}{% endfor -%}"
            + "{{ dict(ns.item, attribution=value_json.attribution, forecast=ns.forecast" + code + ") | tojson }}"
    }
}
