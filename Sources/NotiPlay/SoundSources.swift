import CSndFileLoader
import NotiPlayDecoder
import NotiPlayOutput
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Which formats a file may be played in, by who named it.
public enum SoundFormats: Sendable, Equatable {
    /// The formats a notification sound may have: WAV, AIFF/AIFC and CAF with Linear PCM, IMA
    /// ADPCM, µ-law or A-law, decoded in Swift. For names from notifications (untrusted), and a
    /// notification's `sound-file` outside the sound theme folders (``forNotificationFile(_:themeFolders:)``).
    case notificationSound
    /// Those, plus the Ogg Vorbis/Opus and FLAC files of the freedesktop sound theme (libsndfile;
    /// FLAC in Ogg through libFLAC). For theme sounds, and a `sound-file` inside a theme folder.
    case themeSound
    /// Whatever libsndfile reads too: a path the user gave (command line, configuration).
    case anyReadable
}

extension SoundFormats {
    /// What a notification's `sound-file` may be: a theme sound's formats when the file that
    /// was opened lies inside one of `themeFolders` (what the theme plays by name, a sender may
    /// name by path: `bell.oga`), a notification sound's elsewhere. Judged on the descriptor's
    /// real location, never on the path given: a symlink or a `..` counts where it leads, so a
    /// link in a theme folder to an Ogg elsewhere stays refused.
    static func forNotificationFile(_ file: RegularFile, themeFolders: [String]) -> SoundFormats {
        guard let location = FileSystem.location(of: file),
              themeFolders.contains(where: { FileSystem.contains($0, location) }) else { return .notificationSound }
        return .themeSound
    }
}

/// A sound file opened once (see ``RegularFile``), with the formats it may be decoded as. Every
/// later step — the 30-second rule, decoding, playing — reads this descriptor.
public struct SoundFile: Sendable, Equatable {
    public let file: RegularFile
    public let formats: SoundFormats
    public init(_ file: RegularFile, formats: SoundFormats) {
        self.file = file
        self.formats = formats
    }
    /// The path, escaped for messages.
    public var path: String { file.path }
    public static func == (a: Self, b: Self) -> Bool { a.file === b.file && a.formats == b.formats }
}

/// A sound file whose header has been read, once: what it holds, and the decoder that plays
/// exactly that. The 30-second rule judges this description, and what plays is read through its
/// decoder, never through a second parse: a sender who rewrites the header between two reads
/// (issue 23: the WAV's rate field flipped from 352,800 Hz, 29.9 s and allowed, to 8,000 Hz,
/// 1,318 s) changes nothing that plays. At most `frameCount` frames play (a loop plays them
/// again), however the file grows or changes under the descriptor.
public final class ParsedSound: Sendable, Equatable {
    public let file: SoundFile
    public let sampleRate: Double
    public let channelCount: Int
    /// The frames its header states: the pure-Swift decoder's exact count, or libsndfile's.
    public let frameCount: Int
    /// The speakers the file names for its channels, where it names them.
    public let channelLayout: ChannelLayout?
    /// Handed out once (``takeDecoder()``): it reads through the file's shared descriptor.
    private let decoder: Mutex<Decoder?>

    enum Decoder {
        case swift(SoundDecoder)
        /// libsndfile's, or libFLAC's for FLAC in Ogg (``SoundSources/foreignSource(_:loops:declined:)``).
        case foreign(any ForeignFrameSource)
    }

    /// Reads `file`'s header: the pure-Swift decoder's formats, else libsndfile's where the
    /// file's ``SoundFormats`` allow it.
    public convenience init(_ file: SoundFile) throws(NotificationSoundError) {
        self.init(file, try Self.decoder(of: file))
    }

    private init(_ file: SoundFile, _ decoder: sending Decoder) {
        self.file = file
        switch decoder {
        case .swift(let swift):
            (sampleRate, channelCount, frameCount) = (swift.description.sampleRate, swift.description.channelCount, swift.description.frameCount)
            channelLayout = swift.description.channelLayout
        case .foreign(let foreign):
            (sampleRate, channelCount, frameCount) = (foreign.sampleRate, foreign.channelCount, foreign.frameCount)
            channelLayout = foreign.channelLayout
        }
        self.decoder = Mutex(decoder)
    }

