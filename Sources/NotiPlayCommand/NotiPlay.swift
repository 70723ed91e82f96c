import ArgumentParser

@main
struct NotiPlay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "noti-play",
        abstract: "Apple's notification sounds on Linux: decode, inspect and convert WAV, AIFF/AIFC and CAF.",
        subcommands: [InfoCommand.self, ConvertCommand.self]
    )
}
