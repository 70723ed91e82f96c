import CSndFile
import NotiPlayDecoder
import NotiPlayOutput

/// Opens a sound file for playing: the pure-Swift decoder for WAV, AIFF/AIFC and CAF, and
/// libsndfile for what it does not cover (Ogg Vorbis, Opus and FLAC theme sounds).
public enum SoundSources {
    /// `onDecoded`, if given, receives the whole decoded sound once it has been read to its end
    /// (pure-Swift formats only), for a cache.
    public static func open(
        _ path: String, loops: Bool = false, onDecoded: (@Sendable (DecodedSound) -> Void)? = nil
    ) throws(NotificationSoundError) -> any FrameSource {
        do {
            let decoder = try SoundDecoder(path: path)
            return RecordingDecoderSource(decoder, loops: loops, onComplete: onDecoded)
        } catch where error.kind == .unknownContainer {
            return try LibSndFileSource(path: path, loops: loops, notNative: error.message)
        } catch {
            throw .unreadable(path, error.message)
        }
    }

    /// The sound's exact length in seconds, from its header.
    public static func duration(of path: String) throws(NotificationSoundError) -> Double {
        do {
            return try SoundDecoder(path: path).description.duration
        } catch where error.kind == .unknownContainer {
            let file = try LibSndFileSource(path: path, loops: false, notNative: error.message)
            return Double(file.frameCount) / file.sampleRate
        } catch {
            throw .unreadable(path, error.message)
        }
    }
}

/// A file read through libsndfile: the fallback for formats the pure-Swift decoder does not
/// decode. Never used for the four codecs in the three containers.
final class LibSndFileSource: FrameSource {
    private let file: OpaquePointer
    let sampleRate: Double
    let channelCount: Int
    let frameCount: Int
    private let loops: Bool

    /// `notNative` is why the pure-Swift decoder declined the file, for the error message.
    init(path: String, loops: Bool, notNative: String) throws(NotificationSoundError) {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw .unreadable(path, "\(notNative), nor a format libsndfile reads")
        }
        guard info.channels >= 1, info.channels <= Int32(StreamDescription.maximumChannelCount),
              info.samplerate >= 1, info.samplerate <= 1_536_000 else {
            sf_close(file)
            throw .unreadable(path, "\(info.channels) channel(s) at \(info.samplerate) Hz cannot be played")
        }
        self.file = file
        sampleRate = Double(info.samplerate)
        channelCount = Int(info.channels)
        frameCount = Int(info.frames)
        self.loops = loops
    }

    deinit { sf_close(file) }

    var duration: Double? { Double(frameCount) / sampleRate }

    func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int {
        let capacity = sf_count_t(buffer.count / channelCount)
        var frames = Int(sf_readf_float(file, buffer.baseAddress, capacity))
        if frames == 0 && loops && frameCount > 0 {
            sf_seek(file, 0, SEEK_SET)
            frames = Int(sf_readf_float(file, buffer.baseAddress, capacity))
        }
        return frames
    }
}
