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

extension PollenReport {
    /// The report with its type and plant names in `language`, for the sources whose names are
    /// the agent's own (Open-Meteo; DWD's species too): every part that shows a name (the
    /// topics' JSON, Home Assistant's entity names, the status page, the images) then shows the
    /// same one. Google's names are Google's, already in `pollen.language`: left as they are.
    /// Codes (and so topics and entity ids) never change.
    public func naming(in language: Language) -> PollenReport {
        guard source != .google else { return self }
        var copy = self
        for day in copy.days.indices {
            for item in copy.days[day].items.indices {
                if let name = language.plantName(code: copy.days[day].items[item].code) {
                    copy.days[day].items[item].name = name
                }
            }
        }
        return copy
    }
}
