/// The agent's version: the same text as the repo's `VERSION` file (a test keeps them equal),
/// sent in the User-Agent, Home Assistant's `sw_version` and `--version`.
public enum BreezeVersion {
    public static let string = "0.1.0"
}
