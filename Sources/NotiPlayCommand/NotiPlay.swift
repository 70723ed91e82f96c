import ArgumentParser

@main
struct NotiPlay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "noti-play",
        abstract: "Apple's notification sounds on Linux: play, inspect and convert WAV, AIFF/AIFC and CAF.",
        subcommands: [PlayCommand.self, InfoCommand.self, ConvertCommand.self],
        defaultSubcommand: PlayCommand.self
    )
}