    private static func decoder(of file: SoundFile) throws(NotificationSoundError) -> Decoder {
        do {
            return .swift(try SoundDecoder(file: file.file))
        } catch {
            return .foreign(try SoundSources.foreignSource(file, loops: false, declined: error))
        }
    }

    /// The path, escaped for messages.
    public var path: String { file.path }
    /// Its length in seconds, by its header.
    public var duration: Double { Double(frameCount) / sampleRate }

    /// The decoder of the header that was read. Asked again (a second play of one parsed
    /// sound), the file is parsed again, and plays only if it still says what was judged.
    func takeDecoder() throws(NotificationSoundError) -> Decoder {
        if let first = decoder.withLock({ $0.take() }) { return first }
        let again = ParsedSound(file, try Self.decoder(of: file))
        guard again.sampleRate == sampleRate, again.channelCount == channelCount, again.frameCount == frameCount else {
            throw .unreadable(path, "it changed after it was checked (\(frameCount) frames at \(Int(sampleRate)) Hz, now \(again.frameCount) at \(Int(again.sampleRate)) Hz)")
        }
        return try again.takeDecoder()
    }

    public static func == (a: ParsedSound, b: ParsedSound) -> Bool { a === b }
}

/// Opens a sound file for playing: the pure-Swift decoder for WAV, AIFF/AIFC and CAF, and
/// libsndfile (libFLAC for Ogg FLAC) for what it does not cover, where the file's
/// ``SoundFormats`` allow it.
public enum SoundSources {
    /// `onDecoded`, if given, receives the whole decoded sound once it has been read to its end
    /// (pure-Swift formats only, at most `recordingLimit` samples), for a cache.
    public static func open(
        _ sound: SoundFile, loops: Bool = false, recordingLimit: Int = .max,
        onDecoded: (@Sendable (DecodedSound) -> Void)? = nil
    ) throws(NotificationSoundError) -> any FrameSource {
        try open(ParsedSound(sound), loops: loops, recordingLimit: recordingLimit, onDecoded: onDecoded)
    }

    /// Plays what `sound`'s header said when it was parsed (see ``ParsedSound``).
    public static func open(
        _ sound: ParsedSound, loops: Bool = false, recordingLimit: Int = .max,
        onDecoded: (@Sendable (DecodedSound) -> Void)? = nil
    ) throws(NotificationSoundError) -> any FrameSource {
        switch try sound.takeDecoder() {
        case .swift(let decoder):
            return RecordingDecoderSource(decoder, loops: loops, recordingLimit: recordingLimit, onComplete: onDecoded)
        case .foreign(let source):
            source.loops = loops
            return source
        }
    }

    /// The reader for a file the pure-Swift decoder `declined`, if the file's formats allow one:
    /// libFLAC for FLAC in Ogg (libsndfile 1.2.0 refuses it), libsndfile for the rest.
    static func foreignSource(_ sound: SoundFile, loops: Bool, declined: DecodingError) throws(NotificationSoundError) -> any ForeignFrameSource {
        let allowed = switch sound.formats {
        case .notificationSound: false
        case .themeSound: declined.kind == .unknownContainer
        case .anyReadable: declined.kind == .unknownContainer || declined.kind == .unsupported
        }
        guard allowed else {
            let why = declined.kind == .unknownContainer
                ? "\(declined.message) (a notification sound is WAV, AIFF/AIFC or CAF)" : declined.message
            throw .file(sound.path, FileProblem(declined.kind), why)
        }
        if OggFLACSource.holdsOggFLAC(sound.file) { return try OggFLACSource(sound, loops: loops) }
        return try LibSndFileSource(sound, loops: loops, declined: declined)
    }
}

/// A sound read by a library rather than noti-play's decoder (libsndfile, libFLAC).
protocol ForeignFrameSource: FrameSource {
    /// The frames the file states it holds; reading stops there.
    var frameCount: Int { get }
    /// The speakers of its channels, where the file or its format names them.
    var channelLayout: ChannelLayout? { get }
    /// What `info` and `check` say of it.
    var foreignDescription: ForeignSoundDescription { get }
    /// Whether a pass that ends starts again from the first frame (a ringtone).
    var loops: Bool { get set }
}

