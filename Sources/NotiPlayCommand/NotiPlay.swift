import ArgumentParser

@main
struct NotiPlay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "noti-play",
        abstract: "Apple's notification sounds on Linux: play, inspect and convert WAV, AIFF/AIFC and CAF.",
        usage: """
            noti-play FILE [--volume V] [--critical] [--device NAME] [--verbose]
            noti-play --list-devices
            noti-play info FILE... [--json]
            noti-play convert IN OUT [-f caff|WAVE|AIFF|AIFC] [-d FORMAT[@RATE]]
            noti-play check FILE [--attachment]
            noti-play listen [--always] [--interval SECONDS] [--burst-limit N] [--device NAME] [--verbose]
            """,
        subcommands: [PlayCommand.self, InfoCommand.self, ConvertCommand.self, CheckCommand.self, ListenCommand.self],
        defaultSubcommand: PlayCommand.self
    )
}
