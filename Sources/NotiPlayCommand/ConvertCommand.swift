import ArgumentParser

struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "convert", abstract: "Convert a sound (not yet written).")
    func run() throws { throw ExitCode.failure }
}
