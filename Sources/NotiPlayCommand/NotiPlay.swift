#if canImport(Glibc)
import Glibc
#endif
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
        discussion: manual,
        version: "noti-play \(NotiPlayVersion.text)",
        subcommands: Subcommands.shown
    )

    /// The man page's DESCRIPTION (scripts/docs/generate-docs.sh makes the page from these texts),
    /// and the top of `noti-play --help`. ASCII only: generate-manual drops other characters.
    /// No line may start with "." or "'" (roff would read it as a request).
    static let manual = """
        noti-play plays the sounds of Apple's notification model (UNNotificationSound) on ALSA: \
        Linear PCM, IMA4 and IMA ADPCM, mu-law and A-law in CAF, AIFF/AIFC and WAV, decoded in \
        pure Swift, and theme sounds (Ogg Vorbis) through libsndfile. It exits when the sound has \
        been heard to its end. noti-play play FILE ... is the same as noti-play FILE ...

        A sound NAME (--named) is a file name, never a path, looked up only in: the app's folders \
        (--sounds-dir), then with --app-id $XDG_DATA_HOME/noti-play/apps/ID/sounds and the same \
        under each of $XDG_DATA_DIRS, then $XDG_DATA_HOME/noti-play/sounds, then \
        DIR/noti-play/sounds for each DIR of $XDG_DATA_DIRS, then noti-play's bundled sounds. A \
        name resolving outside its folder (through "..", a separator or a symlink) is refused. A \
        sound of 30 seconds or more plays the default sound instead.

        --volume V is linear amplitude from 0.0 to 1.0. A critical sound (--critical, \
        --default-critical) plays at exactly V, through quiet hours, and fades out other sounds; \
        other sounds play at V times the notification volume. --ringtone loops until SIGINT or \
        SIGTERM, or until --for SECONDS have passed.

        Sound goes to the desktop's sound server natively (PipeWire, else PulseAudio), else to \
        ALSA; --backend pipewire|pulse|alsa chooses. A device name (--device) is a server's sink \
        (pipewire:NAME, pulse:NAME) or ALSA configuration: a name such as file:"|cmd" runs a \
        command. Trust it like a shell command; never take one from a notification. \
        --list-devices lists every sound system's playback devices, default first.

        EXIT STATUS: 0 when the whole sound was played (or the user's settings kept it silent); \
        1 when the file or the device failed (one line on standard error); 64 for a usage error \
        (an unknown option, a bad value, in every subcommand); 130, 143 and 129 when SIGINT, \
        SIGTERM and SIGHUP stopped it (with a fade of a few milliseconds). listen exits 0 on \
        SIGINT and SIGTERM (SIGHUP reloads its settings) and 1 when it cannot use the session bus.

        FILES: $XDG_CONFIG_HOME/noti-play/noti-play.conf (by default \
        ~/.config/noti-play/noti-play.conf), "key = value" lines: notification-volume (0.0 to \
        1.0), do-not-disturb (true or false), quiet-hours (HH:MM-HH:MM), theme (a sound theme \
        name), default-sound, critical-sound, ringtone-sound (paths), backend (pipewire, pulse, \
        alsa or auto); "#" starts a comment. The \
        user unit noti-play-listen.service runs listen.

        ENVIRONMENT: XDG_CONFIG_HOME (the settings), XDG_DATA_HOME and XDG_DATA_DIRS (sound \
        names, sound themes), PIPEWIRE_REMOTE, PULSE_SERVER and XDG_RUNTIME_DIR (where the sound \
        servers are), ALSA_CONFIG_PATH (ALSA's configuration, hence its devices), \
        PULSE_PROP_media.role and PULSE_PROP_application.id (set to "event" and "noti-play" \
        unless already set, so that the sound server applies its rules for alert sounds), \
        DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR (listen's session bus).

        EXAMPLES:
          noti-play sound.caf --critical --volume 0.8
          noti-play --named ping.caf --sounds-dir /opt/chat/sounds
          noti-play --sound-name message-new-instant
          noti-play --ringtone --for 10
          noti-play info --json a.wav b.aiff
          noti-play convert in.aiff out.caf -d ima4 -f caff
          noti-play check alert.caf --attachment
          systemctl --user enable --now noti-play-listen.service

        SEE ALSO: aplay(1); afconvert(1) on macOS.
        """

    @Argument(help: PlayOptions.fileHelp)
    var file: String?

    @OptionGroup var options: PlayOptions

    func run() throws { try options.play(file: file) }

    /// ArgumentParser lets a parent's options appear after a subcommand's name and takes them
    /// for the parent: `noti-play listen --device hw:1 --verbose` would hand --device and
    /// --verbose to the root's PlayOptions, not to listen. So arguments that start with a
    /// subcommand's name are parsed by `Subcommands`, the same tree without the root's options
    /// (it is never shown: help, man page and completions come from this type). `noti-play help`
    /// alone is the root's help.
    static func main() {
        // Started with stdin, stdout or stderr closed (`2>&-`), the first file opened would take
        // that number, and a line for stderr (or quietingLibraries' dup2) would land in it. A
        // closed stdout gets /dev/null read-only: what is printed to it fails (EBADF) as it
        // would have, and says so, instead of vanishing with status 0 (`noti-play info x >&-`).
        for descriptor in STDIN_FILENO...STDERR_FILENO where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            _ = open("/dev/null", descriptor == STDOUT_FILENO ? O_RDONLY : O_RDWR)
        }
        Output.checkPrintedOutputAtExit()
        let arguments = Array(CommandLine.arguments.dropFirst())
        let first = arguments.first
        if first == "--generate-completion-script" {
            CompletionRoot.main(arguments)
        } else if arguments == ["help"] {
            main(["--help"])
        } else if first == "help" {
            guard arguments.count == 2, subcommand(named: arguments[1]) != nil else {
                exitEscaped(ValidationError("'help' takes one subcommand: \(Subcommands.shown.map { $0._commandName }.joined(separator: ", "))"))
            }
            run(Subcommands.self, arguments)
        } else if let first, subcommand(named: first) != nil {
            run(Subcommands.self, arguments)
        } else {
            // Here the subcommands are known for help and completions only: one named after a
            // file or an option (`noti-play x.caf listen`, `noti-play --verbose info a.wav`) is
            // a mistake, not a way to run it, unless a file has that name.
            var misplaced: String? {
                arguments.prefix { $0 != "--" }.first { subcommand(named: $0) != nil && access($0, F_OK) != 0 }
            }
            do {
                var command: ParsableCommand
                do {
                    command = try parseAsRoot(arguments)
                } catch {
                    if let misplaced { throw ValidationError(Self.nameItFirst(misplaced)) }
                    throw error
                }
                if Subcommands.all.contains(where: { $0 == type(of: command) }) {
                    throw ValidationError(Self.nameItFirst(type(of: command)._commandName))
                }
                // (The scan only when FILE is a subcommand's name: not on every start.)
                if let root = command as? NotiPlay, let file = root.file, subcommand(named: file) != nil, file == misplaced {
                    throw ValidationError(Self.nameItFirst(file))
                }
                try command.run()
            } catch {
                exitEscaped(error)
            }
        }
    }

    /// What `root.main(arguments)` does, its errors printed by `exitEscaped`.
    private static func run(_ root: ParsableCommand.Type, _ arguments: [String]) {
        do {
            var command = try root.parseAsRoot(arguments)
            try command.run()
        } catch {
            root.exitEscaped(error)
        }
    }

    private static func subcommand(named name: String) -> ParsableCommand.Type? {
        Subcommands.all.first { $0._commandName == name }
    }

    private static func nameItFirst(_ name: String) -> String {
        "'\(name)' is a subcommand: name it first (noti-play \(name) ...); a file of that name is ./\(name)"
    }
}

