import ArgumentParser
import NotiPlay
import NotiPlayDecoder

/// `noti-play check FILE [--attachment]`: is this a valid notification sound, and why not.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Tell whether a file is a valid notification sound (format, length, size) and why not.",
        discussion: "Exits 0 when it is valid, 1 when it is not, with each reason on its own line."
    )

    @Argument(help: "A sound file.", completion: .file())
    var file: String

    @Flag(help: "Check it as a notification attachment too: at most 5 MB, and it decodes completely.")
    var attachment = false

    func run() throws {
        let opened: RegularFile
        do {
            // The argument's own bytes: a file name that is not UTF-8 still opens.
            opened = try RegularFile(path: RawArguments.bytes(of: file))
        } catch {
            Output.failure(file, "not valid: \(error.message)")
            throw ExitCode.failure
        }
        let check = SoundCheck.check(opened, asAttachment: attachment)
        if let d = check.description {
            try Output.standardOutput(lines: ["\(file): \(d.container.displayName), \(d.encoding.displayName), \(d.sampleRate.rateText) Hz, \(d.channelCount) channel(s), \(d.duration.fixed(3)) s, \(check.fileBytes) bytes"])
        }
        if check.isValid {
            try Output.standardOutput(lines: ["\(file): a valid notification sound\(attachment ? " and attachment" : "")"])
            return
        }
        for problem in check.problems { Output.failure(file, "not valid: \(problem)") }
        throw ExitCode.failure
    }
}
