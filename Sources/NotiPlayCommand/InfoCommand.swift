import ArgumentParser
import NotiPlay
import NotiPlayDecoder

/// `noti-play info FILE…`: what afinfo shows, for people or (`--json`) for programs.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe sound files: container, encoding, rate, channels, frames, duration, packets.",
        discussion: "Exits with status 1 when any file cannot be read; the others are still described."
    )

    @Argument(help: "WAV, AIFF/AIFC or CAF files.", completion: .file())
    var files: [String]

    @Flag(help: "Print a JSON array with one object per file.")
    var json = false

    func run() throws {
        var failed = false
        var objects: [String] = []
        for (index, path) in files.enumerated() {
            do {
                // The argument's own bytes: a file name that is not UTF-8 still opens.
                let file = try RegularFile(path: RawArguments.bytes(of: path))
                let separator = index > 0 ? [""] : []
                switch try Self.describe(file) {
                case .native(let description):
                    if json { objects.append(Self.json(path: path, description)) }
                    else { try Output.standardOutput(lines: separator + Self.lines(path: path, description)) }
                case .foreign(let description):
                    if json { objects.append(Self.json(path: path, description)) }
                    else { try Output.standardOutput(lines: separator + Self.lines(path: path, description)) }
                }
            } catch let error as DecodingError {
                failed = true
                Output.failure(path, error.message)
                if json { objects.append("{\"file\": \(path.jsonQuoted), \"error\": \(error.message.jsonQuoted)}") }
            }
        }
        if json { try Output.standardOutput("[\n  " + objects.joined(separator: ",\n  ") + "\n]\n") }
        if failed { throw ExitCode.failure }
    }

    /// The lines `info` prints, raw: Output escapes each.
    static func lines(path: String, _ d: StreamDescription) -> [String] {
        var lines: [(String, String)] = [
            ("File", path),
            ("Container", d.container.displayName),
            ("Encoding", "\(d.encoding.displayName) [\(d.encoding.afconvertName)]"),
            ("Sample rate", "\(d.sampleRate.rateText) Hz"),
            ("Channels", String(d.channelCount)),
            ("Bits per sample", String(d.encoding.bitsPerSample)),
            ("Frames", String(d.frameCount)),
            ("Duration", "\(d.duration.fixed(3)) s"),
            ("Packets", "\(d.packetCount) × \(d.bytesPerPacket) bytes, \(d.framesPerPacket) frame\(d.framesPerPacket == 1 ? "" : "s") each"),
        ]
        if d.primingFrames > 0 { lines.append(("Priming frames", String(d.primingFrames))) }
        lines.append(("Audio data", "\(d.dataByteCount) bytes at offset \(d.dataOffset)"))
        if d.isTruncated { lines.append(("Truncated", "yes: the file holds less audio than its header says")) }
        for note in d.notes { lines.append(("Note", note)) }
        return lines.map { label, value in
            (label + ":").padding(toLength: 17) + value
        }
    }

    enum Described {
        case native(StreamDescription)
        case foreign(ForeignSoundDescription)
    }

    /// The Swift decoder's description, or — for what `noti-play FILE` plays through libsndfile
    /// — libsndfile's, so that info says what play does.
    static func describe(_ file: RegularFile) throws(DecodingError) -> Described {
        do {
            return .native(try SoundDecoder(file: file).description)
        } catch where error.kind == .unknownContainer || error.kind == .unsupported {
            guard let foreign = try? SoundSources.foreignDescription(of: SoundFile(file, formats: .anyReadable), declined: error) else {
                throw error
            }
            return .foreign(foreign)
        }
    }

    /// A file only libsndfile reads: what it says, and that a notification may not name it.
    static func lines(path: String, _ d: ForeignSoundDescription) -> [String] {
        [("File", path), ("Container", "\(d.container) (read by \(d.reader))"), ("Encoding", d.encoding),
         ("Sample rate", "\(d.sampleRate) Hz"), ("Channels", String(d.channelCount)), ("Frames", String(d.frameCount)),
         ("Duration", "\(d.duration.fixed(3)) s"), ("Note", Self.foreignNote)]
            .map { label, value in (label + ":").padding(toLength: 17) + value }
    }

    static func json(path: String, _ d: ForeignSoundDescription) -> String {
        let fields: [(String, String)] = [
            ("file", path.jsonQuoted), ("container", d.container.jsonQuoted), ("readBy", d.reader.jsonQuoted),
            ("encodingDescription", d.encoding.jsonQuoted), ("sampleRate", String(d.sampleRate)),
            ("channels", String(d.channelCount)), ("frames", String(d.frameCount)), ("duration", d.duration.fixed(6)),
            ("notes", "[" + Self.foreignNote.jsonQuoted + "]"),
        ]
        return "{" + fields.map { "\($0.0.jsonQuoted): \($0.1)" }.joined(separator: ", ") + "}"
    }

    // What libsndfile reads may be a WAV too (GSM, MS ADPCM): what a name needs is an encoding.
    static let foreignNote = "noti-play plays this file from a path, through libsndfile; a notification sound (a name) must be one noti-play decodes itself: WAV, AIFF/AIFC or CAF in Linear PCM, IMA ADPCM, IMA4, µ-law or A-law"

    static func json(path: String, _ d: StreamDescription) -> String {
        let fields: [(String, String)] = [
            ("file", path.jsonQuoted),
            ("container", d.container.rawValue.jsonQuoted),
            ("encoding", d.encoding.afconvertName.jsonQuoted),
            ("encodingDescription", d.encoding.displayName.jsonQuoted),
            ("sampleRate", d.sampleRate.rateText),
            ("channels", String(d.channelCount)),
            ("bitsPerSample", String(d.encoding.bitsPerSample)),
            ("frames", String(d.frameCount)),
            ("duration", d.duration.fixed(6)),
            ("packets", String(d.packetCount)),
            ("bytesPerPacket", String(d.bytesPerPacket)),
            ("framesPerPacket", String(d.framesPerPacket)),
            ("primingFrames", String(d.primingFrames)),
            ("dataOffset", String(d.dataOffset)),
            ("dataBytes", String(d.dataByteCount)),
            ("truncated", String(d.isTruncated)),
            ("notes", "[" + d.notes.map(\.jsonQuoted).joined(separator: ", ") + "]"),
        ]
        return "{" + fields.map { "\($0.0.jsonQuoted): \($0.1)" }.joined(separator: ", ") + "}"
    }
}

extension String {
    func padding(toLength width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

