import ArgumentParser

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "info", abstract: "Describe sound files (not yet written).")
    func run() throws { throw ExitCode.failure }
}