extension ParsableCommand {
    /// `exit(withError:)`, with every line of an error's message escaped: ArgumentParser's own
    /// messages echo what was typed raw ("The value '...' is invalid", "Unknown option '...'"),
    /// and an ESC in it would steer the terminal. Help and --version (status 0) are ArgumentParser's.
    static func exitEscaped(_ error: Error) -> Never {
        let code = exitCode(for: error)
        guard code != .success else { exit(withError: error) }
        let message = fullMessage(for: error)
        if !message.isEmpty {
            var lines = message.split(separator: "\n", omittingEmptySubsequences: false)
            while lines.last?.isEmpty == true { lines.removeLast() }
            for line in lines { Output.standardError(String(line)) }
        }
        Glibc.exit(code.rawValue)
    }
}

/// The subcommands, parsed under a root of the same name with no options of its own.
struct Subcommands: ParsableCommand {
    /// In help, the man page and completions. Not `play`: it would repeat the root's options.
    static let shown: [ParsableCommand.Type] = [InfoCommand.self, ConvertCommand.self, CheckCommand.self, ListenCommand.self]
    static let all: [ParsableCommand.Type] = [PlayCommand.self] + shown

    static let configuration = CommandConfiguration(
        commandName: "noti-play", usage: NotiPlay.configuration.usage, version: NotiPlay.configuration.version,
        subcommands: all)
}

/// The shell completions' view of the root: its options, without FILE. ArgumentParser's
/// completion scripts take a root's positional argument to come before any subcommand, so with
/// FILE there `noti-play info --j` or `noti-play convert a b -d ` would complete nothing (they
/// would count `info` as FILE). Without it, the root's options and every subcommand complete
/// (a FILE first, `noti-play x.caf --crit`, completes nothing, as before).
struct CompletionRoot: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "noti-play", version: NotiPlay.configuration.version, subcommands: Subcommands.shown)

    @OptionGroup var options: PlayOptions
}
