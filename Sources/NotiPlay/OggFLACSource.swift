import COggFLAC
import NotiPlayDecoder
import NotiPlayOutput

/// FLAC in an Ogg stream (the `.oga` sounds of some themes, deepin's among them), decoded by
/// libFLAC, loaded the first time one plays: libsndfile 1.2.0 refuses these files ("unknown
/// error in flac decoder"). libFLAC reads the checked descriptor (see ``RegularFile``), never
/// the path. It stops at the length the file states, as libsndfile does.
final class OggFLACSource: ForeignFrameSource {
    private let stream: OpaquePointer
    /// Holds the descriptor libFLAC reads open while the stream lives.
    private let file: RegularFile
    let sampleRate: Double
    let channelCount: Int
    let frameCount: Int
    let bitsPerSample: Int
    var loops: Bool

    /// Whether `file` begins an Ogg stream of FLAC (checked on its first bytes, before libFLAC
    /// is loaded).
    static func holdsOggFLAC(_ file: RegularFile) -> Bool {
        var start = [UInt8](repeating: 0, count: Int(NOTI_OGG_FLAC_SNIFF_BYTES))
        let count = start.withUnsafeMutableBytes { bytes in
            (try? file.read(into: bytes.baseAddress!, count: bytes.count, at: 0)) ?? 0
        }
        return noti_is_ogg_flac(start, count) != 0
    }

    init(_ sound: SoundFile, loops: Bool) throws(NotificationSoundError) {
        if let missing = noti_ogg_flac_load() {
            throw .file(sound.path, .unsupportedFormat, "it is Ogg FLAC, and \(String(cString: missing))")
        }
        var info = noti_ogg_flac_info()
        var reason: UnsafePointer<CChar>?
        guard let stream = noti_ogg_flac_open(sound.file.descriptor, Int64(sound.file.byteCount), &info, &reason) else {
            throw .file(sound.path, .malformed, "it is Ogg FLAC, but " + Self.text(reason))
        }
        guard info.channels >= 1, Int(info.channels) <= StreamDescription.maximumChannelCount,
              Double(info.sample_rate) <= StreamDescription.maximumSampleRate else {
            noti_ogg_flac_close(stream)
            throw .file(sound.path, .unsupportedFormat, "\(info.channels) channel(s) at \(info.sample_rate) Hz cannot be played")
        }
        self.stream = stream
        file = sound.file
        sampleRate = Double(info.sample_rate)
        channelCount = Int(info.channels)
        frameCount = Int(info.frames)
        bitsPerSample = Int(info.bits_per_sample)
        self.loops = loops
    }

    deinit { noti_ogg_flac_close(stream) }

    var duration: Double? { Double(frameCount) / sampleRate }
    /// FLAC's channel order is WAVE's.
    var channelLayout: ChannelLayout? { nil }

    var foreignDescription: ForeignSoundDescription {
        ForeignSoundDescription(
            container: "OGG (OGG Container format)", encoding: "FLAC (Free Lossless Audio Codec), signed \(bitsPerSample) bit PCM",
            sampleRate: Int(sampleRate), channelCount: channelCount, frameCount: frameCount, reader: "libFLAC")
    }

    func read(into buffer: UnsafeMutableBufferPointer<Float>) throws -> Int {
        var frames = try decode(into: buffer)
        if frames == 0 && loops && frameCount > 0 {
            var reason: UnsafePointer<CChar>?
            guard noti_ogg_flac_rewind(stream, &reason) == 0 else { throw DecodingError(.malformed, Self.text(reason)) }
            frames = try decode(into: buffer)
        }
        return frames
    }

    /// A damaged stream fails as the pure-Swift decoder's reads do: the reason, without the path.
    private func decode(into buffer: UnsafeMutableBufferPointer<Float>) throws(DecodingError) -> Int {
        var reason: UnsafePointer<CChar>?
        let frames = noti_ogg_flac_read(stream, buffer.baseAddress, buffer.count / channelCount, &reason)
        guard frames >= 0 else { throw DecodingError(.malformed, Self.text(reason)) }
        return frames
    }

    /// One of the C side's static reasons.
    private static func text(_ reason: UnsafePointer<CChar>?) -> String {
        reason.map { String(cString: $0) } ?? "libFLAC cannot decode it"
    }
}
