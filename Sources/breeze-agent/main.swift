// The thin executable: everything lives in BreezeAgent, which the tests import.
import BreezeAgent

#if canImport(Glibc)
    import Glibc
#endif

let code = await AgentMain.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: Environment.current)
exit(code)
