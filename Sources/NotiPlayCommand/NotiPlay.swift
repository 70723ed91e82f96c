import ArgumentParser
import NotiPlay

/// `noti-play`: the root command plays a sound itself (its options are PlayOptions), so that
/// `noti-play --help`, the generated man page and the shell completions show every way to play
/// one; `info`, `convert`, `check` and `listen` are its subcommands, and `play` says the same as
/// the root, for those who name it.
@main
struct NotiPlay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "noti-play",
        abstract: "Apple's notification sounds on Linux: play, inspect and convert WAV, AIFF/AIFC and CAF.",
        usage: """
            noti-play FILE [--volume V] [--critical] [--device NAME] [--verbose]
            noti-play --named NAME | --sound-name NAME | --default | --ringtone [<options>]
            noti-play --list-devices
            noti-play info|convert|check|listen ...
            """,
        discussion: PlayCommand.discussion,
        version: "noti-play \(NotiPlayVersion.text)",
        subcommands: Subcommands.all
    )

    @OptionGroup var options: PlayOptions

    func run() throws { try options.play() }

    /// ArgumentParser lets a parent's options appear after a subcommand's name and takes them
    /// for the parent: `noti-play listen --device hw:1 --verbose` would hand --device and
    /// --verbose to the root's PlayOptions, not to listen. So arguments that start with a
    /// subcommand's name are parsed by `Subcommands`, the same tree without the root's options
    /// (it is never shown: help, man page and completions come from this type). `noti-play help`
    /// alone is the root's help.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments == ["help"] {
            main(["--help"])
        } else if let first = arguments.first, first == "help" || Subcommands.all.contains(where: { $0._commandName == first }) {
            Subcommands.main(arguments)
        } else {
            // Here the subcommands are known for help and completions only: one named after a
            // file or an option (`noti-play x.caf listen`) is a mistake, not a way to run it.
            do {
                var command = try parseAsRoot(arguments)
                guard !Subcommands.all.contains(where: { $0 == type(of: command) }) else {
                    let name = type(of: command)._commandName
                    throw ValidationError("'\(name)' is a subcommand: name it first (noti-play \(name) ...)")
                }
                try command.run()
            } catch {
                exit(withError: error)
            }
        }
    }
}

/// The subcommands, parsed under a root of the same name with no options of its own.
struct Subcommands: ParsableCommand {
    static let all: [ParsableCommand.Type] = [PlayCommand.self, InfoCommand.self, ConvertCommand.self, CheckCommand.self, ListenCommand.self]

    static let configuration = CommandConfiguration(
        commandName: "noti-play", usage: NotiPlay.configuration.usage, version: NotiPlay.configuration.version,
        subcommands: all)
}

/// `noti-play play FILE ...`: what `noti-play FILE ...` does.
struct PlayCommand: ParsableCommand {
    static let discussion = """
        Exits 0 when the whole sound was played, 1 when the file or the device failed, and \
        130, 143 or 129 when SIGINT, SIGTERM or SIGHUP stopped it (with a fade of a few milliseconds).
        """

    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a sound through ALSA: what `noti-play FILE ...` does.",
        discussion: discussion
    )

    @OptionGroup var options: PlayOptions

    func run() throws { try options.play() }
}
