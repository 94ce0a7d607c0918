import BreezeCore

/// A date that must exist (test literals only).
func date(_ y: Int, _ m: Int, _ d: Int) -> CivilDate { CivilDate(year: y, month: m, day: d)! }