/// A file read through libsndfile: the fallback for formats the pure-Swift decoder does not
/// decode. Never used for the four codecs in the three containers.
final class LibSndFileSource: ForeignFrameSource {
    private let file: OpaquePointer
    let sampleRate: Double
    let channelCount: Int
    let frameCount: Int
    /// libsndfile's SF_FORMAT_* word.
    let format: Int32
    /// The speakers of its channels: the file's own map where libsndfile reads one (WAV, CAF),
    /// Vorbis's order for Ogg Vorbis and Opus, else nil (FLAC's order is WAVE's).
    let channelLayout: ChannelLayout?
    /// Whether a pass that ends starts again from the first frame (a ringtone).
    var loops = false
    /// Frames read in this pass: never past `frameCount`, what the header promised when the
    /// 30-second rule read it (libsndfile reads on through the descriptor, whose file a sender
    /// may have grown or rewritten since).
    private var position = 0

    /// Opens `sound` through libsndfile, on a duplicate of its descriptor (never its path), for
    /// what the pure-Swift decoder `declined` (``SoundSources/foreignSource(_:loops:declined:)``
    /// checks that its formats allow it).
    init(_ sound: SoundFile, loops: Bool, declined: DecodingError) throws(NotificationSoundError) {
        if let missing = noti_sndfile_load() {
            throw .file(sound.path, .unsupportedFormat, "\(declined.message), and \(String(cString: missing))")
        }
        // libsndfile reads through the descriptor's offset, which a duplicate shares: start it at 0.
        let descriptor = dup(sound.file.descriptor)
        guard descriptor >= 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            if descriptor >= 0 { Glibc.close(descriptor) }
            throw .unreadable(sound.path, "\(declined.message), and it cannot be handed to libsndfile")
        }
        var info = SF_INFO()
        guard let file = noti_sf_open_fd(descriptor, Int32(SFM_READ), &info, 1) else {
            throw .file(sound.path, .unsupportedFormat, "\(declined.message), nor a format libsndfile reads")
        }
        let container = info.format & Int32(SF_FORMAT_TYPEMASK)
        if sound.formats == .themeSound && container != Int32(SF_FORMAT_OGG) && container != Int32(SF_FORMAT_FLAC) {
            noti_sf_close(file)
            throw .file(sound.path, .unsupportedFormat, "\(declined.message); a theme sound is WAV, Ogg or FLAC")
        }
        guard info.channels >= 1, info.channels <= Int32(StreamDescription.maximumChannelCount),
              info.samplerate >= 1, Double(info.samplerate) <= StreamDescription.maximumSampleRate, info.frames >= 0 else {
            noti_sf_close(file)
            throw .file(sound.path, .unsupportedFormat, "\(info.channels) channel(s) at \(info.samplerate) Hz cannot be played")
        }
        self.file = file
        sampleRate = Double(info.samplerate)
        channelCount = Int(info.channels)
        frameCount = Int(info.frames)
        format = info.format
        channelLayout = Self.channelLayout(of: file, format: info.format, channelCount: Int(info.channels))
    }

    deinit { noti_sf_close(file) }

    var duration: Double? { Double(frameCount) / sampleRate }

    func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int {
        var frames = readPass(into: buffer)
        if frames == 0 && loops && position > 0 {  // the pass ended, at its stated length or short of it
            noti_sf_seek(file, 0, SEEK_SET)
            position = 0
            frames = readPass(into: buffer)
        }
        // Float files can hold NaN and infinities: they play as silence, never reach the mixer.
        for index in 0..<frames * channelCount where !buffer[index].isFinite { buffer[index] = 0 }
        return frames
    }

    /// Reads on in this pass, up to its `frameCount`.
    private func readPass(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        let capacity = min(buffer.count / channelCount, frameCount - position)
        guard capacity > 0 else { return 0 }
        let frames = max(0, Int(noti_sf_readf_float(file, buffer.baseAddress, sf_count_t(capacity))))
        position += frames
        return frames
    }
}

/// What libsndfile (or libFLAC) says of a file the pure-Swift decoder declined, for `info` and
/// `check`.
public struct ForeignSoundDescription: Sendable, Equatable {
    /// libsndfile's names: "FLAC (Free Lossless Audio Codec)", "Signed 16 bit PCM".
    public var container: String
    public var encoding: String
    public var sampleRate: Int
    public var channelCount: Int
    public var frameCount: Int
    /// The library that reads it: "libsndfile", or "libFLAC" for FLAC in Ogg.
    public var reader: String
    public var duration: Double { Double(frameCount) / Double(sampleRate) }
}

extension SoundSources {
    /// Describes a file only libsndfile reads, if its formats allow libsndfile (see
    /// ``SoundFormats``); throws the same one-line refusal playing it would.
    public static func foreignDescription(of sound: SoundFile, declined: DecodingError) throws(NotificationSoundError) -> ForeignSoundDescription {
        try foreignSource(sound, loops: false, declined: declined).foreignDescription
    }
}

extension LibSndFileSource {
    var foreignDescription: ForeignSoundDescription {
        ForeignSoundDescription(
            container: formatName(mask: Int32(SF_FORMAT_TYPEMASK)), encoding: formatName(mask: Int32(SF_FORMAT_SUBMASK)),
            sampleRate: Int(sampleRate), channelCount: channelCount, frameCount: frameCount, reader: "libsndfile")
    }

    /// See ``channelLayout``.
    fileprivate static func channelLayout(of file: OpaquePointer, format: Int32, channelCount: Int) -> ChannelLayout? {
        var map = [Int32](repeating: 0, count: channelCount)
        let mapped = map.withUnsafeMutableBytes {
            noti_sf_command(file, Int32(SFC_GET_CHANNEL_MAP_INFO), $0.baseAddress, Int32($0.count)) == SF_TRUE
        }
        if mapped {
            let speakers = map.map(speaker)
            return speakers.allSatisfy { $0 == .unknown } ? nil : ChannelLayout(speakers: speakers)
        }
        let encoding = format & Int32(SF_FORMAT_SUBMASK)
        return encoding == Int32(SF_FORMAT_VORBIS) || encoding == Int32(SF_FORMAT_OPUS) ? .vorbis(channelCount: channelCount) : nil
    }

    /// Our name for one of libsndfile's SF_CHANNEL_MAP_* positions: its REAR speakers are WAVE's
    /// back ones (5.1's surrounds), its SIDE ones WAVE's side ones (7.1's extra pair).
    private static func speaker(_ position: Int32) -> ChannelLayout.Speaker {
        switch Int(position) {
        case SF_CHANNEL_MAP_MONO, SF_CHANNEL_MAP_CENTER, SF_CHANNEL_MAP_FRONT_CENTER: .frontCenter
        case SF_CHANNEL_MAP_LEFT, SF_CHANNEL_MAP_FRONT_LEFT: .frontLeft
        case SF_CHANNEL_MAP_RIGHT, SF_CHANNEL_MAP_FRONT_RIGHT: .frontRight
        case SF_CHANNEL_MAP_LFE: .lowFrequency
        case SF_CHANNEL_MAP_REAR_LEFT: .backLeft
        case SF_CHANNEL_MAP_REAR_RIGHT: .backRight
        case SF_CHANNEL_MAP_REAR_CENTER: .backCenter
        case SF_CHANNEL_MAP_FRONT_LEFT_OF_CENTER: .frontLeftOfCenter
        case SF_CHANNEL_MAP_FRONT_RIGHT_OF_CENTER: .frontRightOfCenter
        case SF_CHANNEL_MAP_SIDE_LEFT: .sideLeft
        case SF_CHANNEL_MAP_SIDE_RIGHT: .sideRight
        case SF_CHANNEL_MAP_TOP_CENTER: .topCenter
        case SF_CHANNEL_MAP_TOP_FRONT_LEFT: .topFrontLeft
        case SF_CHANNEL_MAP_TOP_FRONT_RIGHT: .topFrontRight
        case SF_CHANNEL_MAP_TOP_FRONT_CENTER: .topFrontCenter
        case SF_CHANNEL_MAP_TOP_REAR_LEFT: .topBackLeft
        case SF_CHANNEL_MAP_TOP_REAR_RIGHT: .topBackRight
        case SF_CHANNEL_MAP_TOP_REAR_CENTER: .topBackCenter
        default: .unknown
        }
    }

    /// libsndfile's name for the file's container or encoding.
    fileprivate func formatName(mask: Int32) -> String {
        var info = SF_FORMAT_INFO()
        info.format = format & mask
        guard noti_sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0, let name = info.name else {
            return "libsndfile format 0x\(String(info.format, radix: 16))"
        }
        return String(cString: name)
    }
}
